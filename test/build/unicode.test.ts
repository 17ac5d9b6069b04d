/**
 * The build's lazy Unicode tables (scripts/build.mjs, `lazyUnicodeStaticsPlugin`): string-width,
 * slice-ansi and wrap-ansi, bundled as keydeck bundles them, measure, cut and wrap exactly as the
 * packages do, and build no `Intl.Segmenter` and no `\p{…}` regex when they load, only when a
 * line needs one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import sliceAnsi from 'slice-ansi';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInFreshNode } from '../fresh-node.js';
// @ts-expect-error -- the build script is plain JavaScript without declarations
import { bundleOptions, lazyStatics } from '../../scripts/build.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Lines that take each path of string-width: ASCII, wide, emoji (RGI, ZWJ, keycap), marks, invisible, Hangul jamo. */
const LINES = [
  'keys list',
  '\u001b[31mred\u001b[39m and plain',
  '古池や蛙飛び込む',
  'ok 👍🏽 done',
  'family 👨‍👩‍👧 here',
  'keycap 1️⃣ and 1⃣',
  'cafe\u0301 naïve',
  'zero\u200bwidth\u2066bidi\u2069',
  '\u1100\u1161\u11a8 jamo',
  'ab\u0903cd spacing mark',
  '─ box ▶ ● · —',
];

let dir: string;
let bundle: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-unicode-'));
  bundle = path.join(dir, 'out', 'entry.js');
  const empty = path.join(dir, 'empty.js');
  writeFileSync(empty, 'export default {};\n');
  await build({
    ...(bundleOptions(empty) as object),
    stdin: {
      contents: "export { default as stringWidth } from 'string-width'; export { default as sliceAnsi } from 'slice-ansi'; export { default as wrapAnsi } from 'wrap-ansi';",
      resolveDir: ROOT,
      sourcefile: 'entry.js',
    },
    splitting: false,
    outfile: bundle,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `body` in a fresh Node after counting every `Intl.Segmenter` and `RegExp` built from then on. */
function inFreshNode<T>(body: string): T {
  const program = `
    const counts = { segmenters: 0, unicodeRegexes: 0 };
    const Segmenter = Intl.Segmenter;
    Intl.Segmenter = class extends Segmenter { constructor(...a) { super(...a); counts.segmenters++; } };
    globalThis.RegExp = new Proxy(RegExp, { construct(target, args) { if (String(args[0]).includes('\\\\p{')) counts.unicodeRegexes++; return Reflect.construct(target, args); } });
    const m = await import(${JSON.stringify(`file://${bundle}`)});
    ${body}`;
  return runInFreshNode<T>(program);
}

describe('the lazy Unicode tables of the bundle', () => {
  it('measure, cut and wrap every kind of line exactly as the packages do', () => {
    const got = inFreshNode<{ widths: number[]; slices: string[]; wraps: string[] }>(`
      const lines = ${JSON.stringify(LINES)};
      process.stdout.write(JSON.stringify({
        widths: lines.map((l) => m.stringWidth(l)),
        slices: lines.map((l) => m.sliceAnsi(l, 1, 9)),
        wraps: lines.map((l) => m.wrapAnsi(l, 6, { hard: true })),
      }));`);
    expect(got.widths).toEqual(LINES.map((l) => stringWidth(l)));
    expect(got.slices).toEqual(LINES.map((l) => sliceAnsi(l, 1, 9)));
    expect(got.wraps).toEqual(LINES.map((l) => wrapAnsi(l, 6, { hard: true })));
  });

  it('build no segmenter and no \\p{…} regex when they load, and build them for the first line that needs them', () => {
    const counts = inFreshNode<{ atLoad: { segmenters: number; unicodeRegexes: number }; ascii: number; emoji: { segmenters: number; unicodeRegexes: number } }>(`
      const atLoad = { ...counts };
      m.stringWidth('plain ascii'); m.stringWidth('─ box ▶');
      const ascii = counts.segmenters + counts.unicodeRegexes;
      m.stringWidth('ok 👍🏽'); m.stringWidth('ok 👍🏽 again');
      process.stdout.write(JSON.stringify({ atLoad, ascii, emoji: { ...counts } }));`);
    expect(counts.atLoad).toEqual({ segmenters: 0, unicodeRegexes: 0 });
    expect(counts.ascii).toBe(0);
    // string-width's segmenter and its regexes, each built once.
    expect(counts.emoji.segmenters).toBe(1);
    expect(counts.emoji.unicodeRegexes).toBeGreaterThanOrEqual(2);
    expect(counts.emoji.unicodeRegexes).toBeLessThanOrEqual(4);
  });

  it('the build fails when a declaration it makes lazy is missing or doubled (an upgrade changed the package)', () => {
    expect(() => lazyStatics('const other = 1;\n', ['segmenter'], 'x.js')).toThrow(/`const segmenter = …;` found 0 times/);
    expect(() => lazyStatics('const segmenter = 1;\nconst segmenter = 2;\n', ['segmenter'], 'x.js')).toThrow(/found 2 times/);
    const out = lazyStatics('const a = 1;\nconst segmenter = new Intl.Segmenter();\nfunction f(s) { return segmenter.segment(s); }\nx.segmenter = 3;\n', ['segmenter'], 'x.js');
    expect(out).toContain('const segmenter$lazy = () => (segmenter$value ??= new Intl.Segmenter());');
    expect(out).toContain('return segmenter$lazy().segment(s);');
    expect(out).toContain('x.segmenter = 3;');
  });
});
