// Keystroke benchmark (not a test): keydeck (`node dist/cli.js`, KEYDECK_TOKEN = an mk_) in a
// 100×30 pty against a sandbox (in a child process) whose demo user holds 10,000 credit keys,
// added through the sandbox's own key store before it serves (bench/fixtures/harness.mjs:
// the code behind POST /api/keys/credit, minus HTTP; every key hashed and stored as usual). After the Keys table is filled: 200
// cursor moves (`j`), one at a time; for each, the time from the key written to the pty to the
// arrival of the output that shows the selection on the next row (read through
// @xterm/headless), and the bytes keydeck wrote for that move (everything until the next key,
// after a 60 ms quiet gap: more than Ink's 33 ms frame throttle).
// Targets: p95 ≤ 16 ms; ≤ 2 KB per move. Needs `node scripts/build.mjs` first (bench/run.mjs).
// BENCH_QUICK=1: 1,000 keys, 50 moves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchEnv, CLI, createManagementKey, machine, median, quantile, QUICK, spawnTimed, startSandboxProcess } from './fixtures/harness.mjs';

const KEYS = QUICK ? 1_000 : 10_000;
const MOVES = QUICK ? 50 : 200;
const QUIET_MS = 60;

const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-keys-'));
const fillStarted = performance.now();
const sandbox = await startSandboxProcess(join(dir, 'sandbox.db'), { creditKeys: KEYS });
const fillSeconds = (performance.now() - fillStarted) / 1000;
const mk = await createManagementKey(sandbox.url, sandbox.token, 'keystroke bench');

const app = spawnTimed(CLI, [], { env: benchEnv(dir, { KEYDECK_TOKEN: mk, KEYDECK_BASE_URL: sandbox.url }), columns: 100, rows: 30 });

/** The name on the selected table row (the row marked `▶`), or undefined. */
function selectedName(screen) {
  const m = /│ ▶ (bench-\d{5}|Standard[^│]*?)\s*│/.exec(screen);
  return m?.[1];
}

const started = performance.now();
await app.waitForScreen((s) => selectedName(s) !== undefined, 60_000);
const dataMs = performance.now() - started;
await new Promise((r) => setTimeout(r, 500));

const latencies = [];
const bytes = [];
for (let i = 0; i < MOVES; i++) {
  const before = selectedName(app.screenText());
  const firstChunk = app.chunks.length;
  const writtenAt = performance.now();
  app.write('j');
  const arrivedAt = await app.waitForScreen((s) => {
    const now = selectedName(s);
    return now !== undefined && now !== before;
  }, 10_000);
  latencies.push(arrivedAt - writtenAt);
  // Let the rest of this move's output (a throttled trailing frame) arrive before counting.
  let seen = app.chunks.length;
  for (;;) {
    await new Promise((r) => setTimeout(r, QUIET_MS));
    if (app.chunks.length === seen) break;
    seen = app.chunks.length;
  }
  bytes.push(app.bytesSince(firstChunk));
  if (process.env.DBG && i < 5) console.log(firstChunk, app.chunks.length, app.bytesSince(firstChunk), app.chunks.slice(firstChunk));
}

await app.stop();
await sandbox.close();
rmSync(dir, { recursive: true, force: true });

const r1 = (v) => Number(v.toFixed(1));
const p95 = quantile(latencies, 0.95);
const bytesP95 = quantile(bytes, 0.95);
console.log(`keystrokes: ${MOVES} × j over ${KEYS.toLocaleString('en-US')} keys in a 100×30 pty; ${await machine()}`);
console.log(`(sandbox with ${KEYS.toLocaleString('en-US')} keys ready in ${fillSeconds.toFixed(1)} s; Keys table filled ${(dataMs / 1000).toFixed(2)} s after start)`);
console.table([
  { measure: 'key → frame, p50 ms', value: r1(median(latencies)), target: '' },
  { measure: 'key → frame, p95 ms', value: r1(p95), target: `≤ 16 ${p95 <= 16 ? 'met' : 'MISSED'}` },
  { measure: 'key → frame, max ms', value: r1(Math.max(...latencies)), target: '' },
  { measure: 'bytes per move, median', value: median(bytes), target: '' },
  { measure: 'bytes per move, p95', value: bytesP95, target: `≤ 2048 ${bytesP95 <= 2048 ? 'met' : 'MISSED'}` },
  { measure: 'bytes per move, max', value: Math.max(...bytes), target: '' },
]);
