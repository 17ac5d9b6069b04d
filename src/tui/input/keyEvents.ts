/**
 * Terminal input → key events (the "terminal → key events" boundary of docs/tui.md). Ink 8 splits
 * a chunk from stdin at escape sequences and at backspace / ctrl-c bytes, but hands a run of
 * plain characters over as one `useInput` call (`jjj`, `ab\r`, `x\x15`): {@link keyEventsOf}
 * turns each such call into one event per key, in order, so every key of a chunk counts.
 * Bracketed paste never comes through here: it arrives as text on Ink's paste channel.
 */
import type { Key } from 'ink';
import type { KeyName } from '../keymap.js';

/** One key press, normalised. */
export interface KeyEvent {
  /**
   * The key's name in the key-action table: a printable character (`j`, `G`, `?`), or `enter`,
   * `esc`, `tab`, `shift-tab`, `space`, `up`, `down`, `left`, `right`, `pgup`, `pgdn`, `home`,
   * `end`, `backspace`, `delete`, `ctrl-<x>`, `alt-<x>`, `alt-backspace`.
   */
  readonly name: KeyName;
  /** The text the key types (a printable character or a space); undefined for other keys. */
  readonly text?: string;
}

/** The event of one character typed without Ink having recognised it as a key of its own. */
function eventOfChar(ch: string): KeyEvent | undefined {
  const code = ch.codePointAt(0)!;
  if (ch === '\r' || ch === '\n') return { name: 'enter' };
  if (ch === '\t') return { name: 'tab' };
  if (ch === '\x7f' || ch === '\b') return { name: 'backspace' };
  if (ch === ' ') return { name: 'space', text: ' ' };
  if (code === 0) return { name: 'ctrl-space' };
  if (code < 0x1b) return { name: `ctrl-${String.fromCharCode(code + 96)}` };
  if (code < 0x20) return { name: `ctrl-${String.fromCharCode(code + 64)}` };
  if (code >= 0x80 && code < 0xa0) return undefined; // C1 controls type nothing
  return { name: ch, text: ch };
}

/**
 * The key events of one Ink `useInput` call, in the order they were typed. An input of several
 * plain characters (a fast typist, key repeat, a terminal without bracketed paste) becomes one
 * event per character; control characters in it become their keys (`\r` enter, `\x15` ctrl-u).
 * Unknown escape sequences give no event.
 */
export function keyEventsOf(input: string, key: Key): KeyEvent[] {
  if (key.ctrl && input.length === 1) return [{ name: `ctrl-${input.toLowerCase()}` }];
  if (key.tab) return [{ name: key.shift ? 'shift-tab' : 'tab' }];
  if (key.escape) return [{ name: 'esc' }];
  if (key.return) return [{ name: 'enter' }];
  if (key.upArrow) return [{ name: 'up' }];
  if (key.downArrow) return [{ name: 'down' }];
  if (key.leftArrow) return [{ name: key.meta || key.ctrl ? 'alt-b' : 'left' }];
  if (key.rightArrow) return [{ name: key.meta || key.ctrl ? 'alt-f' : 'right' }];
  if (key.pageUp) return [{ name: 'pgup' }];
  if (key.pageDown) return [{ name: 'pgdn' }];
  if (key.home) return [{ name: 'home' }];
  if (key.end) return [{ name: 'end' }];
  if (key.backspace) return [{ name: key.meta ? 'alt-backspace' : 'backspace' }];
  if (key.delete) return [{ name: 'delete' }];
  if (key.meta) {
    // alt-<char> arrives as ESC + char; ESC + anything longer is a sequence Ink did not know.
    const chars = [...input];
    return chars.length === 1 && input >= ' ' ? [{ name: `alt-${input.toLowerCase()}` }] : [];
  }
  const out: KeyEvent[] = [];
  for (const ch of input) {
    const event = eventOfChar(ch);
    if (event) out.push(event);
  }
  return out;
}

/** Keys a focused text field consumes (typing and line editing); the others reach the key-action table. */
export function isTextEntryKey(event: KeyEvent): boolean {
  return event.text !== undefined || TEXT_EDITING_KEYS.has(event.name);
}

/** The editing keys of {@link import('./lineEdit.js').editLine}. */
export const TEXT_EDITING_KEYS: ReadonlySet<KeyName> = new Set([
  'backspace',
  'delete',
  'left',
  'right',
  'home',
  'end',
  'ctrl-a',
  'ctrl-e',
  'ctrl-b',
  'ctrl-f',
  'ctrl-d',
  'ctrl-h',
  'ctrl-k',
  'ctrl-u',
  'ctrl-w',
  'alt-b',
  'alt-f',
  'alt-d',
  'alt-backspace',
]);
