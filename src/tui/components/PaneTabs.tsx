/**
 * The pane tabs line: `1 Keys  2 Management keys  3 Billing`, the active one marked with `▶`
 * and inverse video (and never by colour alone).
 */
import { Box, Text } from 'ink';
import type { PaneDef } from '../panes/registry.js';
import { symbols } from '../theme.js';

/** Props of {@link PaneTabs}. */
export interface PaneTabsProps {
  readonly panes: readonly PaneDef[];
  readonly active: string;
  readonly compact: boolean;
}

/** One line of pane tabs. */
export function PaneTabs({ panes, active, compact }: PaneTabsProps) {
  return (
    <Box>
      <Text wrap="truncate">
        {panes.map((p, i) => {
          const on = p.id === active;
          const title = compact ? p.shortTitle : p.title;
          return (
            <Text key={p.id}>
              {i > 0 ? ' ' : ''}
              <Text inverse={on} bold={on}>{`${on ? symbols.selected : ' '}${p.key} ${title} `}</Text>
            </Text>
          );
        })}
      </Text>
    </Box>
  );
}
