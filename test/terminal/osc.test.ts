/**
 * Terminal conventions: the one colour rule (Node's styleText stream validation),
 * OSC 52 and notification sequences wrapped for tmux and screen, and nothing from the text can
 * end a sequence early.
 */
import { WriteStream } from 'node:tty';
import { describe, expect, it } from 'vitest';
import { shouldColorize } from '../../src/terminal/color.js';
import { multiplexerOf, notificationProtocolOf, notificationSequence, osc52, passthrough } from '../../src/terminal/osc.js';

const tty = { isTTY: true, getColorDepth: (env?: NodeJS.ProcessEnv) => WriteStream.prototype.getColorDepth.call(undefined, env) };
const pipe = { isTTY: false };

describe('the one colour rule', () => {
  it('colours a capable terminal, not a pipe, not NO_COLOR, not TERM=dumb; FORCE_COLOR wins', () => {
    expect(shouldColorize(tty, { TERM: 'xterm-256color' })).toBe(true);
    expect(shouldColorize(pipe, { TERM: 'xterm-256color' })).toBe(false);
    expect(shouldColorize(tty, { TERM: 'xterm-256color', NO_COLOR: '1' })).toBe(false);
    expect(shouldColorize(tty, { TERM: 'dumb' })).toBe(false);
    expect(shouldColorize(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(shouldColorize(tty, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(shouldColorize(tty, { TERM: 'xterm-256color', FORCE_COLOR: '0' })).toBe(false);
  });
});

describe('OSC sequences through multiplexers', () => {
  it('OSC 52 goes raw on a plain terminal, in DCS passthrough with ESC doubled in tmux, in 768-byte DCS pieces in screen', () => {
    const raw = osc52('sk_example', {});
    expect(raw).toBe(`\x1b]52;c;${Buffer.from('sk_example').toString('base64')}\x07`);
    expect(osc52('sk_example', { TMUX: '/tmp/tmux-0/default,1,0' })).toBe(`\x1bPtmux;\x1b${raw}\x1b\\`);
    const long = osc52('x'.repeat(1000), { STY: '1234.pts-0.host' });
    const pieces = long.split('\x1b\\').filter(Boolean);
    expect(pieces.length).toBe(2);
    for (const p of pieces) {
      expect(p.startsWith('\x1bP')).toBe(true);
      expect(p.length - 2).toBeLessThanOrEqual(768);
    }
    expect(multiplexerOf({ TMUX: 'x', STY: 'y' })).toBe('tmux');
    expect(multiplexerOf({ TERM: 'screen-256color' })).toBe('screen');
    expect(passthrough('abc', 'none')).toBe('abc');
  });

  it('picks OSC 99 for kitty, OSC 777 for foot and VTE terminals, OSC 9 otherwise, and no text can break out', () => {
    expect(notificationProtocolOf({ KITTY_WINDOW_ID: '1' })).toBe('osc99');
    expect(notificationProtocolOf({ TERM: 'foot' })).toBe('osc777');
    expect(notificationProtocolOf({ VTE_VERSION: '7600' })).toBe('osc777');
    expect(notificationProtocolOf({ TERM_PROGRAM: 'iTerm.app' })).toBe('osc9');
    const hostile = 'name\x07\x1b]52;c;ZXZpbA==\x07\x9b31m';
    for (const protocol of ['osc9', 'osc777', 'osc99'] as const) {
      const seq = notificationSequence('keydeck', `key ${hostile} rejected`, protocol, {});
      // One sequence (two for kitty): the hostile BEL/ESC/C1 never reach it.
      expect(seq).not.toContain('\x9b');
      expect(seq.match(/\x1b\]/g)!.length).toBe(protocol === 'osc99' ? 2 : 1);
    }
    expect(notificationSequence('keydeck', 'low', 'osc777', {})).toBe('\x1b]777;notify;keydeck;low\x07');
    expect(notificationSequence('keydeck', 'low', 'osc9', { TMUX: '1' })).toBe('\x1bPtmux;\x1b\x1b]9;keydeck: low\x07\x1b\\');
  });
});
