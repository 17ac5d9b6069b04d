/**
 * A last net under the TUI's output (defence in depth behind the sanitiser, ./sanitize.ts, which
 * is where service text is made safe): Ink's stdout is wrapped so that a frame can only carry the
 * control sequences Ink itself writes. Removed on the way out: C1 controls (U+0080–U+009F), bidi
 * and invisible format characters, OSC / DCS / SOS / PM / APC strings (window title, clipboard,
 * hyperlinks, device queries), and CSI sequences other than cursor movement, erasing, SGR styling
 * and private modes (so no device-status or window report request: nothing is typed back on the
 * user's input line). Kept: text, `\n`, `\r`, `\t`, BEL (the low-balance bell), and CSI with final
 * bytes A–H, J, K, S, T, f, m, h, l, s, u; and the OSC 8 hyperlinks keydeck itself writes
 * (the checkout link), only for a URL registered with {@link allowHyperlink} after it
 * passed its checks, in the exact form `ESC ] 8 ; ; URL BEL`, and the closing `ESC ] 8 ; ; BEL`.
 * The wrapper changes nothing but `write`. keydeck's own other sequences (OSC 52 clipboard,
 * notifications) go to `process.stdout` itself, outside this guard (src/tui/clipboard.ts); only
 * Ink's frames pass through it.
 */

/** An escape or control sequence, or one of the characters removed outright. */
const SEQUENCE =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)|[^[\]PX^_])|[\u0080-\u009f\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\u0000-\u0006\u000b\u000c\u000e-\u001a\u001c-\u001f\u007f]/g;
/** CSI final bytes Ink writes (cursor, erase, scroll, SGR, private modes, save/restore). */
const ALLOWED_CSI_FINAL = /[A-HJKSTfmhlsu]$/;

/** URLs keydeck writes as OSC 8 hyperlinks (checked before they are registered); bounded. */
const allowedLinks = new Set<string>();

/**
 * Lets the OSC 8 hyperlink to `url` through the guard: called by the TUI for a link it has
 * checked (the checkout-link rule of src/api/baseUrl.ts) and writes itself. Printable ASCII only.
 */
export function allowHyperlink(url: string): void {
  if (!/^[\x21-\x7e]{1,2048}$/.test(url)) return;
  if (allowedLinks.size >= 64) allowedLinks.clear();
  allowedLinks.add(url);
}

/** `chunk` without the sequences Ink never writes (see the module comment). */
export function guardTerminalOutput(chunk: string): string {
  return chunk.replace(SEQUENCE, (seq) => {
    if (seq.startsWith('\u001b[')) return ALLOWED_CSI_FINAL.test(seq) ? seq : '';
    if (seq.startsWith('\u001b]8;;') && seq.endsWith('\u0007')) {
      const url = seq.slice(5, -1);
      if (url === '' || allowedLinks.has(url)) return seq;
    }
    // ESC 7 / ESC 8 (save / restore cursor) are Ink's too; any other escape goes.
    if (seq === '\u001b7' || seq === '\u001b8') return seq;
    return '';
  });
}

/** Switching to the alternate screen (xterm's mode 1049), as Ink writes it. */
const ENTER_ALTERNATE_SCREEN = '\u001b[?1049h';
/** Cursor to the top left. */
const CURSOR_HOME = '\u001b[H';

/**
 * `stream` with its `write` passing strings through {@link guardTerminalOutput}; every other
 * property (columns, rows, isTTY, events) is the stream's own. On the way into the alternate
 * screen the cursor goes to its top left: the terminal keeps the column the main screen had, and
 * keys typed before keydeck started (echoed by the shell's line discipline) leave it past column
 * 0, where Ink, which draws from the cursor, would start its first frame: every line one cell to
 * the right, the header's first line cut to `…` until a full repaint.
 */
export function guardedStdout(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(typeof chunk === 'string' ? guardTerminalOutput(chunk).replace(ENTER_ALTERNATE_SCREEN, ENTER_ALTERNATE_SCREEN + CURSOR_HOME) : chunk, ...rest);
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
