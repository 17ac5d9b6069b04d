/** The readline keys of the one text field, and how the input layer splits what Ink hands over. */
import { describe, expect, it } from 'vitest';
import type { Key } from 'ink';
import { keyEventsOf, type KeyEvent } from '../../../src/tui/input/keyEvents.js';
import { editLine, insertText, lineAtEnd, type LineState } from '../../../src/tui/input/lineEdit.js';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

const names = (input: string, key: Partial<Key> = {}) => keyEventsOf(input, { ...NO_KEY, ...key }).map((e) => e.name);

/** Applies named keys (a 1-character name types it) and shows the cursor as `|`. */
function edit(start: LineState, ...keys: string[]): string {
  let s = start;
  for (const name of keys) {
    const event: KeyEvent = name.length === 1 ? { name, text: name } : { name };
    s = editLine(s, event) ?? s;
  }
  const chars = [...s.value];
  return `${chars.slice(0, s.cursor).join('')}|${chars.slice(s.cursor).join('')}`;
}

describe('keyEventsOf', () => {
  it('turns a run of characters Ink hands over at once into one key each, in order', () => {
    expect(names('jjj')).toEqual(['j', 'j', 'j']);
    expect(names('ab\r')).toEqual(['a', 'b', 'enter']);
    expect(names('x\x15y\x17')).toEqual(['x', 'ctrl-u', 'y', 'ctrl-w']);
    expect(names('a b\t')).toEqual(['a', 'space', 'b', 'tab']);
    expect(names('é😀')).toEqual(['é', '😀']);
  });

  it('names the keys Ink recognised, alt ones included', () => {
    expect(names('u', { ctrl: true })).toEqual(['ctrl-u']);
    expect(names('b', { meta: true })).toEqual(['alt-b']);
    expect(names('', { backspace: true, meta: true })).toEqual(['alt-backspace']);
    expect(names('', { backspace: true })).toEqual(['backspace']);
    expect(names('', { delete: true })).toEqual(['delete']);
    expect(names('', { tab: true, shift: true })).toEqual(['shift-tab']);
    expect(names('[99~', { meta: true })).toEqual([]);
  });
});

describe('editLine', () => {
  const line = lineAtEnd('git push origin main');

  it('moves by character, word and line', () => {
    expect(edit(line, 'ctrl-a')).toBe('|git push origin main');
    expect(edit(line, 'home', 'right', 'ctrl-f')).toBe('gi|t push origin main');
    expect(edit(line, 'ctrl-b', 'left')).toBe('git push origin ma|in');
    expect(edit(line, 'alt-b', 'alt-b')).toBe('git push |origin main');
    expect(edit(line, 'ctrl-a', 'alt-f', 'alt-f')).toBe('git push| origin main');
    expect(edit(line, 'ctrl-a', 'ctrl-e')).toBe('git push origin main|');
    expect(edit(line, 'ctrl-a', 'end')).toBe('git push origin main|');
  });

  it('deletes by character, word and line', () => {
    expect(edit(line, 'backspace', 'backspace', 'backspace')).toBe('git push origin m|');
    expect(edit(line, 'ctrl-a', 'ctrl-d', 'delete')).toBe('|t push origin main');
    expect(edit(line, 'ctrl-w')).toBe('git push origin |');
    expect(edit(lineAtEnd('key-01.prod  '), 'ctrl-w')).toBe('|');
    expect(edit(lineAtEnd('key-01.prod'), 'alt-backspace')).toBe('key-01.|');
    expect(edit(line, 'alt-b', 'ctrl-u')).toBe('|main');
    expect(edit(line, 'alt-b', 'ctrl-k')).toBe('git push origin |');
    expect(edit(line, 'ctrl-a', 'alt-d')).toBe('| push origin main');
  });

  it('types at the cursor and leaves other keys to the key-action table', () => {
    expect(edit(line, 'ctrl-a', 'x', 'y')).toBe('xy|git push origin main');
    expect(editLine(line, { name: 'enter' })).toBeUndefined();
    expect(editLine(line, { name: 'esc' })).toBeUndefined();
    expect(editLine(line, { name: 'up' })).toBeUndefined();
  });

  it('inserts a paste whole, without its line breaks, never cutting it', () => {
    const hash = `0x${'ab'.repeat(32)}`;
    expect(insertText(lineAtEnd(''), `${hash}\r\n`)).toEqual({ value: hash, cursor: 66 });
    expect(insertText({ value: 'ab', cursor: 1 }, 'one\ntwo')).toEqual({ value: 'aone twob', cursor: 8 });
    const long = 'x'.repeat(5000);
    expect(insertText(lineAtEnd(''), long).value).toHaveLength(5000);
    expect(insertText(lineAtEnd('a'), '\x1b[31m')).toEqual({ value: 'a[31m', cursor: 5 });
  });
});
