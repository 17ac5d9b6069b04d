/**
 * Before the suites run: builds dist/ once, so tests that spawn the built CLI always exercise the
 * current sources (unless dist/ is provably current: {@link currentSnapshot}), then takes the run's snapshot of it, which
 * the suites that spawn `cli.js` run (test/credentials/harness.ts `cliPath()`). A rebuild of dist/
 * during the run (a developer's `npm run build`, another run's setup) cannot pull the files from
 * under them. The snapshot (and the compile cache of the CLI run from it) is removed after the run.
 *
 * The run is hermetic: whatever the shell that started it holds, no test reads or writes
 * the user's own keydeck: {@link hermeticEnvironment} clears keydeck's variables and points HOME,
 * the XDG base dirs and the keychain's session bus away from the user's before any worker starts
 * (the workers inherit this process's environment), and test/hermetic.test.ts checks that they
 * did; `node scripts/hermetic-check.mjs` runs the whole suite from a user's shell holding a
 * running sandbox and checks that it left that user's keydeck untouched.
 *
 * The run's temp files are in memory where the machine allows it ({@link runTempDir}): the crash
 * walks and the CLI runs open SQLite stores and write records in fresh temp dirs by the thousand,
 * and each commit, checkpoint and close that syncs to a disk costs the kernel's time and holds the
 * worker's thread.
 *
 * The snapshot used to be taken by each test file's worker and removed on its process's `exit`,
 * which vitest's workers do not reach: every `npm test` left some thirty 5 MB copies in the OS temp
 * dir (2.9 GB after a day of runs here), and ~20 MB of compile-cache entries keyed by their paths.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { distDigest, inputsDigest, readStamp, writeStamp } from '../scripts/dist-stamp.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's snapshot of dist/cli.js (see the module comment). */
    cliSnapshot: string;
    /** The compile cache of the CLI runs, beside the snapshot (test/compile-cache.ts). */
    cliCompileCache: string;
  }
}

/** Copies dist/ (with package.json, the manual, and node_modules linked for keytar) into `dir`; the path of its cli.js. */
function snapshotCli(root: string, dir: string): string {
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  // The manual, which `keydeck help TOPIC` reads beside package.json (as in the package).
  cpSync(path.join(root, 'docs'), path.join(dir, 'docs'), { recursive: true, filter: (src) => !src.includes(`${path.sep}screens`) });
  cpSync(path.join(root, 'dist'), path.join(dir, 'dist'), { recursive: true });
  const cli = path.join(dir, 'dist', 'cli.js');
  const check = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8', timeout: 20_000 });
  if (check.status !== 0) throw new Error(`the snapshot of dist/ does not run: ${check.stderr || check.error?.message}`);
  return cli;
}

/**
 * keydeck's variables a test run keeps: the ones that steer the suites themselves (the CLI's
 * runner, the CPU probe, the crash walks, the screens' fixed clock and seed), never one that points
 * keydeck at a config, a data dir, a service or a credential.
 */
const TEST_CONTROL = /^KEYDECK_(TEST_|CRASH_|SCREENS_|BENCH_)/;

/** The room /dev/shm must have for the run's temp dir, bytes: the packaging suites alone install ~30 MB there. */
const SHM_ROOM = 1024 ** 3;

/** The bytes free for this user under `dir` (0 when unknown). */
function roomIn(dir: string): number {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return 0;
  }
}

/**
 * The run's temp dir, made TMPDIR before any worker starts (so that every temp dir a suite, a CLI
 * run, a sandbox, npm or a keychain daemon makes is under it) and removed after the run, with
 * whatever a test left there: under /dev/shm when that is a tmpfs on which programs may run (a
 * suite writes scripts there and runs them as delivery commands) with room to spare (a container's
 * is often 64 MB), else under the OS's temp dir.
 * On a tmpfs SQLite's syncs cost next to nothing (docs/performance.md, "The suite": the crash walks'
 * system time 14.3 → 10.3 s). Nothing a test checks depends on the disk under it: the file modes,
 * renames and locks keydeck relies on are the same on a tmpfs.
 */
function runTempDir(): string {
  let base = tmpdir();
  try {
    const shm = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find(([, mountPoint]) => mountPoint === '/dev/shm');
    if (shm?.[2] === 'tmpfs' && !shm[3]!.split(',').includes('noexec') && roomIn('/dev/shm') >= SHM_ROOM) base = '/dev/shm';
  } catch {
    // No /proc (not Linux): the OS's temp dir.
  }
  removeAbandonedRunDirs(base);
  let dir: string;
  try {
    dir = mkdtempSync(path.join(base, 'keydeck-test-run-'));
  } catch {
    dir = mkdtempSync(path.join(tmpdir(), 'keydeck-test-run-'));
  }
  // Other users may pass through it, not list it nor write in it: a suite runs a process as another
  // user in a dir of its own under it (test/operations/tokenFileRace.test.ts).
  chmodSync(dir, 0o711);
  // Whose run it is: a later run removes it if this one was killed before its teardown (a tmpfs
  // keeps what is left there until the machine restarts).
  writeFileSync(path.join(dir, RUN_PID_FILE), String(process.pid));
  return dir;
}

/** The file in a run's temp dir naming the pid of the run's main process. */
const RUN_PID_FILE = 'keydeck-test-run.pid';

/** Removes this user's run temp dirs under `base` whose run is gone (its process killed before its teardown). */
function removeAbandonedRunDirs(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base).filter((name) => name.startsWith('keydeck-test-run-'));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = path.join(base, name);
    try {
      if (statSync(dir).uid !== process.getuid?.()) continue;
      const pid = Number(readFileSync(path.join(dir, RUN_PID_FILE), 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Not a run dir of ours, or gone meanwhile: left as it is.
    }
  }
}

/** True when a process `pid` exists (this user's or not). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes this process's environment (and so every worker's, and every CLI run's that copies it)
 * the run's own: every other KEYDECK_* variable removed (KEYDECK_CONFIG_DIR, KEYDECK_DATA_DIR,
 * KEYDECK_TOKEN, KEYDECK_BASE_URL, KEYDECK_PROFILE, …), HOME a new directory of the run with the
 * XDG base dirs under it, no session bus (DBUS_SESSION_BUS_ADDRESS: the user's keychain; the
 * keychain suites start their own), no DISPLAY. npm's cache stays where it was (the packaging
 * suites install from it; it is npm's, not keydeck's). Returns the run's home, removed after the run.
 */
function hermeticEnvironment(): string {
  const env = process.env;
  for (const name of Object.keys(env)) if (name.startsWith('KEYDECK_') && !TEST_CONTROL.test(name)) delete env[name];
  if (env.npm_config_cache === undefined && env.HOME !== undefined) env.npm_config_cache = path.join(env.HOME, '.npm');
  const home = mkdtempSync(path.join(tmpdir(), 'keydeck-test-run-home-'));
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    KEYDECK_TEST_RUN_HOME: home,
  });
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'DISPLAY', 'WAYLAND_DISPLAY']) delete env[name];
  return home;
}

/**
 * The run's snapshot of dist/ in `dir` (see {@link snapshotCli}), built first unless it is provably
 * current: the stamp of the last build (scripts/dist-stamp.mjs, which `npm run build` and `npm ci`'s
 * `prepare` write) names the digest of the sources, scripts, configs and installed packages it
 * was built from, and of the dist/ it made; the build is skipped when both the inputs now and the
 * snapshot just taken have those digests, byte for byte, and otherwise runs (~10 s of CPU, esbuild
 * and tsc) and is stamped. @returns the path of the snapshot's cli.js
 */
function currentSnapshot(root: string, dir: string): string {
  const inputs = inputsDigest();
  const stamp = readStamp();
  if (stamp?.inputs === inputs) {
    const cli = snapshotCli(root, dir);
    if (distDigest(path.join(dir, 'dist')) === stamp.dist) return cli;
    for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  const cli = snapshotCli(root, dir);
  writeStamp(inputs, distDigest(path.join(dir, 'dist')));
  return cli;
}

export default function setup(project: TestProject): () => void {
  const temp = runTempDir();
  process.env.TMPDIR = temp;
  const home = hermeticEnvironment();
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-cli-'));
  try {
    project.provide('cliSnapshot', currentSnapshot(root, dir));
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  // Node's compile cache (src/cli/main.ts) is keyed by a file's path, so the entries of the snapshot's
  // files would stay in the OS temp dir after it is gone: every CLI this run starts keeps its cache
  // beside the snapshot instead (test/compile-cache.ts, in each worker). Not in this process's
  // environment: vitest's workers would inherit it at their start and cache their own modules there
  // too (some 1,500 entries of node_modules a run, written as they exit, never read again), and,
  // as they exit while the directory is removed, left it half removed in the OS temp dir.
  project.provide('cliCompileCache', path.join(dir, 'compile-cache'));
  return () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    rmSync(home, { recursive: true, force: true, maxRetries: 5 });
    rmSync(temp, { recursive: true, force: true, maxRetries: 5 });
  };
}
