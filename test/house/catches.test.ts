/**
 * No silent catch (docs/architecture.md, "The error type"): every `catch` of src/ (a `try`'s
 * `catch` clause, or a promise's `.catch(…)` callback) uses its error, throws, or carries a comment
 * saying why dropping the error is safe, on the `catch` line, the line above it or the first line
 * of its body. The source is read with its comments, strings and regular expressions blanked out
 * (positions kept), so a `catch` in a string or a comment does not count and a brace in one does
 * not end a block.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every .ts/.tsx file under src/, relative to the root. */
function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path.relative(ROOT, full)] : [];
  });
}

/**
 * `text` with every comment, string, template text and regular expression literal replaced by
 * spaces (line breaks kept), so that what is left is code, at the same positions. A template's
 * `${…}` stays code. A `/` starts a regular expression where an expression may start.
 */
export function codeOnly(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  /** Open braces of each `${` in the templates we are in (a stack): a `}` at depth 0 closes it. */
  const templates: number[] = [];
  let i = 0;
  let lastCode = '';
  const regexMayStart = (): boolean => lastCode === '' || /[(,=:[!&|?{};+\-*%<>~^]$/.test(lastCode) || /\b(return|typeof|case|do|else|in|of|void|yield|await)$/.test(lastCode);
  const readTemplateText = (from: number): number => {
    // From inside a template's text to its end (`) or to a `${`; returns the index after it.
    let j = from;
    while (j < text.length) {
      if (text[j] === '\\') j += 2;
      else if (text[j] === '`') {
        blank(from, j);
        return j + 1;
      } else if (text[j] === '$' && text[j + 1] === '{') {
        blank(from, j);
        templates.push(0);
        return j + 2;
      } else j++;
    }
    blank(from, j);
    return j;
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
      lastCode = 'x';
    } else if (c === '`') {
      i = readTemplateText(i + 1);
      lastCode = 'x';
    } else if (c === '/' && regexMayStart()) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n') {
        if (text[j] === '\\') j += 2;
        else if (text[j] === '[') (inClass = true), j++;
        else if (text[j] === ']') (inClass = false), j++;
        else if (text[j] === '/' && !inClass) break;
        else j++;
      }
      blank(i + 1, j);
      i = j + 1;
      lastCode = 'x';
    } else if (templates.length > 0 && c === '{') {
      templates[templates.length - 1]!++;
      i++;
      lastCode = c;
    } else if (templates.length > 0 && c === '}') {
      if (templates[templates.length - 1] === 0) {
        templates.pop();
        i = readTemplateText(i + 1);
        lastCode = 'x';
      } else {
        templates[templates.length - 1]!--;
        i++;
        lastCode = c;
      }
    } else {
      if (!/\s/.test(c)) lastCode = /[\w$]/.test(c) ? (/[\w$]$/.test(lastCode) ? lastCode + c : c) : c;
      i++;
    }
  }
  return out.join('');
}

/** The index of the bracket closing the one at `open` (`{` or `(`) in code. */
function closing(code: string, open: number): number {
  const pair: Record<string, string> = { '{': '}', '(': ')' };
  const want = pair[code[open]!]!;
  let depth = 0;
  for (let j = open; j < code.length; j++) {
    if (code[j] === code[open]) depth++;
    else if (code[j] === want && --depth === 0) return j;
  }
  return code.length;
}

/** `file:line: the line` of each catch in `text` that drops its error without a comment saying why. */
export function silentCatches(file: string, text: string): string[] {
  const code = codeOnly(text);
  const lines = text.split('\n');
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length - 1;
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
