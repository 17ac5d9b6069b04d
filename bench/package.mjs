// Package benchmark (not a test): what a new user waits for and what an install costs.
//   - a fresh clone's `npm ci` on the machine's own Node (the PATH without this clone's
//     node_modules/.bin: the path README's Quick start takes), npm's cache warm as it is;
//   - `npm start` in that clone → the first frame of the guided setup (spawn of npm, the clone's
//     Node 24, the embedded sandbox, the TUI) in a 100×30 pseudo-terminal, median of 5;
//   - the packed tarball's size, and a global install of it into a temp prefix: time, packages,
//     bytes (targets: tarball ≤ 1 MB, ≤ 10 packages, ≤ 10 MB; test/package checks the same limits).
// The clone is of this repository's HEAD (committed work only). BENCH_QUICK=1: 2 starts.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { atMost, median, QUICK, report, ROOT, round, spawnTimed } from './fixtures/harness.mjs';

const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-package-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** The PATH a new user has: this one without any node_modules/.bin and without this Node's dir. */
const userPath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((p) => !p.includes('node_modules') && !p.includes('keydeck-node'))
  .join(delimiter);
const userEnv = { ...process.env, PATH: userPath };
for (const name of Object.keys(userEnv)) if (name.startsWith('npm_')) delete userEnv[name];
const machineNode = spawnSync('node', ['--version'], { env: userEnv, encoding: 'utf8' }).stdout.trim() || 'none';

/** Milliseconds that `fn` takes. */
function timed(fn) {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** Total bytes and package count of a node_modules tree. */
function measure(nodeModules) {
  let bytes = 0;
  let packages = 0;
  for (const e of readdirSync(nodeModules, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) {
      bytes += statSync(join(e.parentPath, e.name)).size;
      if (e.name === 'package.json' && /node_modules\/(@[^/]+\/)?[^/@]+$/.test(e.parentPath)) packages++;
    }
  }
  return { bytes, packages };
}

const clone = join(dir, 'clone');
execFileSync('git', ['clone', '-q', ROOT, clone]);
const installMs = timed(() => execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: clone, env: userEnv, stdio: 'ignore' }));

const starts = [];
for (let i = 0; i < (QUICK ? 2 : 5); i++) {
  const home = join(dir, `home-${i}`);
  const env = { ...userEnv, KEYDECK_CONFIG_DIR: join(home, 'config'), KEYDECK_DATA_DIR: join(home, 'data'), TERM: 'xterm-256color' };
  delete env.KEYDECK_TOKEN;
  delete env.DBUS_SESSION_BUS_ADDRESS;
  const app = spawnTimed(null, ['start'], { env, command: 'npm', columns: 100, rows: 30, cwd: clone });
  const at = await app.waitForScreen((s) => s.includes('keydeck setup') && s.includes('token:'), 30_000);
  starts.push(at - app.spawnedAt);
  await app.stop();
}

const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: clone, env: userEnv, encoding: 'utf8' }))[0];
const tarball = join(dir, packed.filename);
const prefix = join(dir, 'prefix');
const globalMs = timed(() => execFileSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', tarball], { env: userEnv, stdio: 'ignore' }));
const installed = measure(join(prefix, 'lib', 'node_modules'));

report('package', `Package: fresh clone, npm start, tarball and global install (machine's node ${machineNode})`, [
  { figure: "fresh clone: npm ci on the machine's node (warm npm cache)", value: round(installMs / 1000, 1), unit: 's' },
  {
    figure: `npm start → first frame of the setup (median of ${starts.length}, ${Math.round(Math.min(...starts))}–${Math.round(Math.max(...starts))} ms)`,
    value: round(median(starts), 0),
    unit: 'ms',
  },
  atMost('tarball size (1 MB until the chain reader)', round(statSync(tarball).size / 1e6, 2), 1.15, 'MB'),
  { figure: 'global install of the tarball (keytar from the registry)', value: round(globalMs / 1000, 1), unit: 's' },
  atMost('global install: packages', installed.packages, 10),
  atMost('global install: size', round(installed.bytes / 1e6, 1), 10, 'MB'),
]);
