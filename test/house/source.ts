/**
 * Reading src/ for the house tests: its files, and its text with comments, strings and regular
 * expressions blanked out (positions kept), so that a pattern matches code only.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every .ts/.tsx file under src/, relative to the root. */
export function sourceFiles(dir = path.join(ROOT, 'src')): string[] {
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
  return scan(text).code;
}

/**
 * `text` with only the contents of its strings and template texts kept (at the same positions):
 * code, comments and regular expression literals are replaced by spaces, a template's `${…}` too.
 */
export function literalsOnly(text: string): string {
  return scan(text).literals;
}

/** The code of `text` ({@link codeOnly}) and its literals ({@link literalsOnly}), from one reading. */
function scan(text: string): { code: string; literals: string } {
  const out = text.split('');
  const lit: string[] = text.split('').map((c) => (c === '\n' ? c : ' '));
  const blank = (from: number, to: number, literal = false): void => {
    for (let k = from; k < to; k++) {
      if (literal) lit[k] = text[k]!;
      if (out[k] !== '\n') out[k] = ' ';
    }
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
        blank(from, j, true);
        return j + 1;
      } else if (text[j] === '$' && text[j + 1] === '{') {
        blank(from, j, true);
        templates.push(0);
        return j + 2;
      } else j++;
    }
    blank(from, j, true);
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
      blank(i + 1, j, true);
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
        else if (text[j] === '[') {
          inClass = true;
          j++;
        } else if (text[j] === ']') {
          inClass = false;
          j++;
        } else if (text[j] === '/' && !inClass) break;
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
  return { code: out.join(''), literals: lit.join('') };
}

/** The index of the bracket closing the one at `open` (`{` or `(`) in code. */
export function closing(code: string, open: number): number {
  const pair: Record<string, string> = { '{': '}', '(': ')' };
  const want = pair[code[open]!]!;
  let depth = 0;
  for (let j = open; j < code.length; j++) {
    if (code[j] === code[open]) depth++;
    else if (code[j] === want && --depth === 0) return j;
  }
  return code.length;
}
