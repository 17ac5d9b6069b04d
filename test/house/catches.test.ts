/**
 * No silent catch (docs/architecture.md, "The error type"): every `catch` of src/ (a `try`'s
 * `catch` clause, or a promise's `.catch(…)` callback) uses its error, throws, or carries a comment
 * saying why dropping the error is safe, on the `catch` line, the line above it or the first line
 * of its body. The source is read with its comments, strings and regular expressions blanked out
 * (positions kept), so a `catch` in a string or a comment does not count and a brace in one does
 * not end a block.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closing, codeOnly, ROOT, sourceFiles } from './source.js';

/** `file:line: the line` of each catch in `text` that drops its error without a comment saying why. */
function silentCatches(file: string, text: string): string[] {
  const code = codeOnly(text);
  const lines = text.split('\n');
  const starts = [0, ...[...text.matchAll(/\n/g)].map((m) => m.index + 1)];
  const lineOf = (index: number): number => {
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= index) line++;
    return line;
  };
  const commented = (line: number): boolean => [line - 1, line, line + 1].some((n) => /\/\/|\/\*/.test(lines[n] ?? ''));
  const drops = (body: string, name: string | undefined): boolean => !/\bthrow\b/.test(body) && (name === undefined || !new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(body));
  const found: string[] = [];
  // `catch {` and `catch (error) {`
  for (const m of code.matchAll(/(?<![\w$.])catch\s*(?:\(\s*([\w$]+)[^)]*\))?\s*\{/g)) {
    const open = m.index + m[0].length - 1;
    const line = lineOf(m.index);
    if (drops(code.slice(open, closing(code, open)), m[1]) && !commented(line)) found.push(`${file}:${line + 1}: ${lines[line]!.trim()}`);
  }
  // `.catch(() => …)` and `.catch((error) => …)`; a named handler (`.catch(report)`) uses it.
  for (const m of code.matchAll(/\.catch\(\s*(?:async\s*)?(?:\(\s*([\w$]*)[^)]*\)|([\w$]+))\s*=>/g)) {
    const open = m.index + '.catch'.length;
    const line = lineOf(m.index);
    const body = code.slice(m.index + m[0].length, closing(code, open));
    if (drops(body, m[1] || m[2] || undefined) && !commented(line)) found.push(`${file}:${line + 1}: ${lines[line]!.trim()}`);
  }
  return found;
}

describe('the house', () => {
  it('has no silent catch: each uses its error, throws, or says why dropping it is safe', () => {
    const silent = sourceFiles().flatMap((file) => silentCatches(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(silent, 'use the error, rethrow, or add a comment (on the catch line, above it, or first in its body) saying why dropping it is safe').toEqual([]);
  });

  it('tells a silent catch from one that uses, rethrows or explains', () => {
    const cases: Array<[string, boolean]> = [
      ['try { a(); } catch {\n  return 0;\n}', true],
      ['try { a(); } catch (error) {\n  log(error);\n}', false],
      ['try { a(); } catch (e) {\n  throw new Wrapped();\n}', false],
      ['try { a(); } catch {\n  // the file may be gone: nothing to undo\n  return 0;\n}', false],
      ['const s = "catch {"; const t = `${x} catch { }`;', false],
      ['try { a(); } catch {\n  b("}");\n  return c(/}/);\n}', true],
      ['p.catch(() => undefined);', true],
      ['p.catch((error) => report(error));', false],
      ['p.catch(report);', false],
      ['p.catch(() => undefined); // a missing file is fine', false],
    ];
    expect(cases.map(([text]) => silentCatches('x.ts', text).length > 0)).toEqual(cases.map(([, silent]) => silent));
  });
});
