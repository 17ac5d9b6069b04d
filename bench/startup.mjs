// Startup benchmark (not a test): from spawn to the first complete frame in a pseudo-terminal,
// read through @xterm/headless, median of 10 (after one warm-up run each), for
//   - keydeck (`node dist/cli.js` with KEYDECK_TOKEN = an mk_ of a sandbox started separately,
//     KEYDECK_BASE_URL = that sandbox, config and data in a temp dir, no keychain): the frame
//     is complete when the header (`keydeck  LIVE`) and the pane tabs (`1 Keys … 3 Billing`)
//     are drawn; "time to data" is when the Keys table shows the demo user's key;
//   - the bare Ink "hello" app (bench/fixtures/hello.tsx) bundled the same way, same options.
// Runs alternate between the two so both see the same machine load. Target: keydeck ≤ 1.3×.
// Needs `node scripts/build.mjs` first (bench/run.mjs does it). BENCH_QUICK=1: 3 runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, bundle, CLI, createManagementKey, machine, median, QUICK, ROOT, spawnTimed, startSandboxProcess } from './fixtures/harness.mjs';

const RUNS = QUICK ? 3 : 10;
const FRAME = (s) => /keydeck\s+LIVE/.test(s) && /1 Keys/.test(s) && /3 Billing/.test(s);
const DATA = (s) => s.includes('Standard subscr');
const HELLO = (s) => s.includes('hello from a bare Ink app');

const hello = await bundle(join(ROOT, 'bench/fixtures/hello.tsx'), 'hello');
const sandbox = await startSandboxProcess();
const mk = await createManagementKey(sandbox.url, sandbox.token, 'startup bench');
const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-startup-'));
const env = benchEnv(dir, { KEYDECK_TOKEN: mk, KEYDECK_BASE_URL: sandbox.url });

/** One keydeck run: ms from spawn to the first complete frame and to the Keys table filled. */
async function keydeckRun() {
  const app = spawnTimed(CLI, [], { env });
  const frameAt = await app.waitForScreen(FRAME);
  const dataAt = await app.waitForScreen(DATA);
  await app.stop();
  return { frame: frameAt - app.spawnedAt, data: dataAt - app.spawnedAt };
}

/** One bare Ink run: ms from spawn to the hello frame. */
async function helloRun() {
  const app = spawnTimed(hello, [], { env });
  const frameAt = await app.waitForScreen(HELLO);
  await app.stop();
  return frameAt - app.spawnedAt;
}

const frames = [];
const datas = [];
const hellos = [];
for (let i = 0; i <= RUNS; i++) {
  const k = await keydeckRun();
  const h = await helloRun();
  if (i === 0) continue; // warm-up: file cache, JIT of the pty helper
  frames.push(k.frame);
  datas.push(k.data);
  hellos.push(h);
}
await sandbox.close();
rmSync(dir, { recursive: true, force: true });
rmSync(join(hello, '..'), { recursive: true, force: true });

const ms = (v) => Number(v.toFixed(1));
const ratio = median(frames) / median(hellos);
console.log(`startup: spawn → frame in a 100×30 pty, median of ${RUNS} (min–max); ${await machine()}`);
console.table([
  { measure: 'bare Ink app, first frame', 'median ms': ms(median(hellos)), 'min ms': ms(Math.min(...hellos)), 'max ms': ms(Math.max(...hellos)), target: '' },
  { measure: 'keydeck, first complete frame', 'median ms': ms(median(frames)), 'min ms': ms(Math.min(...frames)), 'max ms': ms(Math.max(...frames)), target: '' },
  { measure: 'keydeck ÷ bare Ink', 'median ms': Number(ratio.toFixed(2)), 'min ms': '', 'max ms': '', target: `≤ 1.3× ${ratio <= 1.3 ? 'met' : 'MISSED'}` },
  { measure: 'keydeck, time to data (Keys table filled)', 'median ms': ms(median(datas)), 'min ms': ms(Math.min(...datas)), 'max ms': ms(Math.max(...datas)), target: '' },
]);
