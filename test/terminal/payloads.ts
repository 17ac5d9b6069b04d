/**
 * Escape payloads a hostile service puts in the strings it sends (key names, ids, plans, error
 * fields, billing data), and the check on the bytes that reach a terminal. Shared by the CLI and
 * TUI suites of test/terminal.
 */

/** Each payload and what it would do if written raw. */
export const PAYLOADS = {
  /** OSC 0: sets the window / pane title. */
  title: '\u001b]0;PWNED-TITLE\u0007',
  /** OSC 52: replaces the clipboard ("attacker" in base64). */
  clipboard: '\u001b]52;c;YXR0YWNrZXI=\u0007',
  /** ED 2: clears the screen. */
  clear: '\u001b[2J',
  /** DSR 6: the terminal answers on the shell's input line. */
  deviceStatus: '\u001b[6n',
  /** C1 OSC 8 (U+009D): a hyperlink to an attacker URL, closed by C1 ST (U+009C). */
  c1Link: '\u009d8;;https://attacker.example/\u009cclick\u009d8;;\u009c',
  /** SGR 8: conceals what follows. */
  conceal: '\u001b[8mhidden',
  /** RLO: reverses what follows. */
  bidi: '\u202eexe.txt',
  /** Zero-width space only: a name nobody can see. */
  invisible: '\u200b\u200b',
  /** CSI as C1 (U+009B) + DEL. */
  c1Csi: '\u009b31m\u007f',
} as const;

/** One name carrying every payload. */
export const HOSTILE_NAME = `evil${Object.values(PAYLOADS).join('')}`;

/**
 * The characters that must never reach a terminal from service data: C0 except `\n` (and `\r`,
 * which some writers add), DEL, C1, bidi controls, and the invisible format characters.
 */
export const FORBIDDEN = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

/** The forbidden characters found in `text`, as escapes (empty when clean). */
export function forbiddenIn(text: string): string[] {
  const found = new Set<string>();
  for (const ch of text) if (FORBIDDEN.test(ch)) found.add(`\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
  return [...found];
}
