/**
 * Setting one variable in a dotenv file's text (`--to-file PATH[:VAR]`), keeping every
 * other byte of the user's file as it was: other lines, comments, blank lines, the line ends
 * (LF or CRLF), a missing final newline. Reading is the `dotenv` package's parser (what the
 * applications that read the file use); the edit is checked against it before anything is written:
 * after the edit `dotenv.parse` must give the new value for the variable and the same value as
 * before for every other variable, else the edit is refused (nothing is written).
 *
 * What counts as an assignment (as dotenv reads it): `[export ]NAME=value`, `NAME = value`,
 * `NAME: value`, the value bare (up to a `#`), or quoted with `'`, `"` or `` ` `` (a quoted value
 * may run over several lines). A variable assigned more than once has every assignment replaced
 * (dotenv and most readers take the last one, a shell `source` too; others the first): whichever
 * one a reader takes, it gets the new key. Pure: no I/O.
 */
import { parse } from 'dotenv';
import { KeydeckError } from '../errors/index.js';

/** A variable name keydeck writes: a letter or `_`, then letters, digits, `_` (POSIX shell names). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What {@link setDotenvVariable} did. */
export interface DotenvEdit {
  /** The whole new text of the file. */
  readonly text: string;
  /** 1-based line numbers (in the old text) of the assignments replaced; empty when appended. */
  readonly replacedLines: readonly number[];
  /** True when the variable was not there and a line was added at the end. */
  readonly appended: boolean;
}

/** Why {@link setDotenvVariable} refused: one sentence, never a value from the file; code `dotenv_refused`. */
export class DotenvEditError extends KeydeckError {
  override readonly name = 'DotenvEditError';
  constructor(message: string) {
    super('dotenv_refused', message);
  }
}

/** One physical line and its terminator (`\n`, `\r\n`, `\r`, or `''` for a last line without one). */
interface Line {
  readonly body: string;
  readonly end: string;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  const re = /([^\r\n]*)(\r\n|\n|\r|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    if (m[0] === '' && re.lastIndex >= text.length) break;
    lines.push({ body: m[1]!, end: m[2]! });
    if (m[2] === '') break;
  }
  return lines;
}

/** `[ws][export ]NAME<sep>` at the start of a line, as dotenv reads it. */
const ASSIGNMENT = /^([ \t]*(?:export[ \t]+)?)([\w.-]+)([ \t]*=[ \t]*|:[ \t]+)/;

/**
 * How many lines, from `start`, the assignment at `lines[start]` spans (1 unless a quoted value
 * runs over several lines), and what follows its value on the last line (a comment), kept as is.
 */
function extentOf(lines: readonly Line[], start: number, valueStart: number): { count: number; rest: string } {
  const first = lines[start]!.body.slice(valueStart);
  const quote = first[0];
  if (quote === "'" || quote === '"' || quote === '`') {
    // The closing quote: the first unescaped one followed only by blanks or a comment.
    for (let i = start; i < lines.length; i++) {
      const body = i === start ? first : lines[i]!.body;
      let from = i === start ? 1 : 0;
      for (;;) {
        const at = body.indexOf(quote, from);
        if (at === -1) break;
        const after = body.slice(at + 1);
        if (body[at - 1] !== '\\' && /^[ \t]*(#.*)?$/.test(after)) return { count: i - start + 1, rest: after };
        from = at + 1;
      }
    }
    // Never closed: dotenv then reads the bare first line.
  }
  const hash = first.search(/[ \t]*#/);
  return { count: 1, rest: hash === -1 ? '' : first.slice(hash) };
}

/** The line end of the file's text: CRLF when it has any, else LF. */
function lineEndOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/**
 * `text` with `name` set to `value` (see the module comment). `value` must be a bare word
 * (`[A-Za-z0-9_.-]+`: an `sk_` key), written unquoted.
 * @throws DotenvEditError when `name` or `value` is not of that form, or when the edited text
 *   would not read back (dotenv) with `value` for `name` and every other variable unchanged.
 */
export function setDotenvVariable(text: string, name: string, value: string): DotenvEdit {
  if (!VARIABLE_NAME.test(name)) throw new DotenvEditError(`"${name}" is not a variable name (letters, digits and _, not starting with a digit)`);
  if (!/^[A-Za-z0-9_.-]+$/.test(value)) throw new DotenvEditError('the value is not a bare word');
  const lines = splitLines(text);
  const out: string[] = [];
  const replacedLines: number[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const m = ASSIGNMENT.exec(line.body);
    if (!m || /^[ \t]*#/.test(line.body)) {
      out.push(line.body + line.end);
      i++;
      continue;
    }
    const { count, rest } = extentOf(lines, i, m[0].length);
    const last = lines[i + count - 1]!;
    if (m[2] === name) {
      // A comment right after the old value keeps a blank before it (dotenv ends a bare value at `#`).
      out.push(`${m[1]}${name}${m[3]}${value}${rest.startsWith('#') ? ' ' : ''}${rest}${last.end}`);
      replacedLines.push(i + 1);
    } else {
      for (let j = i; j < i + count; j++) out.push(lines[j]!.body + lines[j]!.end);
    }
    i += count;
  }
  let edited = out.join('');
  const appended = replacedLines.length === 0;
  if (appended) {
    const eol = lineEndOf(text);
    if (text === '') edited = `${name}=${value}\n`;
    // A file without a final newline keeps that style: the new line goes after a line end, and none follows it.
    else if (/[\r\n]$/.test(text)) edited = `${text}${name}=${value}${eol}`;
    else edited = `${text}${eol}${name}=${value}`;
  }
  checkReadBack(text, edited, name, value);
  return { text: edited, replacedLines, appended };
}

/**
 * `text` without any assignment of `name` (every line of it, a quoted value over several lines
 * included), every other byte kept: the undo of an assignment keydeck appended.
 * @throws DotenvEditError when `name` is not a variable name, or when the result would not read
 *   back (dotenv) without `name` and with every other variable unchanged.
 */
export function removeDotenvVariable(text: string, name: string): string {
  if (!VARIABLE_NAME.test(name)) throw new DotenvEditError(`"${name}" is not a variable name (letters, digits and _, not starting with a digit)`);
  const lines = splitLines(text);
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const m = ASSIGNMENT.exec(line.body);
    if (!m || /^[ \t]*#/.test(line.body)) {
      out.push(line.body + line.end);
      i++;
      continue;
    }
    const { count } = extentOf(lines, i, m[0].length);
    if (m[2] !== name) for (let j = i; j < i + count; j++) out.push(lines[j]!.body + lines[j]!.end);
    i += count;
  }
  const edited = out.join('');
  if (parse(edited)[name] !== undefined || changedOther(text, edited, name) !== undefined) {
    throw new DotenvEditError(`removing ${name} would change how dotenv reads the file (an unusual line?), so nothing was written`);
  }
  return edited;
}

/** A variable other than `name` that dotenv reads differently in `after` than in `before`, or undefined. */
function changedOther(before: string, after: string, name: string): string | undefined {
  const old = parse(before);
  const now = parse(after);
  return [...new Set([...Object.keys(old), ...Object.keys(now)])].find((n) => n !== name && old[n] !== now[n]);
}

/** The dotenv reading of `before` and `after` agree on every variable but `name`, which is `value` after. */
function checkReadBack(before: string, after: string, name: string, value: string): void {
  if (parse(after)[name] !== value) {
    throw new DotenvEditError(`after the edit, dotenv would not read the new key from ${name} (an unusual line?), so nothing was written: set it by hand`);
  }
  const other = changedOther(before, after, name);
  if (other !== undefined) {
    throw new DotenvEditError(`the edit would change how dotenv reads ${other} (a quoted value running over several lines?), so nothing was written: set ${name} by hand`);
  }
}

/** The value of `name` as dotenv reads `text`, or undefined. */
export function readDotenvVariable(text: string, name: string): string | undefined {
  return parse(text)[name];
}
