/**
 * Secrets scan: one full session of the built app (`node dist/cli.js --sandbox
 * --insecure-storage`) in a pseudo-terminal, then every byte keydeck wrote is searched for the
 * full key values.
 *
 * The session: a fresh sandbox user (its session token made and funded with $25 before the
 * app starts; the sandbox keeps session tokens as SHA-256 hashes only) is pasted into the
 * masked token field; setup creates the management key MK_USED, shows it once (copied with `c`,
 * acknowledged with `y`), and stores it in the plaintext file (no keychain: D-Bus is unset, and
 * `--insecure-storage` asked for the file, the path that writes most to disk). Then the Keys
 * pane creates the credit key SK (shown, copied, acknowledged), renames it, deactivates and
 * reactivates it; the Management keys pane creates MK_EXTRA (shown, copied, acknowledged, NOT
 * made the key in use); a USDC top-up is started (the top-up journal is written to the data
 * dir); `q` quits.
 *
 * Every process writes under one temp root: KEYDECK_CONFIG_DIR, KEYDECK_DATA_DIR,
 * KEYDECK_SANDBOX_DB (with its -wal/-shm), and HOME, XDG_*_HOME and TMPDIR, so a write to a
 * default location (a log, a cache) is scanned too. Every file under the root is read as bytes
 * and searched for each value in UTF-8, UTF-16LE and base64.
 *
 * Where each value may legitimately be:
 * - MK_USED: in `<config>/credentials.json` only (the user chose the plaintext file; the file
 *   must be mode 0600), and on screen / in the pty stream until its acknowledgement.
 * - SK, MK_EXTRA: on screen and in the pty stream (including the OSC 52 copy, base64) only
 *   between their reveal and their acknowledgement; in no file at all.
 * - SESSION (the pasted session token): nowhere, ever: not in a file, not even in the sandbox
 *   database, and not in the terminal output (the field is masked).
 * - DEMO (the embedded sandbox's demo token, never used here): only in the sandbox database,
 *   where the sandbox keeps it by design (src/sandbox/db.ts); in no config/data file and never
 *   in the terminal output.
 * The terminal is checked as the raw byte stream after each acknowledgement and as the final
 * xterm state (normal buffer with its scrollback, and the alternate buffer).
 *
 * Not a test that cannot fail: each scanner is shown to find a value where it must be (the
 * values are read off the screen and seen in the raw stream before acknowledgement, the OSC 52
 * copy is seen in base64 before acknowledgement, MK_USED is found in credentials.json).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type PtyApp } from '../e2e/pty.js';
import { startTestSandbox } from '../sandbox/helpers.js';
import { filesUnder, foundForms, terminalText } from './scan.js';

let app: PtyApp | undefined;
let root: string | undefined;
afterEach(() => {
  app?.kill();
  app = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A full key value as the sandbox makes them: prefix + 40 base62 characters (the `sk-`/`mk-` form of the newer pages too). */
const keyPattern = (prefix: 'sk_' | 'mk_') => new RegExp(`${prefix.slice(0, 2)}[_-][0-9A-Za-z]{40}(?![0-9A-Za-z])`);
const COPY_OUTCOME = /copied to the clipboard|sent to the terminal’s clipboard|copy failed/;

describe('secrets scan of a full keydeck session', () => {
  it('leaves no full key or session token on disk or in the terminal after acknowledgement', { timeout: 90_000 }, async () => {
    root = mkdtempSync(path.join(tmpdir(), 'keydeck-secrets-'));
    const dirs = {
      config: path.join(root, 'config'),
      data: path.join(root, 'data'),
      sandbox: path.join(root, 'sandbox'),
      home: path.join(root, 'home'),
      tmp: path.join(root, 'tmp'),
    };
    for (const d of [dirs.sandbox, dirs.home, dirs.tmp]) mkdirSync(d, { recursive: true });
    const dbPath = path.join(dirs.sandbox, 'sandbox.db');

    // A fresh, funded user in the database the app's embedded sandbox then opens.
    const pre = await startTestSandbox({ dbPath });
    const DEMO = pre.token;
    const SESSION = await pre.newUser();
    await pre.topUp(SESSION, 25);
    await pre.close();

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      KEYDECK_CONFIG_DIR: dirs.config,
      KEYDECK_DATA_DIR: dirs.data,
      KEYDECK_SANDBOX_DB: dbPath,
      HOME: dirs.home,
      XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
      XDG_DATA_HOME: path.join(dirs.home, '.local/share'),
      XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
      XDG_STATE_HOME: path.join(dirs.home, '.local/state'),
      TMPDIR: dirs.tmp,
      TERM: 'xterm-256color',
    };
    // No keychain (file store), no system clipboard (the copy goes through OSC 52 only), not CI.
    for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'CI', 'KEYDECK_TOKEN', 'KEYDECK_PROFILE', 'KEYDECK_BASE_URL']) delete env[name];
    const columns = 100;
    const rows = 30;
    app = startApp({ args: ['--sandbox', '--insecure-storage'], env, columns, rows });
    const a = app;

    /** Reads the full key off the screen, copies it (`c`), acknowledges it (`y`); returns it and the stream offset of the acknowledgement. */
    const revealCopyAck = async (prefix: 'sk_' | 'mk_') => {
      await a.waitFor('I have saved it');
      await a.waitFor(keyPattern(prefix));
      const value = keyPattern(prefix).exec(a.screenText())![0];
      const copiesBefore = a.output().split('\x1b]52;').length;
      a.write('c');
      await a.waitFor(COPY_OUTCOME);
      const ackAt = a.output().length;
      // The capture worked: the value was on screen, in the raw stream, and copied (OSC 52, base64).
      expect(a.output().split('\x1b]52;').length).toBe(copiesBefore + 1);
      expect(foundForms(Buffer.from(a.output().slice(0, ackAt)), value)).toEqual(['utf8', 'base64']);
      a.write('y');
      // The dialog closes and the value is gone from the screen at once.
      await a.waitFor(/^(?![\s\S]*I have saved it)/);
      expect(a.screenText()).not.toContain(value);
      return { value, ackAt };
    };

    // Setup (the demo account signs in by itself; S walks the setup): paste the session token,
    // create and store the management key.
    await a.waitFor('demo session token (kept in the data dir)', 20_000);
    a.write('S');
    await a.waitFor('Press enter to use the sandbox’s demo session token');
    a.write(SESSION);
    await a.waitFor(/token: \*{20,}/);
    a.write('\r');
    // No keychain here: where the key will go is chosen before it is created.
    await a.waitFor('Where to keep the key');
    a.write('1');
    await a.waitFor('Name the management key');
    a.write('\r');
    const mkUsed = await revealCopyAck('mk_');
    await a.waitFor('$25.00 left');
    await a.waitFor('stored in plaintext');

    // Keys pane: create a credit key, then rename, deactivate and reactivate it.
    a.write('n');
    await a.waitFor('New credit key');
    a.write('\r');
    // Shown once here (enter): test/secrets/delivery.test.ts scans the paths with a destination.
    await a.waitFor('Where should the new key');
    a.write('\r');
    const sk = await revealCopyAck('sk_');
    await a.waitFor('the full key is gone from the screen');
    // The list reloads after the dialog: `e` renames the selected row, so wait for the new key's.
    await a.waitFor(/▶ credit-/);
    a.write('e');
    await a.waitFor('enter saves');
    a.write('-renamed');
    await a.waitFor('-renamed');
    a.write('\r');
    await a.waitFor(/renamed ".*" to ".*-renamed"/);
    // The list reloads from the service: act on the row once it carries the new name.
    await a.waitFor(/│ ▶ \S+-renamed\s*│/);
    a.write(' ');
    await a.waitFor(/Deactivate ".*-renamed"\?/);
    a.write('\t');
    await a.waitFor(/\[ ?Deactivate ?\]|▶ ?Deactivate|> ?Deactivate/);
    a.write('\r');
    await a.waitFor(/deactivated ".*-renamed"/);
    // Act on the row once the list has been read back (inactive), not on the stale one.
    await a.waitFor(/│ ▶ \S+-renamed\s*│.*○ inactive/);
    a.write(' ');
    await a.waitFor(/reactivated ".*-renamed"/);

    // Management keys pane: create one more key, not made the key in use.
    a.write('2');
    await a.waitFor('◆ = the key keydeck is using');
    a.write('n');
    await a.waitFor('New management key');
    a.write('-extra');
    await a.waitFor('-extra');
    a.write('\r');
    const mkExtra = await revealCopyAck('mk_');
    await a.waitFor('the full key is gone from the screen');
    await a.waitFor('-extra');

    // Billing: start a USDC top-up (writes the top-up journal in the data dir), leave it open.
    a.write('3');
    await a.waitFor('t top up');
    a.write('t');
    await a.waitFor('amount USD');
    a.write('25');
    await a.waitFor('amount USD: 25');
    a.write('\r');
    await a.waitFor('USDC');
    a.write('u'); // USDC on Base (selected), then enter goes on
    await a.waitFor(/▶ u USDC on Base/);
    a.write('\r');
    await a.waitFor(/0x[0-9a-fA-F]{40}/);
    a.write('\x1b');
    await a.waitFor('t top up');

    a.write('q');
    const { exitCode } = await a.exited;
    expect(exitCode).toBe(0);

    expect(new Set([mkUsed.value, sk.value, mkExtra.value, SESSION, DEMO]).size).toBe(5);

    // ---- The terminal.
    const out = a.output();
    const outBytes = Buffer.from(out);
    expect(foundForms(outBytes, SESSION), 'session token in the terminal output').toEqual([]);
    expect(foundForms(outBytes, DEMO), 'demo token in the terminal output').toEqual([]);
    for (const [name, key] of [
      ['MK_USED', mkUsed],
      ['SK', sk],
      ['MK_EXTRA', mkExtra],
    ] as const) {
      expect(foundForms(Buffer.from(out.slice(key.ackAt)), key.value), `${name} in the pty stream after its acknowledgement`).toEqual([]);
    }
    const finalTerminal = await terminalText(out, columns, rows);
    // The dump finds a value that is on screen: the state just before SK's acknowledgement holds it.
    expect(await terminalText(out.slice(0, sk.ackAt), columns, rows)).toContain(sk.value);
    for (const value of [mkUsed.value, sk.value, mkExtra.value, SESSION, DEMO]) {
      expect(finalTerminal.includes(value), `${value.slice(0, 3)}… in the final screen or scrollback`).toBe(false);
    }

    // ---- Every file under the root.
    const files = filesUnder(root);
    const credentials = path.join(dirs.config, 'credentials.json');
    expect(files).toContain(credentials);
    expect(files).toContain(dbPath);
    expect(files.some((f) => f.startsWith(dirs.data + path.sep))).toBe(true);
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    const leaks: string[] = [];
    for (const file of files) {
      const bytes = readFileSync(file);
      const rel = path.relative(root, file);
      const allowed = (name: string) => (name === 'MK_USED' && file === credentials) || (name === 'DEMO' && path.dirname(file) === dirs.sandbox);
      for (const [name, value] of [
        ['MK_USED', mkUsed.value],
        ['SK', sk.value],
        ['MK_EXTRA', mkExtra.value],
        ['SESSION', SESSION],
        ['DEMO', DEMO],
      ] as const) {
        const forms = foundForms(bytes, value);
        if (forms.length > 0 && !allowed(name)) leaks.push(`${name} in ${rel} (${forms.join(', ')})`);
      }
    }
    expect(leaks).toEqual([]);
    // The file scan finds what it must: the stored key is in credentials.json, as the user chose.
    expect(foundForms(readFileSync(credentials), mkUsed.value)).toEqual(['utf8']);
  });
});
