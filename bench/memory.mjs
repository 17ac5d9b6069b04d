// Memory benchmark: the cost of leaving keydeck open. Three processes side by
// side in one run, each in a 100×30 pseudo-terminal: the bare Ink "hello" app (bench/fixtures/
// hello.tsx, bundled the same way as keydeck), `keydeck monitor --interval 2` and the TUI with
// `--interval 2`, both against one sandbox (in a child process) with an account of 20 credit keys
// that spend (usage figures, a kept usage answer, a balance history). Resident memory (VmRSS) is
// read from /proc every 10 s; the figure is the median of the samples of the last minute of a
// 10-minute run (BENCH_QUICK=1: 90 s, the last 30 s), so a passing GC does not decide it. Also
// printed: what the resident memory is made of (anonymous: the heaps and malloc; file: code pages
// of node and its libraries) and the thread count, and at the end the anonymous memory by kind
// (/proc/<pid>/smaps: glibc's thread arenas and main arena, V8's pages with those it keeps
// pooled after the young generation shrinks, the rest).
// At the end, each process is asked (SIGUSR2, a probe loaded with --import into all three alike,
// which only reads) for V8's heap by space, its code statistics and process.memoryUsage() (Yoga's
// wasm memory is among the array buffers): where the difference with the bare app lies.
// Targets (with V8 at its defaults: no flag changed while the program runs): monitor
// ≤ 1.2× the bare Ink app, the TUI ≤ 1.35×, after 10 minutes and 8 s after the start.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { atMost, benchEnv, bundle, CLI, keydeckRenderOptions, median, NODE_ARGS, operatorAccount, QUICK, report, ROOT, round, spawnTimed, startSandboxProcess } from './fixtures/harness.mjs';

const RUN_S = QUICK ? 90 : 600;
const LAST_S = QUICK ? 30 : 60;
const SAMPLE_S = 10;

const status = (pid) => {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), threads: Number(/Threads:\s+(\d+)/.exec(text)?.[1]) };
};

/**
 * Resident anonymous memory of `pid` by kind, MB (/proc/<pid>/smaps): glibc's thread arenas (mappings
 * aligned to its 64 MB heap size: the malloc of every thread but the main one), its main arena
 * (`[heap]`), V8's pages (256 KB mappings: its spaces, and the pages it keeps in its pool after a
 * space shrinks), the rest (large malloc blocks, stacks, WebAssembly memory).
 */
const anonymousByKind = (pid) => {
  const kb = { threadArenas: 0, mainArena: 0, v8Pages: 0, other: 0 };
  let kind;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const [start, end] = [BigInt(`0x${head[1]}`), BigInt(`0x${head[2]}`)];
      const name = head[4];
      kind = head[3] !== '0' ? undefined : name === '[heap]' ? 'mainArena' : name !== '' ? 'other' : start % 0x4000000n === 0n ? 'threadArenas' : end - start === 0x40000n ? 'v8Pages' : 'other';
    } else if (kind && line.startsWith('Rss:')) kb[kind] += Number(/\d+/.exec(line)[0]) / 1024;
  }
  return kb;
};

const hello = await bundle(join(ROOT, 'bench/fixtures/hello.tsx'), 'hello', { define: { __KEYDECK_RENDER_OPTIONS__: JSON.stringify(keydeckRenderOptions()) } });
const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-memory-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const sandbox = await startSandboxProcess(undefined);
const mk = await operatorAccount(sandbox.url);
const env = benchEnv(dir, { KEYDECK_TOKEN: mk, KEYDECK_BASE_URL: sandbox.url });

/** Read-only probe: on SIGUSR2 writes V8's heap spaces, code statistics and memoryUsage() to KEYDECK_MEMORY_PROBE.<pid>. */
const PROBE = `
import { getHeapCodeStatistics, getHeapSpaceStatistics } from 'node:v8';
import { writeFileSync } from 'node:fs';
process.on('SIGUSR2', () => {
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]));
  writeFileSync(process.env.KEYDECK_MEMORY_PROBE + '.' + process.pid, JSON.stringify({ spaces, code: getHeapCodeStatistics(), usage: process.memoryUsage() }));
});
`;
const probe = join(dir, 'probe.mjs');
writeFileSync(probe, PROBE);
const probeEnv = { KEYDECK_MEMORY_PROBE: join(dir, 'probe') };
const nodeArgs = [...NODE_ARGS, '--import', pathToFileURL(probe).href];

const runs = [
  { name: 'bare Ink app', script: hello, args: [], ready: (s) => s.includes('hello from') },
  { name: 'keydeck monitor', script: CLI, args: ['monitor', '--interval', '2'], ready: (s) => /remaining/i.test(s) && /\$\d/.test(s) },
  { name: 'keydeck TUI', script: CLI, args: ['--interval', '2'], ready: (s) => s.includes('service-19') },
];
for (const r of runs) {
  r.app = spawnTimed(r.script, r.args, { env: { ...env, ...probeEnv }, columns: 100, rows: 30, nodeArgs });
  // Resident memory 8 s after the start, as a user sees it in `top` once the app has settled.
  r.at8s = new Promise((resolve) => setTimeout(() => resolve(status(r.app.pid)), 8_000));
  await r.app.waitForScreen(r.ready, 30_000);
  r.samples = [];
}
const started = Date.now();
while (Date.now() - started < RUN_S * 1000) {
  await new Promise((resolve) => setTimeout(resolve, SAMPLE_S * 1000));
  const t = (Date.now() - started) / 1000;
  for (const r of runs) r.samples.push({ t, ...status(r.app.pid) });
}
for (const r of runs) {
  const last = r.samples.filter((s) => s.t > RUN_S - LAST_S);
  r.rss = median(last.map((s) => s.rss));
  r.anon = median(last.map((s) => s.anon));
  r.file = median(last.map((s) => s.file));
  r.threads = last.at(-1).threads;
  r.first = r.samples[0].rss;
  r.screen = r.app.screenText();
}
for (const r of runs) r.kinds = anonymousByKind(r.app.pid);
for (const r of runs) process.kill(r.app.pid, 'SIGUSR2');
await new Promise((resolve) => setTimeout(resolve, 1000));
for (const r of runs) {
  const file = `${probeEnv.KEYDECK_MEMORY_PROBE}.${r.app.pid}`;
  r.probe = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}
const alive = runs.every((r) => r.ready(r.screen));
for (const r of runs) await r.app.stop();
await sandbox.close();
if (!alive) throw new Error(`a screen was not whole at the end:\n${runs.map((r) => r.screen).join('\n----\n')}`);

for (const r of runs) r.at8s = await r.at8s;
const [base, monitor, tui] = runs;
const minutes = round(RUN_S / 60, 1);
const figures = [];
for (const r of runs) {
  figures.push({ figure: `${r.name}: resident memory after ${minutes} min (median of the last ${LAST_S} s; ${round(r.first)} MB at 10 s)`, value: `${round(r.rss)} MB` });
  figures.push({ figure: `${r.name}: of which anonymous (heaps, malloc) / file (code pages) / threads`, value: `${round(r.anon)} / ${round(r.file)} MB / ${r.threads}` });
  figures.push({
    figure: `${r.name}: anonymous at the end, by kind: glibc's thread arenas / its main arena / V8's pages (spaces and pool) / other`,
    value: `${round(r.kinds.threadArenas)} / ${round(r.kinds.mainArena)} / ${round(r.kinds.v8Pages)} / ${round(r.kinds.other)} MB`,
  });
  if (r.probe) {
    const mb = (bytes) => round(bytes / 2 ** 20, 1);
    const { spaces, code, usage } = r.probe;
    const space = (name) => (spaces[name] ? `${mb(spaces[name].size)} (${mb(spaces[name].used)})` : '—');
    figures.push({
      figure: `${r.name}: V8 heap by space at the end, MB (used): new / old / code / trusted / large object / other`,
      value: `${space('new_space')} / ${space('old_space')} / ${space('code_space')} / ${space('trusted_space')} / ${space('large_object_space')} / ${mb(
        Object.entries(spaces)
          .filter(([n]) => !['new_space', 'old_space', 'code_space', 'trusted_space', 'large_object_space'].includes(n))
          .reduce((a, [, s]) => a + s.size, 0),
      )}`,
    });
    figures.push({
      figure: `${r.name}: bytecode and metadata / compiled code / script sources / array buffers / external memory (Yoga's wasm memory among it), MB`,
      value: `${mb(code.bytecode_and_metadata_size)} / ${mb(code.code_and_metadata_size)} / ${mb(code.external_script_source_size)} / ${mb(usage.arrayBuffers)} / ${mb(usage.external - usage.arrayBuffers)}`,
    });
  }
}
figures.push({ figure: 'resident memory 8 s after the start: bare Ink app / monitor / TUI', value: `${round(base.at8s.rss)} / ${round(monitor.at8s.rss)} / ${round(tui.at8s.rss)} MB` });
figures.push(atMost('keydeck TUI ÷ bare Ink app, 8 s after the start (100×30)', round(tui.at8s.rss / base.at8s.rss, 2), 1.35, '×'));
figures.push(atMost(`keydeck monitor ÷ bare Ink app (after ${minutes} min at a 2 s interval)`, round(monitor.rss / base.rss, 2), 1.2, '×'));
figures.push(atMost(`keydeck TUI ÷ bare Ink app (after ${minutes} min at a 2 s interval)`, round(tui.rss / base.rss, 2), 1.35, '×'));
report('memory', `Resident memory left open (${minutes} min, 100×30, --interval 2)`, figures);
