/**
 * What the end-to-end suites share: the environment of a new user (temp config and data dirs,
 * a temp sandbox database, no keychain, not CI), and the demo account opened (it signs in by
 * itself with the sandbox's demo session token).
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
 * Waits for `keydeck --sandbox` to open on the demo account: it signs in by itself (no setup, no
 * keychain asked); resolves on the Keys pane with the demo account's newest key (`batch-jobs`,
 * selected) and `balance` (default {@link DEMO_BALANCE}) on screen.
 */
export async function openDemoAccount(app: PtyApp, balance = DEMO_BALANCE): Promise<void> {
  await app.waitFor('batch-jobs', 20_000);
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
  afterEach(async () => {
    // The test is over: an app still running is killed at once (on SIGHUP, a terminal closed, it
    // would spend ~0.2 s closing its stores, writing its data dir), and the dirs go once it has
    // exited, or they are found not empty half way through their removal.
    const stopping = apps.splice(0);
    for (const app of stopping) app.kill('SIGKILL');
    await Promise.all(stopping.map((app) => Promise.race([app.exited, new Promise((r) => setTimeout(r, 5000).unref())])));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
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
