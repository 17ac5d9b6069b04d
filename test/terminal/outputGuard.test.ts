/**
 * The last net under the TUI's output (src/terminal/outputGuard.ts): what Ink writes passes, the
 * payloads a hostile name could carry past a missed sanitiser do not.
 */
import { describe, expect, it } from 'vitest';
import { guardTerminalOutput } from '../../src/terminal/outputGuard.js';
import { PAYLOADS } from './payloads.js';

describe('guardTerminalOutput', () => {
  it('keeps what Ink writes: SGR, cursor moves, erases, private modes, the bell', () => {
    const ink = '\u001b[?1049h\u001b[?25l\u001b[2K\u001b[1A\u001b[G\u001b[1;31mred\u001b[39m\u001b[22m\n\u001b[?2026h\u001b[5;10H\u001b[J\u0007\u001b[?25h\u001b[?1049l';
    expect(guardTerminalOutput(ink)).toBe(ink);
    expect(guardTerminalOutput('plain text · ▶ ● émoji 👨‍👩‍👧 ❤️')).toBe('plain text · ▶ ● émoji 👨‍👩‍👧 ❤️');
  });

  it('drops titles, clipboard writes, hyperlinks, device queries, C1 and bidi controls', () => {
    const out = guardTerminalOutput(
      `a${PAYLOADS.title}b${PAYLOADS.clipboard}c${PAYLOADS.deviceStatus}d${PAYLOADS.c1Link}e${PAYLOADS.bidi}f\u001b]8;;javascript:alert(1)\u001b\\link\u001b]2;t\u001b\\`,
    );
    expect(out).not.toMatch(/\u001b\]|\u001b\[6n|[\u0080-\u009f\u202e]/u);
    expect(out.startsWith('ab')).toBe(true);
    expect(out).not.toContain('YXR0YWNrZXI=');
    expect(out).toContain('link');
  });

  it('lets through only the hyperlinks keydeck registered (the checked checkout link), in its own form', async () => {
    const { allowHyperlink } = await import('../../src/terminal/outputGuard.js');
    const mine = 'https://pay.example/cs_1';
    allowHyperlink(mine);
    const written = `\u001b]8;;${mine}\u0007${mine}\u001b]8;;\u0007`;
    expect(guardTerminalOutput(written)).toBe(written);
    const other = `\u001b]8;;https://evil.example/\u0007x\u001b]8;;\u0007`;
    expect(guardTerminalOutput(other)).toBe('x\u001b]8;;\u0007');
  });
});
