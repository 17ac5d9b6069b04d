// Keystroke benchmark (not a test): keydeck (`node dist/cli.js`, KEYDECK_TOKEN = an mk_) in a
// 100×30 pty against a sandbox (a child process) whose demo user holds 10,000 credit keys, added
// through the sandbox's own key store before it serves (bench/fixtures/harness.mjs: the code
// behind POST /api/keys/credit, minus HTTP; every key hashed and stored as usual).
// Once the Keys table is filled and the app is quiet (no output for 1.5 s): 200 cursor moves down
// (`j`), one at a time. For each move:
//   - key → frame: from the key written to the pty to the arrival of the output that shows the
//     selection on the next row (read through @xterm/headless), i.e. what the user waits for;
//   - bytes: everything keydeck wrote for that move (until 60 ms of silence: more than Ink's
//     frame throttle at 60 fps);
//   - whether the move scrolled the table (the first visible row changed). A move inside the
//     window changes two rows and the details panel; a scrolling move changes every visible row
//     (15 here), each rewritten by Ink from its first changed column. Starting from the top, the
//     first 14 moves stay inside the window and the rest scroll.
//   - keydeck's CPU time per move (/proc, user + system), less sensitive to machine load than
//     the wall-clock figures.
// Targets: keydeck's CPU time per move ≤ 0.8× the bare Ink list's and its key → frame
// p95 ≤ the bare list's, both in the same run; ≤ 2 KB per move (p95, each kind of move).
// Then the same 200 moves in a bare Ink app drawing the same screen (bench/fixtures/list.tsx,
// keydeck's Ink options, the same build): the floor Ink itself sets on this machine.
// BENCH_QUICK=1: 1,000 keys, 50 moves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  atMost,
  benchEnv,
  bundle,
  CLI,
  cpuMsOf,
  createManagementKey,
  median,
  quantile,
  QUICK,
  report,
  round,
  ROOT,
  keydeckRenderOptions,
  spawnTimed,
  startSandboxProcess,
} from './fixtures/harness.mjs';

const KEYS = QUICK ? 1_000 : 10_000;
const MOVES = QUICK ? 50 : 200;
const QUIET_MS = 60;
const QUIET_START_MS = 1500;

const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-keys-'));
const fillStarted = performance.now();
const sandbox = await startSandboxProcess(join(dir, 'sandbox.db'), { creditKeys: KEYS });
const fillSeconds = (performance.now() - fillStarted) / 1000;

/** The name on the selected table row (marked `▶`), or undefined. */
function selectedName(screen) {
  return /│ ▶ (\S+)/.exec(screen)?.[1];
}
/** The name on the first data row of the table (under the heading's separator), or undefined. */
function firstRowName(screen) {
  return /├[─┼]+┤\n│ [ ▶] (\S+)/.exec(screen)?.[1];
}

/**
 * 200 (or MOVES) presses of `j` in `app`, once `ready` returns true: per move the key → frame
 * latency (ms), the bytes written (split by whether the move scrolled the table) and the app's
 * CPU time per move (ms). Stops the app.
 */
async function measureMoves(app) {
  const latencies = [];
  const inWindow = [];
  const scrolling = [];
  try {
    // Start once the app is quiet (no output for QUIET_START_MS, at most 30 s): the moves are
    // measured, not the end of start-up (with 10,000 keys the usage answer arrives, is recorded
    // and fills the spend columns a second or two after the table is drawn; bench/startup.mjs
    // measures that as "Keys table filled").
    const quietBy = performance.now() + 30_000;
    for (let seen = -1; seen !== app.chunks.length && performance.now() < quietBy;) {
      seen = app.chunks.length;
      await new Promise((r) => setTimeout(r, QUIET_START_MS));
    }
    const cpuBefore = cpuMsOf(app.pid);
    for (let i = 0; i < MOVES; i++) {
      const screen = app.screenText();
      const before = selectedName(screen);
      const top = firstRowName(screen);
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
      await app.settled();
      (firstRowName(app.screenText()) === top ? inWindow : scrolling).push(app.bytesSince(firstChunk));
      if (process.env.BENCH_DEBUG) console.log(JSON.stringify({ move: i, ms: round(arrivedAt - writtenAt), bytes: app.bytesSince(firstChunk), scrolled: firstRowName(app.screenText()) !== top }));
    }
    return { latencies, inWindow, scrolling, cpuPerMove: (cpuMsOf(app.pid) - cpuBefore) / MOVES };
  } finally {
    await app.stop();
  }
}

let dataMs;
let keydeck;
try {
  const mk = await createManagementKey(sandbox.url, sandbox.token, 'keystroke bench');
  const app = spawnTimed(CLI, [], { env: benchEnv(dir, { KEYDECK_TOKEN: mk, KEYDECK_BASE_URL: sandbox.url }), columns: 100, rows: 30 });
  dataMs = (await app.waitForScreen((s) => selectedName(s) !== undefined, 60_000)) - app.spawnedAt;
  keydeck = await measureMoves(app);
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}

// The floor: the same screen drawn by a bare Ink app (bench/fixtures/list.tsx), same options, same build.
const listApp = await bundle(join(ROOT, 'bench/fixtures/list.tsx'), 'list', { define: { __KEYDECK_RENDER_OPTIONS__: JSON.stringify(keydeckRenderOptions()) } });
const bare = spawnTimed(listApp, [], { env: { ...process.env, TERM: 'xterm-256color' }, columns: 100, rows: 30 });
await bare.waitForScreen((s) => selectedName(s) !== undefined, 30_000);
const floor = await measureMoves(bare);
const { latencies, inWindow, scrolling, cpuPerMove } = keydeck;

const bytesFigure = (name, values) => (values.length === 0 ? { figure: `${name}: none`, value: '—' } : atMost(`${name} (${values.length} moves), p95`, quantile(values, 0.95), 2048, 'B'));
const all = [...inWindow, ...scrolling];
report(
  'keystrokes',
  `keystrokes: ${MOVES} × j over ${KEYS.toLocaleString('en-US')} keys in a 100×30 pty (sandbox filled in ${fillSeconds.toFixed(1)} s; Keys table drawn ${(dataMs / 1000).toFixed(2)} s after spawn)`,
  [
    { figure: 'key → frame, p50', value: round(median(latencies)), unit: 'ms' },
    { figure: 'key → frame, p95', value: round(quantile(latencies, 0.95)), unit: 'ms' },
    { ...atMost('key → frame p95 − bare Ink’s p95 (same run)', round(quantile(latencies, 0.95) - quantile(floor.latencies, 0.95)), 0, 'ms'), target: '≤ 0 ms (≤ the bare app’s)' },
    { figure: 'key → frame, max', value: round(Math.max(...latencies)), unit: 'ms' },
    { figure: 'keydeck CPU time per move', value: round(cpuPerMove), unit: 'ms' },
    atMost('keydeck CPU time per move ÷ bare Ink’s (same run)', round(cpuPerMove / floor.cpuPerMove, 2), 0.8, '×'),
    bytesFigure('bytes per move inside the window', inWindow),
    bytesFigure('bytes per move that scrolls the table', scrolling),
    { figure: 'bytes per move, mean of all moves', value: Math.round(all.reduce((a, b) => a + b, 0) / all.length), unit: 'B' },
    { figure: 'bare Ink, same screen (bench/fixtures/list.tsx): key → frame, p50 / p95', value: `${round(median(floor.latencies))} / ${round(quantile(floor.latencies, 0.95))} ms` },
    { figure: 'bare Ink, same screen: CPU time per move', value: round(floor.cpuPerMove), unit: 'ms' },
    { figure: 'bare Ink, same screen: bytes per move inside the window / scrolling, p95', value: `${quantile(floor.inWindow, 0.95) ?? '—'} / ${quantile(floor.scrolling, 0.95) ?? '—'} B` },
  ],
);
