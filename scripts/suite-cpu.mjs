// `npm run test:cpu [-- vitest arguments]`: runs the suites (`vitest run`, with the arguments
// given) with test/cpu-probe.ts in every file, then prints where their CPU time went: each
// project's total, and the files that cost most, as the CPU time of the test's own process
// (in-process work and the CLI runs in worker threads) and of its child processes (the CLI and
// the TUI as processes, sandboxes, npm, anvil, D-Bus), with the wall time. On a CPU-bound
// machine these, not the wall times of single files, say what would make `npm test` faster.
// The rows stay in node_modules/.cache/keydeck/suite-cpu.tsv until the next run. Exits with vitest's code.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'node_modules', '.cache', 'keydeck', 'suite-cpu.tsv');
mkdirSync(dirname(out), { recursive: true });
rmSync(out, { force: true });
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env: { ...process.env, KEYDECK_TEST_CPU: out } });

let rows = [];
try {
  rows = readFileSync(out, 'utf8').trim().split('\n').filter(Boolean).map((line) => {
    const [file, project, self, children, wall] = line.split('\t');
    return { file, project, self: Number(self), children: Number(children), wall: Number(wall) };
  });
} catch {
  console.error('suite-cpu: no file reported its CPU time');
}
const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
const projects = new Map();
for (const row of rows) {
  const total = projects.get(row.project) ?? { files: 0, self: 0, children: 0 };
  projects.set(row.project, { files: total.files + 1, self: total.self + row.self, children: total.children + row.children });
}
console.log(`\nCPU time of the suites, s (rows in ${out})\n`);
console.log(`${'project'.padEnd(10)} files    self children   total`);
for (const [name, t] of projects) console.log(`${(name || '-').padEnd(10)} ${String(t.files).padStart(5)} ${s(t.self)}  ${s(t.children)} ${s(t.self + t.children)}`);
console.log(`\n   self children   total    wall  file`);
for (const row of rows.sort((a, b) => b.self + b.children - (a.self + a.children)).slice(0, 30)) {
  console.log(`${s(row.self)}  ${s(row.children)} ${s(row.self + row.children)} ${s(row.wall)}  ${row.file}`);
}
process.exit(run.status ?? 1);
