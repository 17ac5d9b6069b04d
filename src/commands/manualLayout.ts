/**
 * How `keydeck help TOPIC` lays the manual's blocks out at a terminal's width (./manual.ts):
 * prose wrapped by display width (string-width: wide characters count twice), code lines wider
 * than the width broken with a `↪` continuation, and tables as aligned columns when they fit, else
 * as a list, one row a block (its first cell, then the others under it, each named by its column
 * when there are more than two). No line is wider than the width, except a word wider than a
 * whole line, which is broken too.
 */
import stringWidth from 'string-width';

/** Stands for a space inside a code span while prose is wrapped, so that a span is never broken. */
export const KEEP = '\u0000';

/** Display width, a {@link KEEP} counting as the space it stands for. */
function widthOf(text: string): number {
  return stringWidth(text.replaceAll(KEEP, ' '));
}

/** A word wider than `room` columns, in pieces of at most `room` (by code point, by display width). */
function breakWord(word: string, room: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  for (const char of word) {
    if (piece !== '' && widthOf(piece + char) > room) {
      pieces.push(piece);
      piece = '';
    }
    piece += char;
  }
  if (piece !== '') pieces.push(piece);
  return pieces;
}

/**
 * `text` (one line) wrapped at `width` columns; the first line after `first`, the others after
 * `rest`. A code span ({@link KEEP} between its words) stays whole unless it is wider than a line;
 * a word wider than a line is broken. The {@link KEEP}s are spaces again in the result.
 */
export function wrap(text: string, width: number, first = '', rest = ''): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  const room = Math.max(1, width - widthOf(rest));
  const words = text
    .split(/[ \t\n]+/)
    .flatMap((w) => (widthOf(w) > room ? w.split(KEEP) : [w]))
    .flatMap((w) => (widthOf(w) > room ? breakWord(w, room) : [w]));
  for (const word of words.filter(Boolean)) {
    if (!empty && widthOf(line) + 1 + widthOf(word) > width) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines.map((l) => l.replaceAll(KEEP, ' '));
}

/** `text` cut after at most `room` columns, at its last space when one is in the last third. */
function cutAt(text: string, room: number): [string, string] {
  const [head = ''] = breakWord(text, room);
  const space = head.lastIndexOf(' ');
  const at = space > (head.length * 2) / 3 && head.length < text.length ? space + 1 : head.length;
  return [text.slice(0, at).trimEnd(), text.slice(at)];
}

/** A code line (already indented) at most `width` wide: the rest on lines of its own after `↪ `, at a space where one is near. */
export function codeLines(line: string, width: number): string[] {
  if (stringWidth(line) <= width) return [line];
  const lead = `${/^\s*/.exec(line)![0]}↪ `;
  const room = Math.max(10, width - stringWidth(lead));
  let [head, rest] = cutAt(line, width);
  const out = [head];
  while (rest !== '') {
    [head, rest] = cutAt(rest, room);
    out.push(`${lead}${head}`);
  }
  return out;
}

/**
 * The cells of a table row (`| a | b \| c | \`d|e\` |`): split at the `|`s outside code spans
 * and not escaped; each trimmed, as written (inline Markdown still in).
 */
export function tableCells(row: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let code = false;
  const text = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\\' && text[i + 1] === '|') {
      cell += '\\|';
      i++;
    } else if (char === '`') {
      code = !code;
      cell += char;
    } else if (char === '|' && !code) {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += char;
    }
  }
  cells.push(cell.trim());
  return cells;
}

/** True for a table's alignment row (`|---|:--:|`). */
export function isAlignmentRow(row: string): boolean {
  return /^\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$/.test(row.trim());
}

/**
 * A table at `width` columns: `header` and `rows` are cells already made plain (code spans'
 * spaces as {@link KEEP}). Aligned columns (two spaces apart, the header underlined) when every
 * row fits; else one block a row: its first cell (its first non-empty one), then each other
 * non-empty cell four spaces in, wrapped, named `header:` when the table has more than two columns.
 */
export function layoutTable(header: readonly string[], rows: readonly (readonly string[])[], width: number): string[] {
  const columns = Math.max(header.length, ...rows.map((r) => r.length));
  const plain = (cell: string | undefined) => (cell ?? '').replaceAll(KEEP, ' ');
  const widths = Array.from({ length: columns }, (_, i) => Math.max(stringWidth(plain(header[i])), ...rows.map((r) => stringWidth(plain(r[i])))));
  const total = widths.reduce((a, b) => a + b, 0) + 2 * (columns - 1);
  if (total <= width) {
    const line = (cells: readonly string[]) =>
      Array.from({ length: columns }, (_, i) => (i === columns - 1 ? plain(cells[i]) : plain(cells[i]) + ' '.repeat(widths[i]! - stringWidth(plain(cells[i])))))
        .join('  ')
        .trimEnd();
    return [line(header), widths.map((w) => '-'.repeat(Math.max(1, w))).join('  '), ...rows.map(line)];
  }
  const out: string[] = [];
  for (const row of rows) {
    const first = row.findIndex((cell) => cell.trim() !== '');
    if (first === -1) continue;
    out.push(...wrap(row[first]!, width, '', '  '));
    for (let i = first + 1; i < row.length; i++) {
      const cell = row[i]!.trim();
      if (cell === '') continue;
      const name = columns > 2 && plain(header[i]).trim() !== '' ? `${plain(header[i]).trim()}:` : '';
      const firstWord = cell.split(' ')[0] ?? '';
      if (name !== '' && widthOf(`    ${name} ${firstWord}`) > width) {
        // A long column name: on its own line(s), the cell under it.
        out.push(...wrap(name, width, '    ', '    '), ...wrap(cell, width, '      ', '      '));
      } else {
        out.push(...wrap(cell, width, `    ${name}${name === '' ? '' : ' '}`, '    '));
      }
    }
  }
  return out;
}
