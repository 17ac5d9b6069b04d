import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import fastStringWidth, { SIMPLE_TEXT } from '../../src/tui/fastStringWidth.js';

/** Every code point the fast path sums (the ranges of SIMPLE_TEXT). */
function simpleCodePoints(): number[] {
  const out: number[] = [];
  for (let c = 0x20; c <= 0xffff; c++) if (SIMPLE_TEXT.test(String.fromCharCode(c))) out.push(c);
  return out;
}

describe('fastStringWidth (the build puts it in place of string-width)', () => {
  it('gives string-width’s width for every code point of its fast path, alone and in runs', () => {
    const points = simpleCodePoints();
    expect(points.length).toBeGreaterThan(40_000);
    const differing = points.filter((c) => fastStringWidth(String.fromCharCode(c)) !== stringWidth(String.fromCharCode(c)));
    expect(differing.map((c) => `U+${c.toString(16)}`)).toEqual([]);
    // Runs of neighbours: a pair that would join into one grapheme would be counted twice.
    for (let i = 0; i + 8 <= points.length; i += 8) {
      const text = String.fromCharCode(...points.slice(i, i + 8));
      expect(fastStringWidth(text), text).toBe(stringWidth(text));
    }
  });

  it('gives string-width’s width for the lines keydeck draws, styled or not, and for text it hands over', () => {
    const samples = [
      '│ ▶ bench-00012                          │ credit │ credits  │ ● active   │ —         │ 2026-11-21 │',
      '\x1b[90m│\x1b[39m\x1b[7m\x1b[1m ▶ key \x1b[22m\x1b[27m\x1b[90m│\x1b[39m \x1b[32m● active\x1b[39m',
      '┌────┬──────┐ ╭──╮ ▁▂▃▄▅▆▇█ ⚠ low · updated 15 s ago … ≤ ≥ − Δ ±',
      'plain ascii',
      '',
      '日本語キー',
      '│ ▶ 测试键 │ Ключ-прод │ 한국어 키 │ ｆｕｌｌ　ｗｉｄｔｈ │ Łódź · Việt │',
      '⚠️ with a variation selector',
      'e\u0301 combining, \u200b zero width, 👩‍💻 joined, 🇫🇷 flag',
      '\x1b]8;;https://example.com\x07link\x1b]8;;\x07',
      '\x1b[38:2::255:0:0mcolon SGR\x1b[39m',
      'tab\there',
    ];
    for (const text of samples) {
      expect(fastStringWidth(text), JSON.stringify(text)).toBe(stringWidth(text));
      expect(fastStringWidth(text), 'second call (remembered)').toBe(stringWidth(text));
    }
  });

  it('passes non-default options through', () => {
    expect(fastStringWidth('│ ± ·', { ambiguousIsNarrow: false })).toBe(stringWidth('│ ± ·', { ambiguousIsNarrow: false }));
    expect(fastStringWidth('\x1b[31mred\x1b[39m', { countAnsiEscapeCodes: true })).toBe(stringWidth('\x1b[31mred\x1b[39m', { countAnsiEscapeCodes: true }));
  });
});
