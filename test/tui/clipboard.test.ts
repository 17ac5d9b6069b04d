/**
 * Clearing a copied key once it is acknowledged (src/tui/clipboard.ts): the
 * system clipboard is emptied only while it still holds the key, the terminal's clipboard (which
 * cannot be read) is asked to clear with an empty OSC 52; on this headless machine the real
 * system clipboard cannot be reached, and that path ends in the OSC 52 request.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { osc52 } from '../../src/terminal/osc.js';
import { clearCopied } from '../../src/tui/clipboard.js';

const KEY = `sk_${'k'.repeat(40)}`;
/** The empty OSC 52 (wrapped for tmux or screen when the test runs inside one). */
const CLEAR = osc52('');

function terminal(): { out: PassThrough; written: () => string } {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { out, written: () => text };
}

function memoryClipboard(initial: string) {
  const board = {
    text: initial,
    async read() {
      return board.text;
    },
    async write(t: string) {
      board.text = t;
    },
  };
  return board;
}

describe('clearing a copied key', () => {
  it('empties the system clipboard while it holds the key, and asks the terminal to clear its own', async () => {
    const board = memoryClipboard(KEY);
    const t = terminal();
    expect(await clearCopied(KEY, 'clipboard', t.out, board)).toBe('cleared');
    expect(board.text).toBe('');
    expect(t.written()).toBe(CLEAR);
  });

  it('leaves alone a clipboard that holds something else now (and sends no clear that would wipe it)', async () => {
    const board = memoryClipboard('the next thing the user copied');
    const t = terminal();
    expect(await clearCopied(KEY, 'clipboard', t.out, board)).toBe('changed');
    expect(board.text).toBe('the next thing the user copied');
    expect(t.written()).toBe('');
  });

  it('a key sent only by OSC 52 (or a system clipboard out of reach: the real one here, headless) gets the OSC 52 clear', async () => {
    const t = terminal();
    expect(await clearCopied(KEY, 'osc52', t.out)).toBe('osc52');
    expect(t.written()).toBe(CLEAR);
    const headless = terminal();
    const env = { ...process.env };
    delete process.env.DISPLAY;
    delete process.env.WAYLAND_DISPLAY;
    try {
      expect(await clearCopied(KEY, 'clipboard', headless.out)).toBe('osc52');
    } finally {
      Object.assign(process.env, env);
    }
    expect(headless.written()).toBe(CLEAR);
  });
});
