/**
 * An amount drawn large: three rows of block characters per glyph (digits, `$`, `.`, `,`, `-`),
 * for the remaining balance on the Billing pane. Decoration only: the same amount is always
 * also written as plain text next to it.
 */
import { Box, Text } from 'ink';
import type { ThemeColor } from '../../theme.js';

const GLYPHS: Readonly<Record<string, readonly [string, string, string]>> = {
  '0': ['█▀█', '█ █', '█▄█'],
  '1': ['▀█ ', ' █ ', '▄█▄'],
  '2': ['▀▀█', '█▀▀', '█▄▄'],
  '3': ['▀▀█', ' ▀█', '▄▄█'],
  '4': ['█ █', '▀▀█', '  █'],
  '5': ['█▀▀', '▀▀█', '▄▄█'],
  '6': ['█▀▀', '█▀█', '█▄█'],
  '7': ['▀▀█', '  █', '  █'],
  '8': ['█▀█', '█▀█', '█▄█'],
  '9': ['█▀█', '▀▀█', '▄▄█'],
  $: ['▄█▀', '▀█▄', '▀█▀'],
  '.': [' ', ' ', '▄'],
  ',': [' ', ' ', '▖'],
  '-': ['   ', '▀▀▀', '   '],
};

/** The three rows of `text` in the big font; characters without a glyph are skipped. */
export function bigTextRows(text: string): [string, string, string] {
  const rows: [string[], string[], string[]] = [[], [], []];
  for (const ch of text) {
    const glyph = GLYPHS[ch];
    if (!glyph) continue;
    for (let r = 0; r < 3; r++) rows[r as 0 | 1 | 2].push(glyph[r as 0 | 1 | 2]);
  }
  return [rows[0].join(' '), rows[1].join(' '), rows[2].join(' ')];
}

/** Width in cells of `text` in the big font. */
export function bigTextWidth(text: string): number {
  return bigTextRows(text)[0].length;
}

/** Props of {@link BigAmount}. */
export interface BigAmountProps {
  /** The text to draw, e.g. "$55.00". */
  readonly text: string;
  readonly color?: ThemeColor;
}

/** Three lines of big glyphs. */
export function BigAmount({ text, color }: BigAmountProps) {
  const rows = bigTextRows(text);
  return (
    <Box flexDirection="column" flexShrink={0}>
      {rows.map((row, i) => (
        <Text key={i} color={color} bold>
          {row}
        </Text>
      ))}
    </Box>
  );
}
