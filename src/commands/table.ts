/**
 * Human output of the scriptable commands (`keys`, `mgmt-keys`, `billing`): aligned tables and
 * key/value blocks measured in terminal cells (string-width, so wide characters line up), USD
 * amounts and timestamps. Colour by the one colour rule (src/terminal/color.ts); the
 * meaning is always carried by the words too. Pure, except {@link colorEnabled}'s defaults.
 */
import { styleText } from 'node:util';
import { shouldColorize, type ColorStream } from '../terminal/color.js';
import stringWidth from 'string-width';
import { visible } from '../terminal/sanitize.js';

/**
 * Text that is safe to write to a terminal as it is: every piece that did not come from keydeck
 * went through the sanitiser (src/terminal/sanitize.ts); the only escapes in it are keydeck's own
 * colours. Only {@link formatTable} and {@link formatKeyValues} make it; print it with
 * `printFormatted` (output.ts), which does not sanitise again (that would strip the colours).
 */
export type TerminalText = string & { readonly __terminalText: true };

/** A style a cell may ask for (ignored without colour). */
export type CellStyle = 'green' | 'yellow' | 'red' | 'dim';

/** A table cell: plain text, or text with a style. */
export type Cell = string | { readonly text: string; readonly style?: CellStyle };

/** Options of {@link formatTable} and {@link formatKeyValues}. */
export interface FormatOptions {
  /** Bold headers and styled cells. Default false. */
  readonly color?: boolean;
}

/**
 * True when human output on `stream` may be coloured: keydeck's one colour rule
 * (src/terminal/color.ts: Node's `util.styleText` stream validation: `FORCE_COLOR`, `NO_COLOR`,
 * `TERM=dumb`, not a terminal), the same as the TUI's.
 */
export function colorEnabled(stream: ColorStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return shouldColorize(stream, env);
}

function paint(text: string, format: 'bold' | CellStyle | undefined, color: boolean): string {
  if (!color || format === undefined || text === '') return text;
  return styleText(format, text, { validateStream: false });
}

/** The cell's text, sanitised (single line: a newline from the service shows as `\u000a`). */
function textOf(cell: Cell): string {
  return visible(typeof cell === 'string' ? cell : cell.text);
}

function padTo(text: string, width: number): string {
  const w = stringWidth(text);
  return w < width ? text + ' '.repeat(width - w) : text;
}

/**
 * Formats rows under a header, columns two spaces apart, each as wide as its widest cell in
 * terminal cells; the last column is not padded (no trailing spaces). Returns the lines joined
 * with `\n`, without a final newline. Every cell is sanitised first (src/terminal/sanitize.ts)
 * and measured after, so a hostile name can neither act on the terminal nor break the columns;
 * cells are not truncated (a pipe has no width) beyond the sanitiser's 4,096 characters. Any
 * number of rows (no argument spread: 150,000 keys format).
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly Cell[])[], options: FormatOptions = {}): TerminalText {
  const color = options.color ?? false;
  const texts = rows.map((r) => headers.map((_, i) => textOf(r[i] ?? '')));
  const headerTexts = headers.map((h) => visible(h));
  const widths = headerTexts.map((h) => stringWidth(h));
  for (const row of texts) {
    for (let i = 0; i < row.length; i++) {
      const w = stringWidth(row[i]!);
      if (w > widths[i]!) widths[i] = w;
    }
  }
  const line = (cells: readonly Cell[], row: readonly string[], header: boolean): string =>
    row
      .map((text, i) => {
        const cell = cells[i] ?? '';
        const padded = i === row.length - 1 ? text : padTo(text, widths[i]!);
        // Pad first, then paint: escape codes have no width but string-width is not asked about them.
        const style = header ? 'bold' : typeof cell === 'string' ? undefined : cell.style;
        return style === undefined ? padded : paint(text, style, color) + padded.slice(text.length);
      })
      .join('  ')
      .trimEnd();
  const lines = [line(headers, headerTexts, true)];
  for (let r = 0; r < rows.length; r++) lines.push(line(rows[r]!, texts[r]!, false));
  return lines.join('\n') as TerminalText;
}

/**
 * Formats `[label, value]` pairs as two aligned columns (labels dim with colour), labels and
 * values sanitised (src/terminal/sanitize.ts). No final newline.
 */
export function formatKeyValues(pairs: readonly (readonly [string, Cell])[], options: FormatOptions = {}): TerminalText {
  const color = options.color ?? false;
  const labels = pairs.map(([k]) => visible(k));
  let width = 0;
  for (const k of labels) width = Math.max(width, stringWidth(k));
  return pairs
    .map(([, v], i) => {
      const text = textOf(v);
      const value = typeof v === 'string' ? text : paint(text, v.style, color);
      return `${paint(padTo(labels[i]!, width), 'dim', color)}  ${value}`.trimEnd();
    })
    .join('\n') as TerminalText;
}

/**
 * An ISO 8601 timestamp for people: `2025-11-21 14:03 UTC`; `fallback` when absent; the raw
 * text when it does not parse.
 */
export function formatTimestamp(iso: string | null | undefined, fallback = '—'): string {
  if (iso === null || iso === undefined || iso === '') return fallback;
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Epoch ms as ISO 8601 to the second, UTC: `2025-11-21T14:03:07Z` (for `billing watch` lines). */
export function isoSeconds(t: number): string {
  return `${new Date(t).toISOString().slice(0, 19)}Z`;
}

/**
 * Flattens a JSON value whose shape is not documented (the service's endpoints `billing status`, `card_direct` data)
 * into `[path, value]` pairs for {@link formatKeyValues}: `balance.remaining`, `keys[0].name`.
 * Scalars print as JSON would, strings without quotes; empty arrays/objects as `[]`/`{}`.
 */
export function flattenForDisplay(value: unknown, prefix = ''): [string, string][] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [[prefix || '(value)', '[]']];
    return value.flatMap((v, i) => flattenForDisplay(v, `${prefix}[${i}]`));
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return [[prefix || '(value)', '{}']];
    return entries.flatMap(([k, v]) => flattenForDisplay(v, prefix ? `${prefix}.${k}` : k));
  }
  const text = typeof value === 'string' ? value : value === undefined ? '(empty)' : JSON.stringify(value);
  return [[prefix || '(value)', text]];
}
