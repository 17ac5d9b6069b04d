/**
 * The pane tabs line: `1 Keys  2 Management keys  3 Billing`, the active one marked with `▶`
 * and inverse video (and never by colour alone); at its right end, once for the whole app, the
 * warning of a subscription about to end (`⚠ subscription ends in 11 h`), with the short
 * titles when the full ones leave it no room.
 */
import { Box, Text } from 'ink';
import type { PaneTab } from '../panes/registry.js';
import { symbols, theme } from '../theme.js';

/** Props of {@link PaneTabs}. */
export interface PaneTabsProps {
  readonly panes: readonly PaneTab[];
  readonly active: string;
  readonly compact: boolean;
  /** A warning shown at the right end (dropped when the line has no room for it whole). */
  readonly notice?: string | undefined;
  /** Width of the line, cells. */
  readonly columns?: number;
}

/** One line of pane tabs. */
export function PaneTabs({ panes, active, compact, notice, columns }: PaneTabsProps) {
  const tabsWidth = (short: boolean) => panes.reduce((w, p) => w + 4 + (short ? p.shortTitle : p.title).length, 0) + panes.length - 1;
  const fits = (short: boolean) => notice !== undefined && columns !== undefined && tabsWidth(short) + 2 + notice.length <= columns;
  // The short titles make room for the notice when the full ones leave none.
  const short = compact || (!fits(false) && fits(true));
  const showNotice = fits(short);
  return (
    <Box {...(columns !== undefined && { width: columns })}>
      <Box flexGrow={1}>
        <Text wrap="truncate">
          {panes.map((p, i) => {
            const on = p.id === active;
            const title = short ? p.shortTitle : p.title;
            return (
              <Text key={p.id}>
                {i > 0 ? ' ' : ''}
                <Text inverse={on} bold={on}>{`${on ? symbols.selected : ' '}${p.key} ${title} `}</Text>
              </Text>
            );
          })}
        </Text>
      </Box>
      {showNotice ? <Text color={theme.warning}>{notice}</Text> : null}
    </Box>
  );
}
