// Monitor soak benchmark (not a test): what hours of balance polling cost, in two parts.
//
// 1. A day of polls at the fastest interval (43,200 at 2 s), run at a tiny interval with the app's
//    clock moved on 2 s a poll. keydeck never polls faster than every 2 s (the account
//    watcher's MIN_POLL_INTERVAL_MS, --interval's MIN_INTERVAL_SECONDS), so a day of polls would take a
//    day. Instead of driving the AccountWatcher class alone in-process (which would leave out React,
//    Ink's frames, the header, the Billing pane's history and the HTTP client's sockets), this
//    runs the whole app, as a user does: src/cli.ts bundled with keydeck's own esbuild options,
//    the only change being those two minimums lowered at bundle time (an esbuild plugin that
//    replaces their two declarations and fails loudly if they change), started in a 100×30 pty
//    with `--interval 0.001` and KEYDECK_TOKEN against a sandbox in a child process. Every part
//    of a poll is the real one: timer, got request, zod parsing, session and balance state,
//    header and Billing pane (mounted while hidden) re-rendered, frame written to the terminal.
//    To measure inside that process, node runs it with `--expose-gc --import <probe>`: the probe
//    counts the balance requests (node:diagnostics_channel `http.client.request.start`) and, on
//    SIGUSR2, at the next response (so every sample is taken at the same point of a poll), runs
//    a last-resort full GC (which also hands back the pages V8 keeps for growth) and writes rss,
//    heapUsed and process.getActiveResourcesInfo() to a file.
//    The probe also replaces Date (now and new Date()) by a clock that moves on 2 s at each
//    balance request, so everything that reads the time sees a day go by; timers keep real time.
//    Baseline: the median of 5 samples after the first hour of the app's clock (1,800 polls: the
//    target is the growth after the first hour) and at least 60 s of real time; end: the median
//    of 5 samples after a day of polls more. Samples come every 2 s from the first frame on (250 ms
//    with BENCH_QUICK), in the first hour as in the day. Resident memory rises once, by 20–25 MB,
//    when the app first polls this fast for a while: the optimizing compiler (Turbofan) compiles
//    the poll's hot functions on V8's worker threads, and glibc keeps what their jobs malloc'd
//    and freed in those threads' arenas (with Turbofan held to the main thread by a diagnostic
//    flag, the thread arenas stay flat and the rise is ~3 MB). It then stays flat. The first runs
//    sampled every 100 ms until the baseline, a full GC each, which held the app to about a tenth
//    of its poll rate: the rise came after the baseline and was counted as the day's growth. Each
//    sample also splits resident memory by kind (/proc/<pid>/smaps): glibc's thread arenas, its
//    main arena, other anonymous memory (V8's heap pages among it), file-backed pages.
//    The resident memory right after the first frame is printed too, for comparison.
//    Targets: resident memory after GC grows ≤ 2 MB over the day; active handles at the end ≤ the baseline.
// 2. Idle CPU: the real built app (dist/cli.js, unchanged) at the default interval (15 s) in a
//    pty, left alone once the Keys table is drawn (and 5 s more); CPU time from /proc (user +
//    system, every thread) over three 60 s windows, each printed: a single window varies with
//    what V8 does in it (the optimizing compiler's threads, a major GC). Target: the mean over
//    the three ≤ 0.5 % of one core.
// BENCH_QUICK=1: 300 warm-up polls (and 10 s), then 500, and one 15 s idle window. BENCH_DEBUG=1 prints every sample.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { atMost, benchEnv, bundle, CLI, cpuMsOf, createManagementKey, median, QUICK, report, ROOT, round, spawnTimed, startSandboxProcess } from './fixtures/harness.mjs';

/** keydeck's fastest interval (s): each poll moves the app's clock on by this much. */
const FASTEST_INTERVAL_S = 2;
/** A day of polls at the fastest interval: 43,200. */
const POLLS = QUICK ? 500 : (24 * 3600) / FASTEST_INTERVAL_S;
const WARMUP_POLLS = QUICK ? 300 : 3600 / FASTEST_INTERVAL_S;
/** The least time the app runs before the baseline, s (see the header). */
const WARMUP_S = QUICK ? 10 : 60;
/** Between two samples, ms: a sample is a full GC; every 2 s over the day (about 500 of them), every 250 ms in a short run. */
const SAMPLE_MS = QUICK ? 250 : 2000;
const IDLE_S = QUICK ? 15 : 60;
const IDLE_WINDOWS = QUICK ? 1 : 3;
const SHELL = (s) => /keydeck\s+(?:LIVE|SANDBOX)/.test(s) && s.includes('Standard subscr');

/** esbuild plugin: the two minimum poll intervals, lowered (see the header). */
const lowerMinimums = {
  name: 'keydeck-soak-lower-minimum-interval',
  setup(build) {
    const patches = [
      [/src\/watcher\/schedule\.ts$/, 'export const MIN_POLL_INTERVAL_MS = 2000;', 'export const MIN_POLL_INTERVAL_MS = 1;'],
      // The command-line minimum (billing/settings.ts reads it from config.ts).
      [/src\/config\/config\.ts$/, 'export const MIN_POLL_INTERVAL_SECONDS = 2;', 'export const MIN_POLL_INTERVAL_SECONDS = 0.001;'],
    ];
    for (const [filter, from, to] of patches) {
      build.onLoad({ filter }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(from)) throw new Error(`bench/soak.mjs: \`${from}\` is no longer in ${args.path}; update the soak plugin`);
        return { contents: source.replace(from, to), loader: 'ts' };
      });
    }
  },
};

/** The probe loaded into the soaked app with --import (see the header). */
const PROBE = `
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
const out = process.env.KEYDECK_SOAK_REPORT;
let polls = 0, requests = 0, pending = false, seq = 0;
// The app's clock: each balance poll moves it on by the fastest interval, so a day of polls is a
// day for everything that reads the time (history retention and downsampling, burn rates, charts,
// "updated … ago", the usage budget's windows). Timers keep real time (the 1 ms interval).
const RealDate = Date;
const realNow = RealDate.now;
let advancedMs = 0;
const now = () => realNow() + advancedMs;
globalThis.Date = class extends RealDate {
  constructor(...args) { if (args.length === 0) super(now()); else super(...args); }
  static now() { return now(); }
};
subscribe('http.client.request.start', ({ request }) => {
  requests++;
  if (String(request.path).startsWith('/api/billing/credits')) {
    polls++;
    advancedMs += ${FASTEST_INTERVAL_S * 1000};
  }
});
// Resident memory by kind, KiB (Linux; undefined elsewhere): glibc's thread arenas (anonymous
// mappings aligned to its 64 MB heap size: the malloc of threads other than the main one), its
// main arena ([heap]), other anonymous memory (V8's heap pages, large malloc blocks, stacks), files.
const byKind = () => {
  let text;
  try { text = readFileSync('/proc/self/smaps', 'utf8'); } catch { return undefined; }
  const kb = { threadArenas: 0, mainArena: 0, otherAnonymous: 0, file: 0 };
  let kind;
  for (const line of text.split('\\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) {
      const [range, , , , inode, name = ''] = line.split(/ +/);
      const start = BigInt('0x' + range.split('-')[0]);
      kind = name === '[heap]' ? 'mainArena' : inode !== '0' ? 'file' : name === '' && start % 0x4000000n === 0n ? 'threadArenas' : 'otherAnonymous';
    } else if (line.startsWith('Rss:')) kb[kind] += Number(line.split(/ +/)[1]);
  }
  return kb;
};
subscribe('http.client.response.finish', () => {
  if (!pending) return;
  pending = false;
  // A last-resort full GC (as under memory pressure): also releases the pages V8 keeps for
  // growth, so rss reflects what is still referenced, not the heap's high-water mark.
  globalThis.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  const m = process.memoryUsage();
  writeFileSync(out + '.tmp', JSON.stringify({ seq: ++seq, polls, requests, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, kinds: byKind(), resources: process.getActiveResourcesInfo() }));
  renameSync(out + '.tmp', out); // whole samples only
});
process.on('SIGUSR2', () => { pending = true; });
`;

const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-soak-'));
const sandbox = await startSandboxProcess();
const figures = [];
try {
  const mk = await createManagementKey(sandbox.url, sandbox.token, 'soak bench');

  // ---- 1. polls at a tiny interval ----
  const soakCli = await bundle(join(ROOT, 'src/cli.ts'), 'cli', { plugins: [lowerMinimums] });
  const probe = join(dir, 'probe.mjs');
  writeFileSync(probe, PROBE);
  const reportFile = join(dir, 'probe.json');
  const app = spawnTimed(soakCli, ['--interval', '0.001'], {
    env: benchEnv(join(dir, 'soak'), { KEYDECK_TOKEN: mk, KEYDECK_BASE_URL: sandbox.url, KEYDECK_SOAK_REPORT: reportFile }),
    nodeArgs: ['--expose-gc', '--import', pathToFileURL(probe).href],
  });
  let seq = 0;
  /** Asks the probe for a sample; resolves with it. */
  const sample = async () => {
    process.kill(app.pid, 'SIGUSR2');
    const deadline = performance.now() + 10_000;
    for (;;) {
      await new Promise((r) => setTimeout(r, 10));
      if (existsSync(reportFile)) {
        const s = JSON.parse(readFileSync(reportFile, 'utf8'));
        if (s.seq > seq) {
          seq = s.seq;
          return s;
        }
      }
      if (performance.now() > deadline) throw new Error(`no sample from the soaked app; screen:\n${app.screenText()}`);
    }
  };
  const fiveSamples = async () => {
    const samples = [];
    for (let i = 0; i < 5; i++) samples.push(await sample());
    return {
      polls: samples.at(-1).polls,
      rss: median(samples.map((s) => s.rss)),
      heapUsed: median(samples.map((s) => s.heapUsed)),
      handles: median(samples.map((s) => s.resources.length)),
      kinds: samples[0].kinds && Object.fromEntries(Object.keys(samples[0].kinds).map((k) => [k, median(samples.map((s) => s.kinds[k] * 1024))])),
      resources: samples.at(-1).resources,
    };
  };
  let first;
  let base;
  let end;
  let maxHandles = 0;
  let soakSeconds;
  try {
    await app.waitForScreen(SHELL, 30_000);
    first = await sample();
    const warmupUntil = performance.now() + WARMUP_S * 1000;
    // The first hour is sampled at the day's pace (see the header): a full GC every 100 ms held
    // the app to a tenth of its poll rate, and the rate's rise after the baseline showed as growth.
    while ((await sample()).polls < WARMUP_POLLS || performance.now() < warmupUntil) await new Promise((r) => setTimeout(r, SAMPLE_MS));
    base = await fiveSamples();
    const started = performance.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
      const s = await sample();
      if (process.env.BENCH_DEBUG) console.log(JSON.stringify({ ...s, resources: s.resources.length }));
      maxHandles = Math.max(maxHandles, s.resources.length);
      if (s.polls >= base.polls + POLLS) break;
    }
    soakSeconds = (performance.now() - started) / 1000;
    end = await fiveSamples();
  } finally {
    await app.stop();
  }
  const polls = end.polls - base.polls;
  const mb = (bytes) => round(bytes / 2 ** 20, 2);
  const count = (list) =>
    Object.entries(list.reduce((m, r) => ({ ...m, [r]: (m[r] ?? 0) + 1 }), {}))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  figures.push(
    {
      figure: `balance polls at --interval 0.001, the app's clock moved on ${FASTEST_INTERVAL_S} s a poll, after ${WARMUP_POLLS} warm-up polls (at least ${WARMUP_S} s)`,
      value: polls,
      unit: `(${round((polls * FASTEST_INTERVAL_S) / 3600, 1)} h) in ${soakSeconds.toFixed(1)} s`,
    },
    { figure: `resident memory after GC: first frame → baseline (${WARMUP_POLLS} polls) → end`, value: `${mb(first.rss)} → ${mb(base.rss)} → ${mb(end.rss)} MB` },
    atMost('resident memory after GC: growth', mb(end.rss - base.rss), 2, 'MB'),
    { figure: 'V8 heap used after GC: baseline → end', value: `${mb(base.heapUsed)} → ${mb(end.heapUsed)} MB` },
    ...(base.kinds && end.kinds
      ? [
          {
            figure: "of the resident memory: glibc's thread arenas / its main arena / other anonymous (V8's heap pages) / file-backed, baseline → end",
            value: Object.keys(base.kinds)
              .map((k) => `${mb(base.kinds[k])} → ${mb(end.kinds[k])}`)
              .join(' / '),
            unit: 'MB',
          },
        ]
      : []),
    { figure: 'active handles at baseline', value: base.handles, unit: `(${count(base.resources)})` },
    {
      ...atMost('active handles at the end (target: ≤ baseline)', end.handles, base.handles),
      target: `≤ ${base.handles} (baseline)`,
      unit: `(${count(end.resources)}; at most ${maxHandles} during the soak)`,
    },
  );

  // ---- 2. idle CPU at the default interval ----
  const idle = spawnTimed(CLI, [], { env: benchEnv(join(dir, 'idle'), { KEYDECK_TOKEN: mk, KEYDECK_BASE_URL: sandbox.url }) });
  try {
    await idle.waitForScreen(SHELL, 30_000);
    await new Promise((r) => setTimeout(r, 5000)); // the first frames and reads settle
    const shares = [];
    const chunksBefore = idle.chunks.length;
    for (let w = 0; w < IDLE_WINDOWS; w++) {
      const cpuBefore = cpuMsOf(idle.pid);
      await new Promise((r) => setTimeout(r, IDLE_S * 1000));
      shares.push(((cpuMsOf(idle.pid) - cpuBefore) / (IDLE_S * 1000)) * 100);
    }
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    figures.push(
      atMost(`CPU while idle at the default interval (15 s), share of one core, mean of ${IDLE_WINDOWS} × ${IDLE_S} s`, round(mean, 2), 0.5, '%'),
      { figure: `CPU while idle, each ${IDLE_S} s window`, value: shares.map((v) => `${v.toFixed(2)} %`).join(', ') },
      { figure: 'output while idle (balance updates, "updated … ago")', value: idle.bytesSince(chunksBefore), unit: `B in ${idle.chunks.length - chunksBefore} writes` },
    );
  } finally {
    await idle.stop();
  }
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}
report(
  'soak',
  `monitor soak: ${POLLS.toLocaleString('en-US')} polls (${round((POLLS * FASTEST_INTERVAL_S) / 3600, 1)} h of the app's clock) at a tiny interval; CPU over ${IDLE_WINDOWS} × ${IDLE_S} s idle`,
  figures,
);
