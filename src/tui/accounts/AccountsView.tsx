/**
 * The Accounts table (the TUI's pane `0` and `keydeck monitor --all-profiles`): a title line, one
 * line per profile (./accountRows.ts: name and marks, host, balance, burn rate, when it runs out,
 * auto top-up, alerts, up or down and how fresh), most urgent first, the selected one marked, and
 * a detail line for the selected one (why it is down, in full). Every line is cut to the width,
 * never wrapped; when the rows do not all fit, the window follows the selection.
 */
import { Box, Text } from 'ink';
import { symbols, theme } from '../theme.js';
import { truncateTo } from '../format.js';
import { detailLine, headerLine, rowLine, type AccountRow } from './accountRows.js';

/** Props of {@link AccountsView}. */
export interface AccountsViewProps {
  readonly rows: readonly AccountRow[];
  /** The selected profile's name (none: no cursor). */
  readonly selected?: string | undefined;
  /** The profile the other panes show (marked `•`). */
  readonly current?: string | undefined;
  readonly columns: number;
  /** Lines available (at least 3). */
  readonly height: number;
  /** Epoch ms. */
  readonly now: number;
}

/** The colour of a row's state. */
function stateColor(row: AccountRow): string | undefined {
  if (row.state === 'down') return theme.danger;
  if (row.alerts.length > 0) return theme.warning;
  if (row.state === 'no_key' || row.state === 'no_address' || row.state === 'waiting') return theme.muted;
  return undefined;
}

/** See the module comment. */
export function AccountsView({ rows, selected, current, columns, height, now }: AccountsViewProps) {
  const index = Math.max(
    0,
    rows.findIndex((r) => r.name === selected),
  );
  const chosen = rows[index];
  // One line per row, and under a row that is down the reason: the window keeps the selected row in view.
  const lines = rows.flatMap((row, i) => {
    const on = selected !== undefined && row.name === selected;
    const color = stateColor(row);
    const main = { key: row.name, row: i, inverse: on, color, text: `${on ? symbols.selected : ' '}${row.name === current ? '•' : ' '}${rowLine(row, columns, now)}` };
    if (row.state !== 'down' || row.reason === undefined) return [main];
    return [main, { key: `${row.name}/why`, row: i, inverse: false, color: theme.danger, text: truncateTo(`    ↳ ${row.reason}`, columns) }];
  });
  const room = Math.max(1, height - 2);
  const last = lines.findLastIndex((l) => l.row === index);
  const start = Math.min(Math.max(0, last - room + 1), Math.max(0, lines.length - room));
  return (
    <Box flexDirection="column" width={columns} height={height} overflow="hidden">
      <Text color={theme.muted} wrap="truncate">
        {headerLine(columns)}
      </Text>
      {rows.length === 0 ? (
        <Text color={theme.muted} wrap="truncate">
          {truncateTo('no profiles in the config file: keydeck --profile NAME auth login adds one', columns)}
        </Text>
      ) : null}
      {lines.slice(start, start + room).map((line) => (
        <Text key={line.key} inverse={line.inverse} wrap="truncate" {...(line.color !== undefined && { color: line.color })}>
          {line.text}
        </Text>
      ))}
      {chosen && selected !== undefined ? (
        <Text color={theme.muted} wrap="truncate">
          {truncateTo(detailLine(chosen, now), columns)}
        </Text>
      ) : null}
    </Box>
  );
}
