/**
 * Pure line editing for the app's one text field (components/TextField.tsx): the readline keys
 * people's fingers know, on a value and a cursor counted in code points (so an emoji or a
 * CJK character is never split).
 *
 * | keys | does |
 * |---|---|
 * | ctrl-a, home / ctrl-e, end | start / end of the line |
 * | ctrl-b, left / ctrl-f, right | one character back / forward |
 * | alt-b / alt-f | one word back / forward |
 * | backspace, ctrl-h / ctrl-d, delete | delete the character before / under the cursor |
 * | ctrl-u / ctrl-k | delete to the start / to the end of the line |
 * | ctrl-w | delete the whitespace-separated word before the cursor |
 * | alt-backspace / alt-d | delete the word (letters and digits) before / after the cursor |
 */
import type { KeyEvent } from './keyEvents.js';

/** A line being edited: `cursor` is an index into the code points of `value` (0 … length). */
export interface LineState {
  readonly value: string;
  readonly cursor: number;
}

/** A line with the cursor at its end. */
export function lineAtEnd(value: string): LineState {
  return { value, cursor: [...value].length };
}

const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);
const isSpace = (ch: string | undefined): boolean => ch !== undefined && /\s/u.test(ch);

/** Index of the start of the word before `at` (words are letters, digits and `_`). */
function wordStartBefore(chars: readonly string[], at: number): number {
  let i = at;
  while (i > 0 && !isWordChar(chars[i - 1])) i--;
  while (i > 0 && isWordChar(chars[i - 1])) i--;
  return i;
}

/** Index of the end of the word after `at`. */
function wordEndAfter(chars: readonly string[], at: number): number {
  let i = at;
  while (i < chars.length && !isWordChar(chars[i])) i++;
  while (i < chars.length && isWordChar(chars[i])) i++;
  return i;
}

/** Index of the start of the whitespace-separated word before `at` (readline's unix-word-rubout). */
function bigWordStartBefore(chars: readonly string[], at: number): number {
  let i = at;
  while (i > 0 && isSpace(chars[i - 1])) i--;
  while (i > 0 && !isSpace(chars[i - 1])) i--;
  return i;
}

function splice(chars: readonly string[], from: number, to: number, insert: readonly string[], cursor: number): LineState {
  return { value: [...chars.slice(0, from), ...insert, ...chars.slice(to)].join(''), cursor };
}

/**
 * The line after `text` is typed or pasted at the cursor. Line breaks become spaces (a
 * trailing one is dropped, so a pasted line never carries its newline and never submits);
 * other control characters are dropped. Nothing is ever cut: the whole text is inserted.
 */
export function insertText(state: LineState, text: string): LineState {
  const clean = text
    .replace(/(?:\r\n|\r|\n)+$/u, '')
    .replace(/\r\n|\r|\n/gu, ' ')
    .replace(/\t/gu, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/gu, '');
  if (clean === '') return state;
  const chars = [...state.value];
  const insert = [...clean];
  const at = Math.min(state.cursor, chars.length);
  return splice(chars, at, at, insert, at + insert.length);
}

/**
 * The line after one key event, or undefined when the event is not a text-entry key (the
 * caller then offers it to the key-action table). An edit that changes nothing returns `state`.
 */
export function editLine(state: LineState, event: KeyEvent): LineState | undefined {
  if (event.text !== undefined) return insertText(state, event.text);
  const chars = [...state.value];
  const n = chars.length;
  const c = Math.min(Math.max(0, state.cursor), n);
  const moveTo = (to: number): LineState => (to === c ? state : { value: state.value, cursor: to });
  const remove = (from: number, to: number): LineState => (from === to ? state : splice(chars, from, to, [], from));
  switch (event.name) {
    case 'left':
    case 'ctrl-b':
      return moveTo(Math.max(0, c - 1));
    case 'right':
    case 'ctrl-f':
      return moveTo(Math.min(n, c + 1));
    case 'home':
    case 'ctrl-a':
      return moveTo(0);
    case 'end':
    case 'ctrl-e':
      return moveTo(n);
    case 'alt-b':
      return moveTo(wordStartBefore(chars, c));
    case 'alt-f':
      return moveTo(wordEndAfter(chars, c));
    case 'backspace':
    case 'ctrl-h':
      return remove(Math.max(0, c - 1), c);
    case 'delete':
    case 'ctrl-d':
      return remove(c, Math.min(n, c + 1));
    case 'ctrl-u':
      return remove(0, c);
    case 'ctrl-k':
      return remove(c, n);
    case 'ctrl-w':
      return remove(bigWordStartBefore(chars, c), c);
    case 'alt-backspace':
      return remove(wordStartBefore(chars, c), c);
    case 'alt-d':
      return remove(c, wordEndAfter(chars, c));
    default:
      return undefined;
  }
}
