/**
 * The crash tables of docs/crash-safety.md, kept equal to what the walks produce: a walk's table
 * goes between `<!-- crash:NAME -->` and `<!-- /crash:NAME -->`. With
 * `KEYDECK_UPDATE_CRASH_TABLES=1` the test writes it there instead of comparing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT } from '../credentials/harness.js';

const PAGE = path.join(ROOT, 'docs', 'crash-safety.md');

/** Asserts (or, with KEYDECK_UPDATE_CRASH_TABLES=1, writes) the table of `name` in docs/crash-safety.md. */
export function expectCrashTable(name: string, table: string): void {
  const text = readFileSync(PAGE, 'utf8');
  const open = `<!-- crash:${name} -->\n`;
  const close = `<!-- /crash:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end < start) throw new Error(`docs/crash-safety.md has no block ${open.trim()} … ${close}`);
  const current = text.slice(start + open.length, end);
  const wanted = `${table}\n`;
  if (process.env.KEYDECK_UPDATE_CRASH_TABLES === '1') {
    writeFileSync(PAGE, text.slice(0, start + open.length) + wanted + text.slice(end));
    return;
  }
  expect(current, `docs/crash-safety.md's table "${name}" (KEYDECK_UPDATE_CRASH_TABLES=1 npx vitest run test/crash rewrites it)`).toBe(wanted);
}
