/**
 * What the end-to-end suites share: the environment of a new user (temp config and data dirs,
 * a temp sandbox database, no keychain, not CI), and the guided setup walked with the
 * sandbox's demo session token, keeping the new management key for this session only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { startApp, type PtyApp, type StartAppOptions } from './pty.js';

/** The environment of a clean user under `root`: nothing stored, no D-Bus (so no keychain), not CI. */
export function cleanEnv(root: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KEYDECK_CONFIG_DIR: path.join(root, 'config'),
    KEYDECK_DATA_DIR: path.join(root, 'data'),
    KEYDECK_SANDBOX_DB: path.join(root, 'sandbox.db'),
    TERM: 'xterm-256color',
  };
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'CI', 'KEYDECK_TOKEN', 'KEYDECK_PROFILE', 'KEYDECK_BASE_URL', 'NO_COLOR']) delete env[name];
  return env;
}

/** What the demo account has left at its first start (src/sandbox/demo.ts: $125 topped up, $40.80 spent). */
export const DEMO_BALANCE = '$84.20';

/**
 * Walks `keydeck --sandbox`'s guided setup: the demo session token, then "this session only" (no
 * keychain here: the token is kept in memory); resolves on the Keys pane with the demo account's
 * newest key (`batch-jobs`, selected) and `balance` (default {@link DEMO_BALANCE}) on screen.
 */
export async function walkSandboxSetup(app: PtyApp, balance = DEMO_BALANCE): Promise<void> {
  await app.waitFor('Press enter to use the sandbox’s demo session token');
  app.write('\r');
  // Where the key would go is decided before one is created; with no keychain here, "this
  // session only" keeps the session token itself in memory (no management key is created).
  await app.waitFor('Where to keep the key');
  app.write('2');
  await app.waitFor(/Name the management key|batch-jobs/);
  if (app.screenText().includes('Name the management key')) {
    app.write('\r');
    await app.waitFor('I have saved it');
    app.write('y');
  }
  await app.waitFor('batch-jobs');
  await app.waitFor(`${balance} left`);
}

/** What {@link e2eRig} gives a test file. */
export interface E2eRig {
  /** A new temp dir (`<tmp>/<prefix>XXXXXX`), removed after the test. */
  tempDir(prefix: string): string;
  /** Starts the built app in a pty ({@link startApp}); it is killed after the test, if still running. */
  start(options?: StartAppOptions): PtyApp;
}

/**
 * The end-to-end suites' cleanup in one place: call once at the top of a test file; every app
 * started and temp dir made through the rig is killed or removed after each test (one
 * `afterEach`, registered here).
 */
export function e2eRig(): E2eRig {
  const apps: PtyApp[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const app of apps.splice(0)) app.kill();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    tempDir(prefix) {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    start(options) {
      const app = startApp(options);
      apps.push(app);
      return app;
    },
  };
}
