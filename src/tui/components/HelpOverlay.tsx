/**
 * The `?` overlay: every binding of the key-action table, grouped by where it works, dangerous
 * ones marked `!`. Scrolls with j/k; esc, ? or q closes it.
 */
import { useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { KEY_ACTIONS, SCOPE_TITLES, keyLabel, type Scope } from '../keymap.js';
import { fitWidth } from '../format.js';
import { theme } from '../theme.js';

/** The overlay's lines: a title per scope, then `keys  description` rows. */
export function helpLines(): Array<{ text: string; title?: boolean; dangerous?: boolean }> {
  const lines: Array<{ text: string; title?: boolean; dangerous?: boolean }> = [];
  for (const scope of Object.keys(SCOPE_TITLES) as Scope[]) {
    const rows = KEY_ACTIONS.filter((a) => a.scope === scope);
    if (rows.length === 0) continue;
    if (lines.length > 0) lines.push({ text: '' });
    lines.push({ text: SCOPE_TITLES[scope], title: true });
    for (const a of rows) {
      const keys = a.keys.map(keyLabel).join(' / ');
      lines.push({ text: `${a.dangerous ? '!' : ' '} ${fitWidth(keys, 16)} ${a.help ?? a.label}`, dangerous: a.dangerous ?? false });
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
  const lines = useMemo(helpLines, []);
  const visible = Math.max(1, rows - 3);
  const [offset, setOffset] = useState(0);
  const maxOffset = Math.max(0, lines.length - visible);
  useKeymap(
    'help',
    {
      'help.down': () => setOffset((o) => Math.min(maxOffset, o + Math.max(1, Math.floor(visible / 2)))),
      'help.up': () => setOffset((o) => Math.max(0, o - Math.max(1, Math.floor(visible / 2)))),
      'help.close': onClose,
    },
    { modal: true },
  );
  const shown = lines.slice(offset, offset + visible);
  return (
    <Box flexDirection="column" width={columns} height={rows} borderStyle="round" paddingX={1}>
      <Text bold>{fitWidth(`Key bindings (${offset + 1}–${Math.min(lines.length, offset + visible)} of ${lines.length}; ! = asks to confirm)`, columns - 4)}</Text>
      {shown.map((l, i) => (
        <Text key={i} bold={l.title ?? false} color={l.title ? theme.accent : l.dangerous ? theme.warning : undefined}>
          {fitWidth(l.text, columns - 4)}
        </Text>
      ))}
    </Box>
  );
}
