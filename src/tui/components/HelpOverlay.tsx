/**
 * The `?` overlay: every binding of the key-action table, grouped by where it works, dangerous
 * ones marked `!`. Descriptions wrap under themselves (never cut, issue 19); PgDn / space and
 * PgUp turn a screenful, j/k scroll a line; esc, ? or q closes it.
 */
import { useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { KEY_ACTIONS, SCOPE_TITLES, keyLabel, type Scope } from '../keymap.js';
import { fitWidth, wrapWords } from '../format.js';
import { theme } from '../theme.js';

/** Width of the keys column of the overlay, cells. */
const KEYS_WIDTH = 16;

/**
 * The overlay's lines at `width` cells: a title per scope, then `keys  description` rows, each
 * description wrapped at spaces under its own column (default: one line per row, unwrapped).
 */
export function helpLines(width = Number.POSITIVE_INFINITY): Array<{ text: string; title?: boolean; dangerous?: boolean }> {
  const lines: Array<{ text: string; title?: boolean; dangerous?: boolean }> = [];
  for (const scope of Object.keys(SCOPE_TITLES) as Scope[]) {
    const rows = KEY_ACTIONS.filter((a) => a.scope === scope);
    if (rows.length === 0) continue;
    if (lines.length > 0) lines.push({ text: '' });
    lines.push({ text: SCOPE_TITLES[scope], title: true });
    for (const a of rows) {
      const keys = a.keys.map(keyLabel).join(' / ');
      const description = a.help ?? a.label;
      const wrapped = Number.isFinite(width) ? wrapWords(description, Math.max(10, width - KEYS_WIDTH - 3)) : [description];
      wrapped.forEach((part, i) => {
        lines.push({
          text: i === 0 ? `${a.dangerous ? '!' : ' '} ${fitWidth(keys, KEYS_WIDTH)} ${part}` : `${' '.repeat(KEYS_WIDTH + 3)}${part}`,
          dangerous: a.dangerous ?? false,
        });
      });
    }
  }
  return lines;
}

/** Props of {@link HelpOverlay}. */
export interface HelpOverlayProps {
  readonly columns: number;
  readonly rows: number;
  readonly onClose: () => void;
}

/** Full-body overlay listing every key binding. */
export function HelpOverlay({ columns, rows, onClose }: HelpOverlayProps) {
  const lines = useMemo(() => helpLines(columns - 4), [columns]);
  const visible = Math.max(1, rows - 3);
  const [offset, setOffset] = useState(0);
  const maxOffset = Math.max(0, lines.length - visible);
  const by = (delta: number) => setOffset((o) => Math.max(0, Math.min(maxOffset, o + delta)));
  useKeymap(
    'help',
    {
      'help.pageDown': () => by(visible),
      'help.pageUp': () => by(-visible),
      'help.down': () => by(1),
      'help.up': () => by(-1),
      'help.close': onClose,
    },
    { modal: true },
  );
  const shown = lines.slice(offset, offset + visible);
  return (
    <Box flexDirection="column" width={columns} height={rows} borderStyle="round" paddingX={1}>
      <Text bold>{fitWidth(`Key bindings ${offset + 1}–${Math.min(lines.length, offset + visible)} of ${lines.length} · PgDn next page · ! asks first`, columns - 4)}</Text>
      {shown.map((l, i) => (
        <Text key={i} bold={l.title ?? false} color={l.title ? theme.accent : l.dangerous ? theme.warning : undefined}>
          {fitWidth(l.text, columns - 4)}
        </Text>
      ))}
    </Box>
  );
}
