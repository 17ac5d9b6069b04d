// Runs every benchmark in bench/ (each *.mjs except this one), one after another, against one
// private build of keydeck (bench/fixtures/harness.mjs buildPrivateDist: scripts/build.mjs's
// options and entry points, in a temp dir, so a rebuild of dist/ meanwhile cannot disturb a run).
// Each benchmark prints its own table and leaves its figures as JSON in a temp dir; at the end
// this prints ONE summary of every figure with its target and whether it was met, as a Markdown
// table (docs/performance.md), with the machine line.
// Usage: npm run bench               (all)
//        npm run bench -- --readme   (all, then the summary replaces docs/performance.md's <!-- bench --> block;
//                                     with names, only those benchmarks' rows are replaced)
//        npm run bench -- startup    (only those whose file name contains "startup")
//        BENCH_QUICK=1 npm run bench (shorter runs: a smoke test of the benchmarks)
// Exit code: 1 when a benchmark failed to run (a missed target is reported, not an error).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
const writeReadme = process.argv.includes('--readme');
const filters = process.argv.slice(2).filter((a) => a !== '--readme');

// Importing the harness builds keydeck once (no KEYDECK_BENCH_DIST given): every benchmark
// below gets that build through KEYDECK_BENCH_DIST.
const { DIST, machine, QUICK } = await import('./fixtures/harness.mjs');
const reports = mkdtempSync(join(tmpdir(), 'keydeck-bench-reports-'));
process.on('exit', () => rmSync(reports, { recursive: true, force: true }));

const self = basename(fileURLToPath(import.meta.url));
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== self)
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

const machineAtStart = machine();
const failed = [];
for (const file of benches) {
  console.log(`\n== ${file} ==`);
  const result = spawnSync(process.execPath, [join(here, file)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, KEYDECK_BENCH_DIST: DIST, KEYDECK_BENCH_REPORT_DIR: reports },
  });
  if (result.status !== 0) failed.push(file);
}

/** A Markdown table cell (pipes escaped). */
const cell = (v) => String(v).replaceAll('|', '\\|');
const rows = [];
// The runtime figures of the start-up and memory budgets (docs/performance.md, "The runtime
// budget"), in that table's order: [benchmark, what the figure's name starts with, the row's words].
const BUDGET = [
  ['oneshot', 'keydeck keys list --json (loopback sandbox) ÷ node -e 0 (medians', '`keydeck keys list --json`, loopback sandbox, ÷ `node -e 0`'],
  ['oneshot', 'keydeck --version ÷ node -e 0 (medians', '`keydeck --version` ÷ `node -e 0`'],
  ['oneshot', "completion: keydeck __complete -- keys '' ÷ node -e 0 (medians", 'a completion request (the command tree) ÷ `node -e 0`'],
  ['oneshot', "completion: keydeck __complete -- --profile '' ÷ node -e 0 (medians", 'a completion request (profile names) ÷ `node -e 0`'],
  ['memory', 'keydeck TUI ÷ bare Ink app, 8 s after the start', 'TUI resident memory ÷ bare Ink hello, 100×30, after 8 s'],
  ['memory', 'keydeck TUI ÷ bare Ink app (after', 'TUI resident memory ÷ bare Ink after 10 min at a 2 s interval'],
  ['soak', 'resident memory after GC: growth', 'TUI resident memory growth over a day of polls after the first hour'],
  ['soak', 'CPU while idle at the default interval', 'idle CPU of the TUI at the default interval'],
  ['usage', 'parse a usage answer of', 'parsing a usage answer of 10,000 keys'],
  ['usage', 'first frame with spend columns ÷ without', 'the spend columns ÷ the Keys pane’s first frame without'],
];
const budget = BUDGET.map(([bench, start, words]) => ({ bench, start, words, row: undefined }));
for (const file of benches) {
  const json = join(reports, `${basename(file, '.mjs')}.json`);
  if (!existsSync(json)) {
    rows.push(`| ${basename(file, '.mjs')} | (did not finish) | | | |`);
    continue;
  }
  const { bench, figures } = JSON.parse(readFileSync(json, 'utf8'));
  for (const f of figures) {
    const value = typeof f.value === 'number' ? `${f.value}${f.unit ? ` ${f.unit}` : ''}` : f.value;
    const result = f.pass === undefined ? '' : f.pass ? 'pass' : '**missed**';
    rows.push(`| ${bench} | ${cell(f.figure)} | ${cell(value)} | ${cell(f.target ?? '')} | ${result} |`);
    for (const b of budget) if (b.bench === bench && f.figure.startsWith(b.start)) b.row = `| ${cell(b.words)} | ${cell(value)} | ${cell(f.target ?? '')} | ${result} |`;
  }
}
const ran = new Set(benches.map((f) => basename(f, '.mjs')));
const budgetTable = budget.some((b) => ran.has(b.bench))
  ? [
      '',
      'The runtime budget, from the rows above (the same run):',
      '',
      '| figure | value | target | result |',
      '|---|---|---|---|',
      ...budget.filter((b) => ran.has(b.bench)).map((b) => b.row ?? `| ${cell(b.words)} | (not measured: ${b.bench} did not finish) | | |`),
    ]
  : [];
const summary = [
  '| benchmark | figure | value | target | result |',
  '|---|---|---|---|---|',
  ...rows,
  ...budgetTable,
  '',
  `Machine: ${machineAtStart} (at the start); ${machine().replace(/.*; /, '')} at the end.`,
].join('\n');
console.log(`\n== summary${QUICK ? ' (BENCH_QUICK=1: shortened runs)' : ''} ==\n`);
console.log(summary);
if (writeReadme && !QUICK && failed.length === 0) {
  const pagePath = join(root, 'docs', 'performance.md');
  const page = readFileSync(pagePath, 'utf8');
  const block = /(<!-- bench -->\n)([\s\S]*?)(<!-- \/bench -->)/;
  const found = block.exec(page);
  if (!found) throw new Error('docs/performance.md has no <!-- bench --> block');
  let text = summary;
  if (filters.length > 0) {
    // Only some benchmarks ran: their rows replace theirs in the block, the others' rows stay, and
    // the machine line says which rows come from this run.
    const ran = new Set(benches.map((f) => basename(f, '.mjs')));
    const lines = found[2].split('\n');
    // Rows of the other benchmarks only (the runtime budget's table is written by a whole run).
    const all = new Set(
      readdirSync(here)
        .filter((f) => f.endsWith('.mjs') && f !== self)
        .map((f) => basename(f, '.mjs')),
    );
    const kept = lines.filter((line) => /^\| [a-z]/.test(line) && all.has(line.split('|')[1].trim()) && !ran.has(line.split('|')[1].trim()));
    const byBench = (line) => line.split('|')[1].trim();
    const merged = [...kept, ...rows].sort((a, b) => byBench(a).localeCompare(byBench(b)));
    const before = lines.filter((line) => line.trim() !== '' && !line.startsWith('|') && !line.startsWith('The runtime budget'));
    const stamp = `The ${[...ran].join(', ')} rows are from \`node bench/run.mjs ${filters.join(' ')}\`: ${machineAtStart} (at the start); ${machine().replace(/.*; /, '')} at the end.`;
    text = ['| benchmark | figure | value | target | result |', '|---|---|---|---|---|', ...merged, '', ...before.map((l) => l.trimEnd()).filter(Boolean), stamp].join('\n');
  }
  writeFileSync(
    pagePath,
    page.replace(block, (_, open, _old, close) => `${open}${text}\n${close}`),
  );
  console.log('\nupdated docs/performance.md');
}
if (failed.length) {
  console.error(`\nfailed to run: ${failed.join(', ')}`);
  process.exit(1);
}
