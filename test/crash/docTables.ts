/**
 * The crash tables of docs/crash-safety.md are what the walks produced: each walk's test compares
 * its operation's marker block (`<!-- crash:NAME -->` … `<!-- /crash:NAME -->`) with the table it
 * just built, and fails when they differ. To write them again after a change (the walk is the
 * truth), run the walks with `KEYDECK_CRASH_DOCS=write`:
 *
 *     KEYDECK_CRASH_DOCS=write npx vitest run test/crash
 *
 * Also {@link distinctWorlds}: the points of a trace at which a kill can leave a different world.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../credentials/harness.js';
import type { CrashPoint } from './harness.js';

/** docs/crash-safety.md. */
export const CRASH_DOC = path.join(ROOT, 'docs', 'crash-safety.md');

/** Whether this run writes the tables instead of checking them. */
export const WRITE_DOCS = process.env.KEYDECK_CRASH_DOCS === 'write';

function bounds(text: string, name: string): { start: number; end: number } {
  const open = `<!-- crash:${name} -->`;
  const close = `<!-- /crash:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end === -1 || end < start) throw new Error(`docs/crash-safety.md has no block ${open} … ${close}`);
  return { start: start + open.length, end };
}

/** The text between the markers of `name`, trimmed. */
export function docBlock(name: string): string {
  const text = readFileSync(CRASH_DOC, 'utf8');
  const { start, end } = bounds(text, name);
  return text.slice(start, end).trim();
}

/** Writes `content` between the markers of `name` (one blank line either side). */
export function writeDocBlock(name: string, content: string): void {
  const text = readFileSync(CRASH_DOC, 'utf8');
  const { start, end } = bounds(text, name);
  writeFileSync(CRASH_DOC, `${text.slice(0, start)}\n${content.trim()}\n${text.slice(end)}`);
}

/**
 * The points of `traced` after which a kill can leave a world of its own: a `request:` point is
 * reached right after the point before it with nothing done between (the request is about to be
 * sent); the answer of a read (`reads`: operation names, `listManagementKeys`) changed nothing
 * since its request; and a `file.renamed:` point directly followed by `store.written:` or
 * `store.deleted` is the store's own write (the credential file renamed, then the store says so).
 * The first point is always kept.
 */
export function distinctWorlds(traced: readonly CrashPoint[], reads: readonly string[] = []): CrashPoint[] {
  const read = (p: string) => reads.some((op) => p.startsWith(`answered:${op}#`));
  const storeWrite = (p: string | undefined) => p !== undefined && (p.startsWith('store.written:') || p.startsWith('store.deleted'));
  return traced.filter((p, i) => i === 0 || (!p.startsWith('request:') && !(read(p) && i > 0) && !(p.startsWith('file.renamed:') && storeWrite(traced[i + 1]))));
}
