/**
 * The one sanitiser between text keydeck did not write (the service's answers, local files) and
 * a terminal (docs/architecture.md, "Boundaries": service data → any terminal). Shared by the TUI and the
 * commands; pure, no I/O, no terminal state. src/api does not use it (it knows no terminals).
 *
 * What it guarantees for the text it returns:
 * - no C0 (U+0000–U+001F, except `\n` when asked), DEL (U+007F) or C1 (U+0080–U+009F) control,
 *   so no ESC/CSI/OSC/DCS sequence (ESC and the C1 introducers are gone, the rest is plain text);
 * - no bidi control (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069), no other format character
 *   (zero-width space, word joiner, soft hyphen, tags…), no line/paragraph separator, no lone
 *   surrogate, no noncharacter, no default-ignorable filler (Hangul fillers…);
 * - each such character is made visible as its escape, `\u200b` (BMP) or `\u{e0001}` (astral),
 *   so a name made only of invisible characters still shows, and can be typed back;
 * - the text is bounded: at most {@link VisibleOptions.maxLength} code units are looked at
 *   (default 4,096; longer text ends with `…`), and {@link VisibleOptions.maxWidth} bounds the
 *   width in terminal cells (measured after sanitising).
 * Kept as they are: emoji variation selectors after a visible character and zero-width joiners
 * between two pictographs (emoji sequences), which terminals draw as one glyph.
 */
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

/** Characters that never reach a terminal raw (see the module comment). */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/u;
/** {@link UNSAFE} without C0: `JSON.stringify` escapes C0 inside strings, and its `\n` outside them is layout. */
const JSON_UNSAFE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/gu;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
/** Fast path: printable ASCII, Latin-1 letters and the general punctuation keydeck's own text uses. */
const PLAIN = /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u00ff\u2010-\u2027\u2030-\u205e\u2190-\u23ff\u2500-\u27bf]*$/;

/** Options of {@link visible}. */
export interface VisibleOptions {
  /** Keep `\n` as a line break (keydeck's own multi-line blocks); default false: `\n` shows as `\u000a`. */
  readonly newlines?: boolean;
  /** At most this many UTF-16 code units of the input are used (default 4,096); more ends with `…`. */
  readonly maxLength?: number;
  /** At most this many terminal cells (after sanitising); longer text is cut and ends with `…`. */
  readonly maxWidth?: number;
}

/** Default of {@link VisibleOptions.maxLength}. */
export const DEFAULT_MAX_LENGTH = 4096;

/** `\u200b` for a BMP code point, `\u{e0001}` above it. */
export function escapeCodePoint(codePoint: number): string {
  return codePoint > 0xffff ? `\\u{${codePoint.toString(16)}}` : `\\u${codePoint.toString(16).padStart(4, '0')}`;
}

/**
 * `text` made safe and visible for a terminal (see the module comment). Never throws; a
 * non-string gives `String(value)` sanitised.
 */
export function visible(text: string, options: VisibleOptions = {}): string {
  let input = typeof text === 'string' ? text : String(text);
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  let cut = false;
  if (input.length > maxLength) {
    input = input.slice(0, maxLength);
    // Do not leave half a surrogate pair.
    if (/[\ud800-\udbff]$/.test(input)) input = input.slice(0, -1);
    cut = true;
  }
  let out = PLAIN.test(input) ? input : sanitizeChars(input, options.newlines ?? false);
  if (cut) out += '…';
  if (options.maxWidth !== undefined) out = truncateCells(out, options.maxWidth);
  return out;
}

function sanitizeChars(input: string, newlines: boolean): string {
  const chars = Array.from(input);
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (!UNSAFE.test(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp === 0x0a && newlines) {
      out += '\n';
      continue;
    }
    const prev = chars[i - 1];
    const next = chars[i + 1];
    // Emoji presentation selectors after a visible character; ZWJ inside an emoji sequence.
    if (cp >= 0xfe00 && cp <= 0xfe0f && prev !== undefined && !UNSAFE.test(prev)) {
      out += ch;
      continue;
    }
    if (cp === 0x200d && prev !== undefined && next !== undefined && PICTOGRAPH.test(prev) && PICTOGRAPH.test(next)) {
      out += ch;
      continue;
    }
    out += escapeCodePoint(cp);
  }
  return out;
}

/** True when `text` holds a character {@link visible} would change (a control, bidi or invisible one). */
export function hasUnsafeChars(text: string): boolean {
  return UNSAFE.test(text);
}

/** Safe `text` cut to at most `width` cells, ending with `…` when cut. */
export function truncateCells(text: string, width: number): string {
  if (width <= 0) return '';
  return stringWidth(text) > width ? cliTruncate(text, width) : text;
}

/**
 * JSON text (as `JSON.stringify` writes it) with every character {@link visible} would change
 * that JSON leaves raw (DEL, C1, bidi and other format characters, separators, noncharacters)
 * written as a `\uXXXX` escape (astral ones as their surrogate pair), so `--json` output parses
 * to the same value and never carries a control a terminal acts on. JSON's own escapes of C0 and
 * lone surrogates are kept.
 */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => {
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/**
 * True when what a user typed to confirm names `name`: the name itself, or its visible form
 * ({@link visible}), so an item whose name holds invisible or control characters can be
 * confirmed by typing what the screen shows. Surrounding spaces of the typed text are ignored.
 */
export function confirmsName(typed: string, name: string): boolean {
  if (typed === name) return true;
  const t = typed.trim();
  return t !== '' && (t === name.trim() || t === visible(name).trim());
}

/** Widest a display name gets, in terminal cells, before any layout (a 2-million-character name costs nothing more). */
export const MAX_NAME_WIDTH = 256;

/**
 * A copy of a flat record from the service for display: every string field made {@link visible}
 * and cut to `maxWidth` cells (default {@link MAX_NAME_WIDTH}), except the fields in `except`
 * (ids the client sends back to the service stay as they came). Other fields are kept.
 */
export function visibleRecord<T extends object>(record: T, options: { readonly except?: readonly (keyof T)[]; readonly maxWidth?: number } = {}): T {
  const out = { ...record } as Record<string, unknown>;
  const maxWidth = options.maxWidth ?? MAX_NAME_WIDTH;
  for (const [k, v] of Object.entries(out)) {
    if (typeof v === 'string' && !options.except?.includes(k as keyof T)) out[k] = visible(v, { maxWidth });
  }
  return out as T;
}

/**
 * A service id fit to be written into a command line the user is invited to copy, or into a
 * hook's environment: letters, digits, `_` and `-` only, not starting with `-`
 * (an id read as an option), 1–200 characters. Undefined for any other id: the caller then says
 * so instead of writing it (`visible` shows it for people, never for pasting).
 */
export function plainId(id: string): string | undefined {
  return typeof id === 'string' && /^[A-Za-z0-9_][A-Za-z0-9_-]{0,199}$/.test(id) ? id : undefined;
}

/** Every character {@link flatText} removes: {@link UNSAFE}'s, tabs and line breaks are spaces first. */
const FLAT_REMOVED = /[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}]/gu;

/**
 * Service text for a channel that shows one short line of plain text outside the terminal grid
 * (a desktop notification, an OSC 9/777/99 notification): line and paragraph breaks and tabs
 * become one space; every other control, bidi, zero-width or invisible format character is
 * removed (these channels show text, not escapes); spaces are collapsed; at most `max`
 * characters (code points), cut with `…`. Never throws.
 */
export function flatText(text: string, max: number): string {
  const input = typeof text === 'string' ? text : String(text);
  const flat = input
    .slice(0, DEFAULT_MAX_LENGTH)
    .replace(/[\t\n\v\f\r\u0085\u2028\u2029]+/g, ' ')
    .replace(FLAT_REMOVED, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  const chars = Array.from(flat);
  return chars.length > max ? `${chars.slice(0, Math.max(0, max - 1)).join('')}…` : flat;
}

/**
 * `text` with the markup of a desktop notification's body written as entities (`&`, `<`, `>`,
 * `"`, `'`): notify-send's servers read the body as markup (`<a href>`, `<img>`), and a service
 * name must show as the text it is.
 */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
