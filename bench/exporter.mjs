// Exporter scale benchmark: one `keydeck exporter` (the built CLI, unchanged) watching
// N profiles against one sandbox (in a child process), each profile its own user and credential
// (KEYDECK_TOKEN_<PROFILE>), at the default 60 s interval; balance, key list and usage read by
// every profile as in production.
// - Resident memory per profile: (RSS with N profiles − RSS with none) / N, each the median of
//   3 samples taken after a full GC (node --expose-gc and a probe that, on SIGUSR2, collects and
//   writes process.memoryUsage()), once every profile has been polled and 5 s have passed.
// - CPU per profile: CPU time of the process (user + system, /proc) over a window with no scrape,
//   its polls included (at 60 s a poll of 100 profiles is under way almost all the time, so this
//   is stricter than "idle between polls"), divided by N and the window, as % of one core.
// - Scrape: GET /metrics over loopback, 200 times one after another, p50 and p95.
// - First round: the time from start until every profile has been read once.
// Targets: one profile ≤ 70 MB resident (MB = 10^6 bytes, as every figure here); at 100
// profiles ≤ 1 MB per profile, ≤ 0.1 % of a core per profile, scrape p95 ≤ 20 ms.
// Then 1,000 profiles (the same figures, no target) to say how far it goes.
// BENCH_QUICK=1: 20 and 100 profiles, 20 s CPU windows.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atMost, benchEnv, CLI, cpuMsOf, median, post, QUICK, quantile, report, round, startSandboxProcess } from './fixtures/harness.mjs';

const SMALL = QUICK ? 20 : 100;
const LARGE = QUICK ? 100 : 1_000;
const CPU_WINDOW_S = QUICK ? 20 : 60;

const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-exporter-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const probe = join(dir, 'probe.mjs');
writeFileSync(
  probe,
  `import { writeFileSync } from 'node:fs';
process.on('SIGUSR2', () => { globalThis.gc(); globalThis.gc(); writeFileSync(process.env.KEYDECK_BENCH_PROBE_OUT + '.tmp', JSON.stringify(process.memoryUsage())); import('node:fs').then((fs) => fs.renameSync(process.env.KEYDECK_BENCH_PROBE_OUT + '.tmp', process.env.KEYDECK_BENCH_PROBE_OUT)); });\n`,
);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const sandbox = await startSandboxProcess(undefined);
const tokens = [];
async function users(n) {
  while (tokens.length < n) {
    const batch = await Promise.all(Array.from({ length: Math.min(20, n - tokens.length) }, () => post(`${sandbox.url}/sandbox/users`, undefined, {})));
    for (const u of batch) tokens.push(u.token);
  }
}

const name = (i) => `p${String(i).padStart(4, '0')}`;

/** Starts the exporter on `n` profiles; resolves with its handle once it listens. */
async function start(n) {
  await users(n);
  const home = join(dir, `run-${n}`);
  mkdirSync(join(home, 'config'), { recursive: true, mode: 0o700 });
  const profiles = Object.fromEntries(Array.from({ length: n }, (_, i) => [name(i), { baseUrl: sandbox.url }]));
  writeFileSync(join(home, 'config', 'config.json'), JSON.stringify({ version: 1, profiles }), { mode: 0o600 });
  const env = benchEnv(home, { KEYDECK_BENCH_PROBE_OUT: join(home, 'probe.json') });
  for (let i = 0; i < n; i++) env[`KEYDECK_TOKEN_${name(i).toUpperCase()}`] = tokens[i];
  const startedAt = performance.now();
  const child = spawn(process.execPath, ['--expose-gc', '--import', probe, CLI, 'exporter', '--all-profiles', '--listen', '127.0.0.1:0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (log += d));
  let url;
  while (!(url = /event=listening url=(\S+)/.exec(log)?.[1])) {
    if (child.exitCode !== null) throw new Error(`the exporter exited: ${log}`);
    await sleep(20);
  }
  const scrape = async () => (await fetch(url)).text();
  return {
    child,
    url,
    startedAt,
    scrape,
    log: () => log,
    /** Median of 3 RSS samples after a full GC, bytes. */
    async rss() {
      const samples = [];
      for (let k = 0; k < 3; k++) {
        rmSync(join(home, 'probe.json'), { force: true });
        child.kill('SIGUSR2');
        let text;
        for (;;) {
          try {
            text = readFileSync(join(home, 'probe.json'), 'utf8');
            break;
          } catch {
            await sleep(20);
          }
        }
        samples.push(JSON.parse(text).rss);
        await sleep(300);
      }
      return median(samples);
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Every profile up in one scrape: the time since start, ms. */
async function firstRound(run, n) {
  for (;;) {
    const text = await run.scrape();
    const up = (text.match(/^keydeck_up\{[^}]*\} 1$/gm) ?? []).length;
    if (up >= n) return performance.now() - run.startedAt;
    if (performance.now() - run.startedAt > 300_000) throw new Error(`${up} of ${n} profiles up after 5 minutes:\n${run.log().slice(-2000)}`);
    await sleep(100);
  }
}

async function measure(n, baselineRss) {
  const run = await start(n);
  const roundMs = await firstRound(run, n);
  await sleep(5000);
  const rss = await run.rss();
  const cpu0 = cpuMsOf(run.child.pid);
  const t0 = performance.now();
  await sleep(CPU_WINDOW_S * 1000);
  const cpuPct = ((cpuMsOf(run.child.pid) - cpu0) / (performance.now() - t0)) * 100;
  const scrapes = [];
  let bytes = 0;
  for (let i = 0; i < 200; i++) {
    const s = performance.now();
    bytes = (await run.scrape()).length;
    scrapes.push(performance.now() - s);
  }
  await run.stop();
  return { n, roundMs, rssMb: rss / 1e6, perProfileMb: (rss - baselineRss) / 1e6 / n, cpuPct, perProfilePct: cpuPct / n, p50: quantile(scrapes, 0.5), p95: quantile(scrapes, 0.95), bytes };
}

// The exporter's own baseline: no profile at all.
const empty = await start(0);
await sleep(5000);
const baselineRss = await empty.rss();
const cpuEmpty0 = cpuMsOf(empty.child.pid);
const tEmpty = performance.now();
await sleep(Math.min(CPU_WINDOW_S, 20) * 1000);
const emptyCpuPct = ((cpuMsOf(empty.child.pid) - cpuEmpty0) / (performance.now() - tEmpty)) * 100;
await empty.stop();

// One profile, polled (≤ 70 MB): the exporter as most run it.
const one = await start(1);
await firstRound(one, 1);
await sleep(5000);
const oneRss = await one.rss();
await one.stop();

const small = await measure(SMALL, baselineRss);
const large = await measure(LARGE, baselineRss);
await sandbox.close();

const figures = (m) => [
  { figure: `${m.n} profiles: every profile read once after start`, value: round(m.roundMs / 1000, 1), unit: 's' },
  { figure: `${m.n} profiles: resident memory after GC`, value: round(m.rssMb, 1), unit: 'MB' },
  { figure: `${m.n} profiles: scrape size`, value: round(m.bytes / 1000, 0), unit: 'kB' },
  { figure: `${m.n} profiles: scrape p50`, value: round(m.p50, 2), unit: 'ms' },
  { figure: `${m.n} profiles: CPU of the process, polls included, no scrape`, value: round(m.cpuPct, 2), unit: '% of a core' },
];
report('exporter', `keydeck exporter: ${SMALL} and ${LARGE} profiles against one sandbox, 60 s interval`, [
  { figure: 'the exporter alone (no profile): resident memory after GC', value: round(baselineRss / 1e6, 1), unit: 'MB' },
  { figure: 'the exporter alone: CPU', value: round(emptyCpuPct, 3), unit: '% of a core' },
  atMost('the exporter with one profile (http on loopback, read once): resident memory after GC', round(oneRss / 1e6, 1), 70, 'MB'),
  ...figures(small),
  atMost(`${SMALL} profiles: resident memory per profile above the exporter alone`, round(small.perProfileMb, 3), 1, 'MB'),
  atMost(`${SMALL} profiles: CPU per profile (polls included)`, round(small.perProfilePct, 4), 0.1, '% of a core'),
  atMost(`${SMALL} profiles: scrape p95`, round(small.p95, 2), 20, 'ms'),
  ...figures(large),
  { figure: `${LARGE} profiles: resident memory per profile`, value: round(large.perProfileMb, 3), unit: 'MB' },
  { figure: `${LARGE} profiles: CPU per profile`, value: round(large.perProfilePct, 4), unit: '% of a core' },
  { figure: `${LARGE} profiles: scrape p95`, value: round(large.p95, 2), unit: 'ms' },
]);
