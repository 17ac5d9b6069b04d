/**
 * The real OS keychain: the built CLI inside `dbus-run-session` with gnome-keyring-daemon, against
 * the sandbox. Login stores the management key (found with `secret-tool`), status reports
 * `keychain`, logout removes it; a D-Bus session without a Secret Service, a locked keyring and a
 * hung D-Bus each give their own sentence. Where dbus-run-session / gnome-keyring-daemon /
 * secret-tool are missing those tests are skipped with the reason printed (never passed silently).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { cliPath, filesWithSecrets, hasCommand, killProcessesOfHome, makeTempHome, managementKeys, newSandboxUser, runCli, type TempHome } from './harness.js';

const DRIVER = fileURLToPath(new URL('./fixtures/in-session.mjs', import.meta.url));

const missingForDbus = ['dbus-run-session', 'dbus-daemon'].filter((c) => !hasCommand(c));
const missingForKeyring = [...missingForDbus, ...['gnome-keyring-daemon', 'secret-tool'].filter((c) => !hasCommand(c))];
const noDbus = missingForDbus.length > 0 ? `D-Bus keychain tests skipped: ${missingForDbus.join(', ')} not found (apt install dbus)` : undefined;
const noKeyring = missingForKeyring.length > 0 ? `real-keychain tests skipped: ${missingForKeyring.join(', ')} not found (apt install dbus gnome-keyring libsecret-tools libsecret-1-0)` : undefined;
if (noDbus) console.warn(noDbus);
if (noKeyring && noKeyring !== noDbus) console.warn(noKeyring);

interface Step {
  cmd: string[];
  input?: string;
  env?: Record<string, string>;
}
interface StepResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

let sandbox: RunningSandbox;
let home: TempHome;
let session: string;
let credentialsFile: string;
const seenSecrets: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  home = makeTempHome();
  session = await newSandboxUser(sandbox.url);
  credentialsFile = path.join(home.configDir, 'credentials.json');
  seenSecrets.length = 0;
});
afterEach(() => {
  // The keyring daemon of a session that failed or timed out would outlive it.
  killProcessesOfHome(home.home);
  expect(filesWithSecrets(home.configDir, [session, ...seenSecrets], [credentialsFile])).toEqual([]);
  home.remove();
});

function keydeck(...args: string[]): string[] {
  return [process.execPath, cliPath(), ...args];
}

/**
 * How long one D-Bus session may take before it is killed. Its steps are processes run one after
 * the other (the keyring daemon, then each keydeck command, ~1-3 s each on a loaded 2-core
 * machine: seven of them took past 20 s at load 20).
 */
const SESSION_MS = 60_000;

/** The budget of a test that runs `sessions` D-Bus sessions: theirs, and a margin for its own requests. */
function sessionsBudget(sessions = 1): { timeout: number } {
  return { timeout: sessions * SESSION_MS + 10_000 };
}

/** Runs `steps` inside one D-Bus session (with `keyring` set up first) and returns their results. */
function inSession(plan: { keyring: 'unlock' | 'start' | 'none'; steps: Step[] }, options: { busConfig?: string } = {}): Promise<StepResult[]> {
  return new Promise((resolve, reject) => {
    const args = [...(options.busConfig ? [`--config-file=${options.busConfig}`] : []), '--', process.execPath, DRIVER, JSON.stringify(plan)];
    const child = spawn('dbus-run-session', args, { env: home.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), SESSION_MS);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('@@RESULT@@'));
      if (!line) return reject(new Error(`no result from the D-Bus session\nstdout: ${out}\nstderr: ${err}`));
      resolve((JSON.parse(line.slice('@@RESULT@@'.length)) as { results: StepResult[] }).results);
    });
  });
}

/** A session bus with no service directories: nothing provides org.freedesktop.secrets. */
function bareBusConfig(): string {
  const dir = path.join(home.home, 'bus');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'bare.conf');
  writeFileSync(
    file,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:tmpdir=${dir}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>\n`,
  );
  return file;
}

/** secret-tool's lookup of the default profile's key for the sandbox (account `<profile>@<origin>`). */
const lookup = () => ['secret-tool', 'lookup', 'service', 'keydeck', 'account', `default@${new URL(sandbox.url).origin}`];

describe('the real keychain (gnome-keyring in dbus-run-session)', () => {
  it.skipIf(noKeyring !== undefined)('login stores the management key in the keychain, status reports `keychain`, doctor passes, logout removes it', sessionsBudget(), async () => {
    // A stale plaintext copy from an earlier --insecure-storage login must go once the keychain holds the key.
    mkdirSync(home.configDir, { recursive: true });
    writeFileSync(credentialsFile, `${JSON.stringify({ default: 'mk_StaleStaleStaleStale0000' })}\n`, { mode: 0o600 });

    const [login, found, status, doctor, logout, gone, after] = await inSession({
      keyring: 'unlock',
      steps: [
        { cmd: keydeck('auth', 'login', '--base-url', sandbox.url, '--token-stdin'), input: session },
        { cmd: lookup() },
        { cmd: keydeck('auth', 'status', '--json') },
        { cmd: keydeck('doctor') },
        { cmd: keydeck('auth', 'logout') },
        { cmd: lookup() },
        { cmd: keydeck('auth', 'status', '--json') },
      ],
    });
    expect(login!.code, login!.stderr).toBe(0);
    expect(login!.stdout).toContain(`Stored in the Secret Service (libsecret) (service "keydeck", account "default@${new URL(sandbox.url).origin}")`);

    const key = found!.stdout.trim();
    seenSecrets.push(key);
    expect(key).toMatch(/^mk_[A-Za-z0-9]{20,}$/);
    const [onService] = await managementKeys(sandbox.url, session);
    expect(key.startsWith(onService!.keyPrefix)).toBe(true);
    expect(login!.stdout).toContain(`${onService!.keyPrefix}…`);
    expect(login!.stdout + login!.stderr).not.toContain(key);
    expect(existsSync(credentialsFile)).toBe(false);

    expect(status!.code, status!.stderr).toBe(0);
    expect(JSON.parse(status!.stdout)).toMatchObject({ profile: 'default', baseUrl: sandbox.url, store: 'keychain', keyPrefix: onService!.keyPrefix, accepted: true });
    expect(status!.stderr).toBe('');

    expect(doctor!.code, doctor!.stdout).toBe(0);
    expect(doctor!.stdout).toMatch(/^ok +keychain +Secret Service \(libsecret\) answers \(read and write probe: \d+ ms\)$/m);
    expect(doctor!.stdout).toMatch(/^ok +key +profile "default": management key mk_\w{8}… from the Secret Service/m);
    expect(doctor!.stdout).not.toMatch(/^fail/m);
    console.info(`keychain timings: login ${login!.ms} ms, status ${status!.ms} ms, doctor ${doctor!.ms} ms; ${/probe: \d+ ms/.exec(doctor!.stdout)?.[0]}`);

    expect(logout!.code, logout!.stderr).toBe(0);
    expect(logout!.stdout).toContain('from the keychain');
    expect(gone!.stdout.trim()).toBe('');
    expect(after!.code).toBe(1);
    expect(JSON.parse(after!.stdout)).toMatchObject({ store: null, accepted: false });
    const config = readFileSync(path.join(home.configDir, 'config.json'), 'utf8');
    expect(config).not.toContain('mk_');
  });

  it.skipIf(noKeyring !== undefined)('logout --revoke deletes the key on the service and in the keychain', sessionsBudget(), async () => {
    const [login, logout, gone] = await inSession({
      keyring: 'unlock',
      steps: [{ cmd: keydeck('auth', 'login', '--base-url', sandbox.url, '--token-stdin', '--name', 'laptop'), input: session }, { cmd: keydeck('auth', 'logout', '--revoke') }, { cmd: lookup() }],
    });
    expect(login!.code, login!.stderr).toBe(0);
    expect(logout!.code, logout!.stderr).toBe(0);
    expect(logout!.stdout).toMatch(/Revoked the management key "laptop"/);
    expect(gone!.stdout.trim()).toBe('');
    expect(await managementKeys(sandbox.url, session)).toEqual([]);
  });

  it.skipIf(noKeyring !== undefined)('mgmt-keys rotate replaces the key in the keychain: the new one stored and accepted, the old one deleted', sessionsBudget(), async () => {
    const [login, before, rotate, after, status] = await inSession({
      keyring: 'unlock',
      steps: [
        { cmd: keydeck('auth', 'login', '--base-url', sandbox.url, '--token-stdin', '--name', 'cron'), input: session },
        { cmd: lookup() },
        { cmd: keydeck('mgmt-keys', 'rotate') },
        { cmd: lookup() },
        { cmd: keydeck('auth', 'status', '--json') },
      ],
    });
    expect(login!.code, login!.stderr).toBe(0);
    const oldKey = before!.stdout.trim();
    const newKey = after!.stdout.trim();
    seenSecrets.push(oldKey, newKey);
    expect(rotate!.code, rotate!.stderr).toBe(0);
    expect(rotate!.stdout).toMatch(/^Stored it in the keychain \(account "default@/m);
    expect(newKey).toMatch(/^mk_[A-Za-z0-9]{20,}$/);
    expect(newKey).not.toBe(oldKey);
    expect(rotate!.stdout + rotate!.stderr).not.toContain(newKey);
    expect(JSON.parse(status!.stdout)).toMatchObject({ store: 'keychain', keyPrefix: newKey.slice(0, 11), keyName: 'cron-r2', accepted: true });
    expect((await managementKeys(sandbox.url, session)).map((k) => k.name)).toEqual(['cron-r2']);
  });

  it.skipIf(noKeyring !== undefined)('a locked keyring: doctor and login say so, nothing is created or written', sessionsBudget(2), async () => {
    await inSession({ keyring: 'unlock', steps: [] }); // creates the login keyring with a password
    const [doctor, login] = await inSession({
      keyring: 'start', // started again, not unlocked
      steps: [{ cmd: keydeck('doctor', '--base-url', sandbox.url) }, { cmd: keydeck('auth', 'login', '--base-url', sandbox.url, '--token-stdin'), input: session }],
    });
    expect(doctor!.code).toBe(1);
    expect(doctor!.stdout).toMatch(/^fail +keychain +Secret Service \(libsecret\): the keyring is locked: unlock it/m);
    expect(login!.code).toBe(1);
    expect(login!.stderr).toMatch(/keyring is locked.*--insecure-storage.*KEYDECK_TOKEN/);
    expect(await managementKeys(sandbox.url, session)).toEqual([]);
    expect(existsSync(home.configDir)).toBe(false);
  });
});

describe('a D-Bus session without a Secret Service', () => {
  it.skipIf(noDbus !== undefined)('doctor names the missing org.freedesktop.secrets; login refuses, naming --insecure-storage', sessionsBudget(), async () => {
    const [doctor, login, insecure] = await inSession(
      {
        keyring: 'none',
        steps: [
          { cmd: keydeck('doctor', '--base-url', sandbox.url) },
          { cmd: keydeck('auth', 'login', '--base-url', sandbox.url, '--token-stdin'), input: session },
          { cmd: keydeck('--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'), input: session },
        ],
      },
      { busConfig: bareBusConfig() },
    );
    expect(doctor!.code).toBe(1);
    expect(doctor!.stdout).toMatch(/^fail +keychain +.*no Secret Service runs on the D-Bus session \(org\.freedesktop\.secrets is not provided\)/m);
    expect(login!.code).toBe(1);
    expect(login!.stderr).toMatch(/no Secret Service.*--insecure-storage.*KEYDECK_TOKEN/);
    expect(insecure!.code, insecure!.stderr).toBe(0);
    expect(insecure!.stdout).toContain('Stored in plaintext');
  });
});

describe('a hung D-Bus', () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  it('the keychain call times out (KEYDECK_KEYCHAIN_TIMEOUT_MS) and keydeck goes on: doctor reports it, --insecure-storage login still works', async () => {
    const socketPath = path.join(home.home, 'hung-bus.sock');
    server = createServer((s) => void sockets.push(s)); // accepts, never answers
    await new Promise<void>((r) => server!.listen(socketPath, r));
    const env = home.env({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${socketPath}`, KEYDECK_KEYCHAIN_TIMEOUT_MS: '700' });

    const doctor = await runCli(['doctor', '--base-url', sandbox.url], { env, timeoutMs: 20_000 });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^fail +keychain +Secret Service \(libsecret\): the Secret Service \(libsecret\) did not answer within 700 ms/m);
    expect(doctor.stdout).toMatch(/^ok +service/m);
    expect(doctor.ms).toBeLessThan(10_000); // one 700 ms timeout, then the keychain counts as gone

    const login = await runCli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { env, input: session, timeoutMs: 20_000 });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain('Stored in plaintext');
    expect(login.ms).toBeLessThan(10_000);
  });

  it('auth logout that cannot reach the keychain says so and exits non-zero, never "no key was stored"', async () => {
    const socketPath = path.join(home.home, 'hung-bus.sock');
    server = createServer((s) => void sockets.push(s)); // accepts, never answers
    await new Promise<void>((r) => server!.listen(socketPath, r));
    const env = home.env({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${socketPath}`, KEYDECK_KEYCHAIN_TIMEOUT_MS: '700' });
    const logout = await runCli(['--base-url', sandbox.url, 'auth', 'logout'], { env, timeoutMs: 20_000 });
    expect(logout.code).toBe(1);
    expect(logout.stderr).toMatch(/^keydeck: could not reach the keychain, so the key of profile "default" stored there \(if any\) is still there: .*did not answer within 700 ms/m);
    expect(logout.stdout).not.toContain('No key was stored');
  });
});
