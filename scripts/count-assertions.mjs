// `npm run test:count [-- vitest arguments]`: runs the suites (`vitest run`, with the arguments
// given) with test/assertion-count.ts in every file, then prints how many tests ran and how many
// `expect(…)` calls they executed, in all, per project and for the files with most. Compare two
// runs (before and after a change to the suites) to see that none was weakened: pass `--json FILE`
// (before the vitest arguments) to keep the per-file counts, and `--against FILE` to print the
// files whose counts fell since. Exits with vitest's code (1 also when a count fell).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'node_modules', '.cache', 'keydeck', 'assertion-count.tsv');
mkdirSync(dirname(out), { recursive: true });
rmSync(out, { force: true });

const args = process.argv.slice(2);
/** Takes `--name VALUE` out of the arguments. */
function option(name) {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  return args.splice(at, 2)[1];
}
const jsonOut = option('--json');
const against = option('--against');

const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const child = spawn(process.execPath, [vitest, 'run', ...args], { cwd: root, stdio: 'inherit', env: { ...process.env, KEYDECK_TEST_COUNT: out } });
let status = await new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));

const files = {};
for (const line of readFileSync(out, 'utf8').trim().split('\n').filter(Boolean)) {
  const [file, project, tests, assertions] = line.split('\t');
  files[file] = { project, tests: Number(tests), assertions: Number(assertions) };
}
const sum = (rows) => rows.reduce((s, r) => ({ tests: s.tests + r.tests, assertions: s.assertions + r.assertions }), { tests: 0, assertions: 0 });
const all = sum(Object.values(files));
console.log(`\n${Object.keys(files).length} files: ${all.tests} tests, ${all.assertions} assertions (expect calls executed)`);
for (const project of [...new Set(Object.values(files).map((f) => f.project))].sort()) {
  const p = sum(Object.values(files).filter((f) => f.project === project));
  console.log(`  ${project}: ${p.tests} tests, ${p.assertions} assertions`);
}
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify({ total: all, files }, null, 1)}\n`);
if (against) {
  const before = JSON.parse(readFileSync(against, 'utf8'));
  console.log(`against ${against}: ${before.total.tests} → ${all.tests} tests, ${before.total.assertions} → ${all.assertions} assertions`);
  const fell = Object.entries(before.files).filter(([file, b]) => !files[file] || files[file].tests < b.tests || files[file].assertions < b.assertions);
  for (const [file, b] of fell) console.log(`  fell: ${file}: ${b.tests} → ${files[file]?.tests ?? 0} tests, ${b.assertions} → ${files[file]?.assertions ?? 0} assertions`);
  if (fell.length > 0 && status === 0) status = 1;
}
process.exit(status);
