/**
 * The demo that just opens (the built app in a pseudo-terminal, no keychain): `keydeck --sandbox`
 * opens the Keys pane of the demo account with no setup screen and no keychain warning, the first
 * time and every time, also after `keydeck sandbox` ran on another port, at the same origin; a
 * sandbox reached with `--base-url` (not one keydeck runs itself) still starts with the setup; and
 * `--sandbox --profile nosuch` says "no such profile".
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../sandbox/helpers.js';
import { ROOT } from './pty.js';
import { startCli } from '../commands/scripted.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();

/** The origin the header names (`127.0.0.1:PORT`). */
const hostOf = (screen: string) => /profile sandbox · (127\.0\.0\.1:\d+)/.exec(screen)?.[1];

describe('keydeck --sandbox with no keychain', () => {
  it('opens the demo account with no setup, the first time and every time, also after keydeck sandbox ran on another port', { timeout: 120_000 }, async () => {
    const env = cleanEnv(rig.tempDir('keydeck-e2e-demo-'));
    const first = rig.start({ args: ['--sandbox'], env, columns: 80, rows: 24 });
    await openDemoAccount(first);
    const screen = first.screenText();
    expect(screen).toContain('demo session token (kept in the data dir)');
    expect(first.output()).not.toMatch(/Your token|keychain is unavailable|Where to keep the key/);
    const origin = hostOf(screen);
    expect(origin).toBeDefined();
    first.write('q');
    expect((await first.exited).exitCode).toBe(0);

    // keydeck sandbox on the same database, on another port: the demo account stays where it was.
    const foreground = startCli(['sandbox', '--port', '0'], env);
    try {
      await foreground.waitForStdout(/session token: /);
      await foreground.waitForStderr(/keydeck --sandbox finds this demo account at http:\/\/127\.0\.0\.1:\d+/);
      expect(foreground.stdout()).not.toContain(origin!);
      expect(foreground.stderr()).toContain(`http://${origin!}`);
      const second = rig.start({ args: ['--sandbox'], env, columns: 100, rows: 30 });
      await openDemoAccount(second);
      expect(hostOf(second.screenText())).toBe(origin);
      expect(second.output()).not.toContain('Your token');
      second.write('q');
      expect((await second.exited).exitCode).toBe(0);
    } finally {
      foreground.kill('SIGINT');
      await foreground.exited;
    }

    // And after it stopped: the same origin, still no setup.
    const third = rig.start({ args: ['--sandbox'], env, columns: 80, rows: 24 });
    await openDemoAccount(third);
    expect(hostOf(third.screenText())).toBe(origin);
    expect(JSON.parse(readFileSync(`${env.KEYDECK_SANDBOX_DB}.json`, 'utf8')).url).toBe(`http://${origin!}`);
  });

  it('only the sandbox keydeck runs itself signs in by itself: one reached with --base-url starts with the setup', { timeout: 60_000 }, async () => {
    const sandbox = await startTestSandbox();
    try {
      const app = rig.start({ args: ['--base-url', sandbox.url], env: cleanEnv(rig.tempDir('keydeck-e2e-demo-url-')), columns: 100, rows: 30 });
      await app.waitFor('Your token', 20_000);
      expect(app.screenText()).not.toContain('batch-jobs');
      expect(app.screenText()).not.toContain('Press enter to use the sandbox’s demo session token');
    } finally {
      await sandbox.close();
    }
  });

  it('--sandbox --profile naming no profile is refused before anything is drawn (exit 2)', { timeout: 60_000 }, async () => {
    const env = cleanEnv(rig.tempDir('keydeck-e2e-demo-profile-'));
    const app = rig.start({ args: ['--sandbox', '--profile', 'nosuch'], env, columns: 200, rows: 24 });
    expect((await app.exited).exitCode).toBe(2);
    expect(app.screenText()).toContain('keydeck: no such profile "nosuch": `keydeck profile list` lists the profiles');
    expect(path.basename(env.KEYDECK_SANDBOX_DB!)).toBe('sandbox.db');
  });
});

describe('in a clone', () => {
  it('bin/keydeck runs the clone’s keydeck; npm start without it on PATH ends saying how to put it there', { timeout: 60_000 }, async () => {
    const bin = path.join(ROOT, 'bin', 'keydeck');
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    // The clone's own dist/ (not the suites' snapshot): the TUI on the demo account, then q.
    const env = cleanEnv(rig.tempDir('keydeck-e2e-clone-'));
    env.PATH = path.dirname(process.execPath);
    const app = rig.start({ command: [process.execPath, path.join(ROOT, 'dist', 'cli.js'), '--sandbox'], env, columns: 200, rows: 24 });
    await openDemoAccount(app);
    app.write('q');
    expect((await app.exited).exitCode).toBe(0);
    expect(app.output()).toContain(`keydeck: in this clone, the commands keydeck names (keydeck keys list, …) run as written once its bin/ is on PATH: export PATH="${path.join(ROOT, 'bin')}:$PATH"`);
    // With it on PATH, nothing more is said.
    const again = rig.start({ command: [process.execPath, path.join(ROOT, 'dist', 'cli.js'), '--sandbox'], env: { ...env, PATH: `${path.join(ROOT, 'bin')}:${env.PATH}` }, columns: 200, rows: 24 });
    await openDemoAccount(again);
    again.write('q');
    expect((await again.exited).exitCode).toBe(0);
    expect(again.output()).not.toContain('in this clone');
  });
});
