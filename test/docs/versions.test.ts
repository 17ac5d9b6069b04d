/**
 * The manual's version numbers are the package's: every keydeck release a page names
 * ("renamed in 0.3", "since 0.2.0") is this package's version or an earlier one, every "Node.js ≥
 * X" is src/node-version.ts's REQUIRED_NODE (the published package.json's `engines.node`), and every Node.js major the pages (and the Dockerfile) say
 * keydeck runs on is the pinned `node` devDependency's. An upgrade that changes either updates the
 * pages with it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REQUIRED_NODE } from '../../src/node-version.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
const pages = [
  path.join(ROOT, 'README.md'),
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(ROOT, 'docs', f)),
].map((file) => ({
  file: path.relative(ROOT, file),
  text: readFileSync(file, 'utf8'),
}));

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b` (missing parts are 0). */
function compare(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0) ? -1 : 1;
  return 0;
}

describe('the version numbers of the manual', () => {
  it('name no keydeck release newer than this package', () => {
    const named: string[] = [];
    for (const { file, text } of pages) {
      for (const m of text.matchAll(/\b(?:in|since|until|before|after|from|keydeck|version)\s+v?(0\.\d+(?:\.\d+)?)\b/gi)) {
        named.push(`${file}: ${m[0]}`);
        expect(compare(m[1]!, pkg.version), `${file}: "${m[0]}" is newer than package.json's ${pkg.version}`).toBeLessThanOrEqual(0);
      }
    }
    expect(named.length).toBeGreaterThan(0);
  });

  it('say the Node.js keydeck needs as REQUIRED_NODE does, and the Node it runs on as the pinned one', () => {
    const required = REQUIRED_NODE.replace(/\.0$/, '');
    const pinnedMajor = /(\d+)/.exec(pkg.devDependencies.node!)![1]!;
    let minimums = 0;
    for (const { file, text } of pages) {
      for (const m of text.matchAll(/Node(?:\.js)?\s*(?:≥|>=)\s*(\d+(?:\.\d+)*)/g)) {
        minimums++;
        expect(m[1], `${file}: "${m[0]}"`).toBe(required);
      }
      // "Node 24", "Node.js 24": the Node a clone brings and the image runs; older ones are machines keydeck does not run on.
      for (const m of text.matchAll(/Node(?:\.js)?\s+(\d+)\b(?!\.\d)/g)) {
        if (Number(m[1]) >= Number(required.split('.')[0])) expect(m[1], `${file}: "${m[0]}"`).toBe(pinnedMajor);
      }
    }
    expect(minimums).toBeGreaterThan(0);
    const dockerfile = readFileSync(path.join(ROOT, 'contrib', 'docker', 'Dockerfile'), 'utf8');
    for (const m of dockerfile.matchAll(/^FROM \S*?(?:node|nodejs)[:]?(\d+)/gm)) expect(m[1], m[0]).toBe(pinnedMajor);
  });
});
