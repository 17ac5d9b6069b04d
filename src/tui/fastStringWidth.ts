/**
 * `string-width` with the same results, faster on the text keydeck draws. The build
 * (scripts/build.mjs, `fastStringWidthPlugin`) puts it in place of every `string-width` import
 * in the bundle: Ink's, widest-line's, wrap-ansi's, cli-truncate's, slice-ansi's and keydeck's.
 *
 * Why: Ink measures every line of every frame with string-width (the widest line of each text
 * node, its output grid, its line diff), with no cache between frames. string-width's own fast
 * path covers printable ASCII only, and keydeck's lines carry box-drawing borders, ▶, ●, ·, —:
 * each such line goes through `Intl.Segmenter` and an `RGI_Emoji` regex per grapheme, which
 * was about a third of the CPU time of a cursor move (bench/keystrokes.mjs, `--cpu-prof`).
 *
 * How (exact, never an approximation):
 * - SGR styling (`ESC [ digits ; … m`) is removed with a small regex; text holding any other
 *   escape goes to string-width as is;
 * - printable ASCII: its length (string-width's own first rule);
 * - text made only of code points from the blocks below, in which every code point is visible
 *   and a grapheme cluster of its own (no combining, joining, variation or invisible
 *   characters): the sum of the code points' East Asian widths (get-east-asian-width, the table
 *   string-width itself ends with; its emoji rule gives the same 2 for the emoji there), without
 *   string-width's segmenter and emoji regex (whose first use alone costs ~40 ms of startup);
 * - anything else: string-width, remembered for the most recent 4,096 strings.
 * test/tui/fastStringWidth.test.ts checks every code point of those blocks against string-width.
 */
import { eastAsianWidth } from 'get-east-asian-width';
import stringWidth from 'string-width';

/** Options of string-width (non-default ones are passed straight to it). */
export interface StringWidthOptions {
  readonly ambiguousIsNarrow?: boolean;
  readonly countAnsiEscapeCodes?: boolean;
}

const SGR = /\x1b\[[0-9;]*m/g;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/**
 * Blocks whose code points each form a grapheme cluster of their own: printable ASCII, Latin-1
 * (without the soft hyphen), Latin Extended-A and -B, Greek letters, Cyrillic (without its
 * combining marks, U+0483–0489) and its supplement, Latin Extended Additional, General Punctuation
 * (without the zero-width, direction and invisible-operator characters), Arrows, Mathematical
 * Operators, Miscellaneous Technical, Box Drawing, Block Elements, Geometric Shapes, Miscellaneous
 * Symbols, Dingbats; and the wide scripts of names people give keys: CJK Symbols and Punctuation
 * (without the tone marks U+302A–302F), Hiragana (without the combining sound marks U+3099–309A),
 * Katakana, CJK Unified Ideographs and Extension A, Hangul Syllables, Fullwidth Forms. A name in
 * one of those scripts no longer costs the first use of string-width's segmenter and emoji regex
 * (~70 ms of CPU, once per process).
 */
export const SIMPLE_TEXT =
  /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u024f\u0391-\u03c9\u0400-\u0482\u048a-\u052f\u1e00-\u1eff\u2010-\u2027\u2030-\u205e\u2190-\u23ff\u2500-\u27bf\u3000-\u3029\u3030-\u303f\u3041-\u3096\u309b-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uff01-\uff60\uffe0-\uffe6]*$/;
/** Highest code point of {@link SIMPLE_TEXT}. */
const MAX_SIMPLE = 0xffe6;

/** Width of each simple code point, looked up on first use (-1: not yet). */
const codePointWidths = new Int8Array(MAX_SIMPLE + 1).fill(-1);
const recent = new Map<string, number>();
const RECENT_LIMIT = 4096;

/**
 * Width in terminal cells of `input`, as string-width computes it (see the module comment).
 * Never throws for a string; non-strings are handed to string-width.
 */
export default function fastStringWidth(input: string, options?: StringWidthOptions): number {
  if (typeof input !== 'string' || (options !== undefined && (options.ambiguousIsNarrow === false || options.countAnsiEscapeCodes === true))) {
    return stringWidth(input, options);
  }
  const text = input.includes('\x1b') ? input.replace(SGR, '') : input;
  if (PRINTABLE_ASCII.test(text)) return text.length;
  if (!text.includes('\x1b') && !text.includes('\x9b') && SIMPLE_TEXT.test(text)) {
    let width = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      let w = codePointWidths[code]!;
      if (w < 0) {
        w = eastAsianWidth(code, { ambiguousAsWide: false });
        codePointWidths[code] = w;
      }
      width += w;
    }
    return width;
  }
  const known = recent.get(input);
  if (known !== undefined) return known;
  const width = stringWidth(input);
  if (recent.size >= RECENT_LIMIT) recent.clear();
  recent.set(input, width);
  return width;
}
