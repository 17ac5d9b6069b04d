/**
 * Secrets scan of key delivery and rotation: `keys create` with `--to-file` and
 * `--to-command`, `keys rotate` with both, a create whose command fails (not a terminal), and the
 * TUI sending a new key into a dotenv file, all under one temp root (config, data, HOME, TMPDIR,
 * the sandbox's database, the application's directory). A `gh` stand-in stores each stdin it gets
 * (gh.secret.N), and its argv and environment (gh.argv, gh.env).
 *
 * Where each key may be: in the dotenv file that holds it now, and in the gh.secret file of the
 * command that received it (a key whose creation was undone: nowhere); nowhere else: not in the command's argv or environment, not in any
 * other file (a log, the history, the rotation record, a temp file), not in the terminal's output
 * of any run where a destination was chosen (raw stream and final screen with scrollback, in
 * UTF-8, UTF-16 and base64), not on stderr. The session token (`KEYDECK_TOKEN`) is in no file and
 * in no child's environment. Each scanner is shown to find what it must (the keys are read from
 * the files where they belong).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../credentials/harness.js';
import { startApp } from '../e2e/pty.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { filesUnder, foundForms, terminalText } from './scan.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-secrets-delivery-'));
  mkdirSync(path.join(root, 'sandbox'));
  sb = await startTestSandbox({ dbPath: path.join(root, 'sandbox', 'sandbox.db') });
});
afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

const KEY = /sk[_-][0-9A-Za-z]{40}/;

describe('secrets scan of delivery and rotation', () => {
  it('leaves each key only where it was sent', { timeout: 90_000 }, async () => {
    const dirs = {
      config: path.join(root, 'config'),
      data: path.join(root, 'data'),
      home: path.join(root, 'home'),
      tmp: path.join(root, 'tmp'),
      app: path.join(root, 'app'),
      bin: path.join(root, 'bin'),
    };
    for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
    writeFileSync(
      path.join(dirs.bin, 'gh'),
      `#!/bin/sh\nn=$(ls "${dirs.app}" | grep -c '^gh.secret')\ncat > "${dirs.app}/gh.secret.$n"\nprintf '%s\\n' "$0" "$@" >> "${dirs.app}/gh.argv"\nenv >> "${dirs.app}/gh.env"\necho "✓ Set Actions secret $3"\n`,
      { mode: 0o755 },
    );
    writeFileSync(path.join(dirs.bin, 'gh-fail'), '#!/bin/sh\ncat > /dev/null\necho "HTTP 401: Bad credentials" >&2\nexit 1\n', { mode: 0o755 });
    const SESSION = await sb.fundedUser(25);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: `${dirs.bin}:${process.env.PATH}`,
      KEYDECK_CONFIG_DIR: dirs.config,
      KEYDECK_DATA_DIR: dirs.data,
      KEYDECK_BASE_URL: sb.url,
      KEYDECK_TOKEN: SESSION,
      HOME: dirs.home,
      XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
      XDG_DATA_HOME: path.join(dirs.home, '.local/share'),
      XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
      XDG_STATE_HOME: path.join(dirs.home, '.local/state'),
      TMPDIR: dirs.tmp,
      TERM: 'xterm-256color',
    };
    for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'CI', 'KEYDECK_PROFILE']) delete env[name];
    const dotenv = path.join(dirs.app, '.env');
    const terminals: Array<{ what: string; out: string }> = [];
    const inPty = async (what: string, args: string[]) => {
      const app = startApp({ args, env, columns: 120, rows: 30 });
      const { exitCode } = await app.exited;
      terminals.push({ what, out: app.output() });
      expect(exitCode, `${what}\n${app.screenText()}`).toBe(0);
    };

    // 1. create with both destinations; 2. rotate with both (in a terminal: what a user would see).
    await inPty('keys create', ['keys', 'create', '--name', 'web', '--to-file', dotenv, '--to-command', 'gh secret set OPENAI_API_KEY']);
    await inPty('keys rotate', ['keys', 'rotate', 'web', '--to-file', dotenv, '--to-command', 'gh secret set OPENAI_API_KEY', '--old', 'deactivate', '--yes']);
    // 3. a command that fails after creation, stdout not a terminal: the key is not printed; the
    // creation stays recorded, the file's previous content kept beside it (0600) until it is
    // undone: then the file is as before, the key deleted, and the copy gone.
    const failed = await runCli(['keys', 'create', '--name', 'bad', '--to-file', `${dotenv}:BAD_KEY`, '--to-command', 'gh-fail'], { env });
    expect(failed.code).toBe(1);
    terminals.push({ what: 'keys create (failed, piped)', out: failed.stdout + failed.stderr });
    const bad = new RegExp(`^BAD_KEY=(${KEY.source})$`, 'm').exec(readFileSync(dotenv, 'utf8'))![1]!;
    const kept = readdirSync(dirs.app).filter((f) => f.includes('.keydeck-before-'));
    expect(kept.map((f) => statSync(path.join(dirs.app, f)).mode & 0o777)).toEqual([0o600]);
    const undone = await runCli(['keys', 'create', '--undo', 'bad', '--yes'], { env });
    expect(undone.code, undone.stderr).toBe(0);
    terminals.push({ what: 'keys create --undo', out: undone.stdout + undone.stderr });
    expect(readdirSync(dirs.app).filter((f) => f.includes('.keydeck-before-'))).toEqual([]);
    // 4. the TUI sends a new key into the file.
    const tui = startApp({ args: [], env, columns: 100, rows: 30 });
    await tui.waitFor('n new');
    tui.write('n');
    await tui.waitFor('New credit key');
    tui.write('\r');
    await tui.waitFor('Where should the new key');
    tui.write('f');
    await tui.waitFor('dotenv file:');
    tui.write(`${dotenv}:TUI_KEY`);
    await tui.waitFor('TUI_KEY');
    tui.write('\r');
    await tui.waitFor('created and delivered');
    tui.write('\r');
    await tui.waitFor('n new');
    tui.write('q');
    expect((await tui.exited).exitCode).toBe(0);
    terminals.push({ what: 'TUI', out: tui.output() });

    // The keys, read where they belong.
    const secrets = readdirSync(dirs.app)
      .filter((f) => f.startsWith('gh.secret.'))
      .sort();
    expect(secrets).toEqual(['gh.secret.0', 'gh.secret.1']);
    const viaGh = secrets.map((f) => readFileSync(path.join(dirs.app, f), 'utf8'));
    const file = readFileSync(dotenv, 'utf8');
    const inFile = (v: string) => new RegExp(`^${v}=(${KEY.source})$`, 'm').exec(file)?.[1];
    expect(inFile('BAD_KEY')).toBeUndefined();
    const keys = { WEB: viaGh[0]!, WEB_R2: viaGh[1]!, BAD: bad, TUI: inFile('TUI_KEY')! };
    for (const [name, value] of Object.entries(keys)) expect(value, name).toMatch(new RegExp(`^${KEY.source}$`));
    expect(new Set(Object.values(keys)).size).toBe(4);
    expect(inFile('KEYDECK_API_KEY')).toBe(keys.WEB_R2);
    const allowed: Record<string, string[]> = {
      WEB: [path.join(dirs.app, 'gh.secret.0')],
      WEB_R2: [path.join(dirs.app, 'gh.secret.1'), dotenv],
      BAD: [],
      TUI: [dotenv],
    };

    // Every terminal output and stderr: no key in any form, raw or on the final screen.
    for (const t of terminals) {
      const screen = await terminalText(t.out, 120, 30);
      for (const [name, value] of Object.entries(keys)) {
        expect(foundForms(Buffer.from(t.out), value), `${name} in the output of ${t.what}`).toEqual([]);
        expect(screen.includes(value), `${name} on the screen of ${t.what}`).toBe(false);
      }
      expect(foundForms(Buffer.from(t.out), SESSION), `the session token in the output of ${t.what}`).toEqual([]);
    }
    expect(terminals[1]!.out).toMatch(/Deactivated the old key "web \(rotated \d{4}-\d\d-\d\d\)"/);

    // Every file under the root (the command's argv and environment included).
    const leaks: string[] = [];
    for (const f of filesUnder(root)) {
      const bytes = readFileSync(f);
      for (const [name, value] of Object.entries(keys)) {
        const forms = foundForms(bytes, value);
        if (forms.length > 0 && !allowed[name]!.includes(f)) leaks.push(`${name} in ${path.relative(root, f)} (${forms.join(', ')})`);
      }
      if (foundForms(bytes, SESSION).length > 0) leaks.push(`the session token in ${path.relative(root, f)}`);
    }
    expect(leaks).toEqual([]);
    // The scan finds what it must: each key where it was sent, and the stand-in's argv and environment were written.
    expect(foundForms(readFileSync(dotenv), keys.TUI)).toEqual(['utf8']);
    expect(readFileSync(path.join(dirs.app, 'gh.argv'), 'utf8')).toContain('OPENAI_API_KEY');
    expect(readFileSync(path.join(dirs.app, 'gh.env'), 'utf8')).toContain(`PATH=${dirs.bin}`);
  });
});
