// `npm run test:cpu [-- vitest arguments]`: runs the suites (`vitest run`, with the arguments
// given) with test/cpu-probe.ts in every file, then prints where their CPU time went: each
// project's total, how busy the machine's CPUs were along the run, and the files that cost most,
// as the CPU time of the test's own process (in-process work and the CLI runs in its thread)
// and of its child processes (the CLI and the TUI as processes, sandboxes, npm, anvil, D-Bus), with
// the wall time and how many times each file started the built CLI (test/cli-starts.ts). On a
// CPU-bound machine these, not the wall times of single files, say what would make `npm test`
// faster; the busy figures say whether it is CPU-bound.
// The rows stay in node_modules/.cache/keydeck/suite-cpu.tsv until the next run. Exits with vitest's code.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'node_modules', '.cache', 'keydeck', 'suite-cpu.tsv');
mkdirSync(dirname(out), { recursive: true });
rmSync(out, { force: true });

/** The machine's CPU time so far, ms, all CPUs together: busy and total (Node's `os.cpus()`). */
function cpuTimes() {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    busy += times.user + times.nice + times.sys + times.irq;
    total += times.user + times.nice + times.sys + times.irq + times.idle;
  }
  return { busy, total };
}

// How busy the CPUs were, sampled every second while vitest runs (the share of all CPUs' time).
const busy = [];
let last = cpuTimes();
const sampler = setInterval(() => {
  const now = cpuTimes();
  if (now.total > last.total) busy.push((now.busy - last.busy) / (now.total - last.total));
  last = now;
}, 1000);

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const started = performance.now();
const child = spawn(process.execPath, [vitest, 'run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env: { ...process.env, KEYDECK_TEST_CPU: out } });
const status = await new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
clearInterval(sampler);
const wallS = (performance.now() - started) / 1000;

let rows = [];
try {
  rows = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [file, project, self, children, wall, thread, proc, pty] = line.split('\t');
      return { file, project, self: Number(self), children: Number(children), wall: Number(wall), starts: [Number(thread), Number(proc), Number(pty)] };
    });
} catch {
  console.error('suite-cpu: no file reported its CPU time');
}
const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
const n = (count) => String(count).padStart(5);
const projects = new Map();
for (const row of rows) {
  const t = projects.get(row.project) ?? { files: 0, self: 0, children: 0, starts: [0, 0, 0] };
  projects.set(row.project, { files: t.files + 1, self: t.self + row.self, children: t.children + row.children, starts: t.starts.map((c, i) => c + row.starts[i]) });
}
console.log(`\nCPU time of the suites, s, and the built CLI's starts (rows in ${out})\n`);
console.log(`${'project'.padEnd(10)} files    self children   total  thread  process  pty`);
for (const [name, t] of projects) {
  console.log(`${(name || '-').padEnd(10)} ${n(t.files)} ${s(t.self)}  ${s(t.children)} ${s(t.self + t.children)}   ${n(t.starts[0])}    ${n(t.starts[1])} ${n(t.starts[2])}`);
}
if (busy.length > 0) {
  const mean = busy.reduce((a, b) => a + b, 0) / busy.length;
  const tens = [];
  for (let i = 0; i < busy.length; i += 10) {
    const slice = busy.slice(i, i + 10);
    tens.push(Math.round((100 * slice.reduce((a, b) => a + b, 0)) / slice.length));
  }
  console.log(`\n${wallS.toFixed(0)} s; the ${cpus().length} CPUs were ${Math.round(100 * mean)} % busy (by the machine's count, whatever ran). Each 10 s, %:`);
  console.log(tens.join(' '));
}
console.log(`\n   self children   total    wall  thread process  pty  file`);
for (const row of rows.sort((a, b) => b.self + b.children - (a.self + a.children)).slice(0, 30)) {
  console.log(`${s(row.self)}  ${s(row.children)} ${s(row.self + row.children)} ${s(row.wall)}   ${n(row.starts[0])}   ${n(row.starts[1])} ${n(row.starts[2])}  ${row.file}`);
}
process.exit(status);
