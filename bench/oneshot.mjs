// One-shot commands benchmark (not a test): a command in a script, a shell loop or a Tab of
// completion, whole process (spawn → exit, `node dist/cli.js …`), beside `node -e 0` on the same
// Node in the same run. Each round runs every command class once, one after another, in the same
// order, so all see the same machine load; the figures are medians of the rounds, the ratios are
// the command's median ÷ `node -e 0`'s, and the spread is the lowest and highest ratio of a round.
// Command classes:
//   - `keydeck --version`: the executable alone (src/bin.ts answers it, loading nothing);
//   - a completion request, what Tab runs: `keydeck __complete -- keys ''` (the command tree) and
//     `keydeck __complete -- --profile ''` (profile names from the config file);
//   - a read of the service, `keydeck keys list --json` and `keydeck billing credits`, against a
//     sandbox on loopback (a child process, in memory), the key in KEYDECK_TOKEN.
// CPU (user + system of the command's process, /proc/self/stat's children times) is given per run
// beside the wall time: on a shared machine it moves less than the wall time.
// Targets (docs/performance.md): keys list ≤ 3× node -e 0, --version ≤ 1.3×, a completion request ≤ 1.5×.
// BENCH_QUICK=1: 5 rounds.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atMost, benchEnv, CLI, createManagementKey, median, QUICK, report, round, startSandboxProcess } from './fixtures/harness.mjs';

const ROUNDS = QUICK ? 5 : 30;
const TICKS_PER_S = 100;

/** CPU time (ms) of this process's waited-for children so far (Linux /proc; 10 ms ticks). */
function childrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command name: cutime is field 16, cstime 17 (1-based in proc(5)).
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_S;
}

/** Runs `node ...args` once; `{ wall, cpu }` in ms. Throws when it exits non-zero or says nothing it should. */
function timed(args, env, expect) {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const wall = performance.now() - start;
  const cpu = childrenCpuMs() - cpuBefore;
  if (r.status !== 0 || (expect && !expect(r.stdout))) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stdout.slice(0, 300)} ${r.stderr.slice(0, 500)}`);
  return { wall, cpu };
}

const sandbox = await startSandboxProcess();
const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-oneshot-'));
const env = benchEnv(dir, { KEYDECK_TOKEN: await createManagementKey(sandbox.url, sandbox.token, 'oneshot bench'), KEYDECK_BASE_URL: sandbox.url });
// A profile in the config file, for the profile-name completion (the sandbox's URL, no key stored).
spawnSync(process.execPath, [CLI, 'profile', 'add', 'bench', '--base-url', sandbox.url], { env, stdio: 'ignore' });

const classes = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'keydeck --version', args: [CLI, '--version'], expect: (out) => /^\d+\.\d+\.\d+/.test(out), target: 1.3 },
  { name: "completion: keydeck __complete -- keys ''", args: [CLI, '__complete', '--', 'keys', ''], expect: (out) => out.includes('list'), target: 1.5 },
  { name: "completion: keydeck __complete -- --profile ''", args: [CLI, '__complete', '--', '--profile', ''], expect: (out) => out.includes('bench'), target: 1.5 },
  { name: 'keydeck keys list --json (loopback sandbox)', args: [CLI, 'keys', 'list', '--json'], expect: (out) => out.trimStart().startsWith('['), target: 3 },
  { name: 'keydeck billing credits (loopback sandbox)', args: [CLI, 'billing', 'credits'], expect: (out) => out.length > 0, target: 3 },
];
const runs = new Map(classes.map((c) => [c.name, []]));
try {
  for (let i = 0; i <= ROUNDS; i++) {
    const round = classes.map((c) => timed(c.args, env, c.expect));
    if (i === 0) continue; // warm-up round: the file cache, the compile cache's first write
    classes.forEach((c, j) => runs.get(c.name).push(round[j]));
  }
} finally {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}

const base = runs.get('node -e 0');
const baseWall = median(base.map((r) => r.wall));
const baseCpu = base.reduce((s, r) => s + r.cpu, 0) / base.length;
const figures = [];
for (const c of classes) {
  const rs = runs.get(c.name);
  const wall = median(rs.map((r) => r.wall));
  const cpu = rs.reduce((s, r) => s + r.cpu, 0) / rs.length;
  figures.push({ figure: `${c.name}: spawn → exit, median of ${rs.length} (CPU ${round(cpu)} ms a run, mean)`, value: round(wall), unit: 'ms' });
  if (c.target === undefined) continue;
  const perRound = rs.map((r, k) => r.wall / base[k].wall).sort((a, b) => a - b);
  const spread = `${round(perRound[Math.floor(perRound.length * 0.1)], 2)}–${round(perRound[Math.ceil(perRound.length * 0.9) - 1], 2)}×`;
  figures.push(atMost(`${c.name} ÷ node -e 0 (medians; rounds' ratios p10–p90 ${spread})`, round(wall / baseWall, 2), c.target, '×'));
  // The same in CPU time, which a busy machine moves less (the lead's quiet machine decides the wall ratio).
  figures.push({ figure: `${c.name} ÷ node -e 0 in CPU time (means)`, value: round(cpu / baseCpu, 2), unit: '×' });
}
report('oneshot', `one-shot commands: spawn → exit, ${ROUNDS} rounds after a warm-up round, beside node -e 0`, figures);
