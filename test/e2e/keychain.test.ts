/**
 * keydeck's promise, end to end with the real OS keychain: `keydeck --sandbox` in a terminal,
 * the guided setup turns the demo session token into a management key that lands in the Secret
 * Service (gnome-keyring on a private D-Bus session bus), found there with `secret-tool`; the
 * next start goes straight to the Keys pane with no setup, and nothing secret was written to the
 * config or data dirs. Skipped, with the reason printed, where dbus-daemon, gnome-keyring-daemon
 * or secret-tool is missing (`.ci/run` installs them).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { filesWithSecrets, hasCommand, killProcessesOfHome } from '../credentials/harness.js';
import { startApp, type PtyApp } from './pty.js';
import { cleanEnv } from './session.js';

const missing = ['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool'].filter((c) => !hasCommand(c));
const skipReason = missing.length > 0 ? `keychain e2e skipped: ${missing.join(', ')} not found (apt install dbus gnome-keyring libsecret-tools)` : undefined;
if (skipReason) console.warn(skipReason);

let bus: { address: string; pid: number } | undefined;
let dir: string;
let app: PtyApp | undefined;

/** How long the login keyring may take to take a secret once the daemon is unlocked (see {@link waitForLoginKeyring}). */
const LOGIN_KEYRING_MS = 30_000;

// The hook's budget covers its own waits: the bus and the daemon started, then the login keyring
// (vitest's 20 s default was shorter than that last wait's own budget).
beforeAll(() => {
  if (skipReason) return;
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-e2e-keychain-'));
  const started = spawnSync('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'], { encoding: 'utf8' });
  const [address, pid] = started.stdout.trim().split('\n');
  if (!address || !pid) throw new Error(`dbus-daemon did not start: ${started.stderr}`);
  bus = { address, pid: Number(pid) };
  const unlock = spawnSync('sh', ['-c', 'printf %s keydeck-test | gnome-keyring-daemon --unlock --components=secrets'], {
    env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, HOME: dir, XDG_DATA_HOME: path.join(dir, 'share') },
    encoding: 'utf8',
  });
  if (unlock.status !== 0) throw new Error(`gnome-keyring-daemon did not start: ${unlock.stderr}`);
  waitForLoginKeyring(address);
}, LOGIN_KEYRING_MS + 30_000);

/**
 * Waits until the daemon's "login" collection takes a secret: `--unlock` returns once the daemon has
 * forked, and it creates that collection afterwards; on a busy machine keydeck's first store could
 * come first and find no default keyring. A probe under its own service name, cleared at once.
 * Throws after {@link LOGIN_KEYRING_MS}.
 */
function waitForLoginKeyring(address: string): void {
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, HOME: dir, XDG_DATA_HOME: path.join(dir, 'share') };
  const probe = ['service', 'keydeck-e2e-probe', 'account', 'probe'];
  const deadline = Date.now() + LOGIN_KEYRING_MS;
  // First the bus name, asked without starting anything: a probe sent before the unlocked daemon
  // owns it makes D-Bus start a second daemon (its service file) with no unlocked login keyring,
  // and every store then fails.
  const nameHasOwner = ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'];
  while (!/boolean true/.test(spawnSync('dbus-send', nameHasOwner, { env, encoding: 'utf8', timeout: 10_000 }).stdout ?? '')) {
    if (Date.now() > deadline) throw new Error('the keyring daemon never took its name on the bus');
    spawnSync('sleep', ['0.05']);
  }
  for (;;) {
    const stored = spawnSync('secret-tool', ['store', '--label=probe', ...probe], { env, input: 'probe', encoding: 'utf8', timeout: 10_000 });
    if (stored.status === 0) break;
    if (Date.now() > deadline) throw new Error(`the login keyring never took a secret: ${stored.stderr}`);
    spawnSync('sleep', ['0.2']);
  }
  spawnSync('secret-tool', ['clear', ...probe], { env, timeout: 10_000 });
}
afterEach(() => {
  app?.kill();
  app = undefined;
});
afterAll(() => {
  // The keyring daemon leaves with its bus (and is killed if it did not: a failed run's).
  if (bus) process.kill(bus.pid, 'SIGTERM');
  if (dir) {
    killProcessesOfHome(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The user's environment: a clean one (no key stored) on the private bus with the unlocked keyring. */
function env(): NodeJS.ProcessEnv {
  // Each keychain call is a child process of keydeck's (src/credentials/keychain.ts), limited to
  // 3 s by default: on a busy machine its start alone took longer, and setup then said the keychain
  // did not answer. What a hung keychain does is test/tui/keychain-hung.test.tsx's; here, storing.
  return { ...cleanEnv(path.join(dir, 'user')), DBUS_SESSION_BUS_ADDRESS: bus!.address, HOME: dir, KEYDECK_KEYCHAIN_TIMEOUT_MS: '30000' };
}

/**
 * The secret keydeck stored for `profile` (keychain account `<profile>@<service origin>`, whatever
 * the origin), found with `secret-tool search`; '' when none. Also returns the account it is under.
 */
function lookup(profile: string): string {
  return lookupEntry(profile).secret;
}

/** See {@link lookup}: the secret and its account. */
function lookupEntry(profile: string): { secret: string; account: string } {
  const out = spawnSync('secret-tool', ['search', '--all', '--unlock', 'service', 'keydeck'], {
    env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus!.address },
    encoding: 'utf8',
  });
  // Items come as blocks: "[/org/…]", "label = …", "secret = …", "attribute.account = …", … (attributes on stdout or stderr by version).
  const text = `${out.stdout}\n${out.stderr}`;
  for (const block of text.split(/^\[/m)) {
    const account = /^attribute\.account = (.*)$/m.exec(block)?.[1]?.trim();
    const secret = /^secret = (.*)$/m.exec(block)?.[1]?.trim();
    if (account !== undefined && secret !== undefined && account.startsWith(`${profile}@`)) return { secret, account };
  }
  return { secret: '', account: '' };
}

describe.skipIf(skipReason !== undefined)('setup stores the management key in the OS keychain', () => {
  it('walks setup once, stores the mk_ in the Secret Service, and the next start needs no setup', { timeout: 90_000 }, async () => {
    expect(lookup('sandbox')).toBe('');
    app = startApp({ args: ['--sandbox'], env: env() });
    // The demo account signs in by itself (its demo token); S walks the setup a real account goes through.
    await app.waitFor('demo session token (kept in the data dir)', 30_000);
    app.write('S');
    await app.waitFor('Press enter to use the sandbox’s demo session token', 30_000);
    app.write('\r');
    await app.waitFor('Name the management key');
    app.write('\r');
    await app.waitFor('I have saved it');
    const shown = /mk_[A-Za-z0-9_-]{16,}/.exec(app.screenText())?.[0];
    expect(shown).toBeDefined();
    app.write('y');
    await app.waitFor('setup done: the key is stored in the OS keychain', 30_000);
    await app.waitFor('Standard subscription');
    expect(app.screenText()).toMatch(/mk_\w{8} \(keychain\)/);
    app.write('q');
    expect((await app.exited).exitCode).toBe(0);

    // The key in the keychain is the one shown once; nothing secret in the config or data dirs.
    expect(lookup('sandbox')).toBe(shown);
    // Stored for the embedded sandbox's origin; the next start listens on the same port (`<db>.port`).
    expect(lookupEntry('sandbox').account).toMatch(/^sandbox@http:\/\/127\.0\.0\.1:\d+$/);
    expect(filesWithSecrets(path.join(dir, 'user'), [shown!], [])).toEqual([]);

    // The next start reads it from the keychain: straight to the Keys pane.
    app = startApp({ args: ['--sandbox'], env: env() });
    await app.waitFor('Standard subscription', 30_000);
    expect(app.output()).not.toContain('demo session token');
    expect(app.screenText()).toContain(`${shown!.slice(0, 11)} (keychain)`);
    app.write('q');
    expect((await app.exited).exitCode).toBe(0);
  });
});
