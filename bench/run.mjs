// Runs every benchmark in bench/ (each *.mjs except this one), one after another, after one
// build of dist/ (`node scripts/build.mjs`). Each benchmark prints its own table.
// Usage: npm run bench            (all)
//        npm run bench -- sandbox (only those whose file name contains "sandbox")
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');
const filters = process.argv.slice(2);

const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const self = basename(fileURLToPath(import.meta.url));
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== self)
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();

const failed = [];
for (const file of benches) {
  console.log(`\n== ${file} ==`);
  const result = spawnSync(process.execPath, [join(here, file)], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) failed.push(file);
}
if (failed.length) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}
