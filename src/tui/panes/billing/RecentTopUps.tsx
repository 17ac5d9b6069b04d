/**
 * The recent top-ups of the local journal (this service and profile): when, amount, method,
 * state (and why, when refused), and the transaction hash or session; the selected row is
 * marked; an unfinished one can be resumed with enter.
 */
import { Box, Text } from 'ink';
import { methodLabel, stateLabel, type JournalEntry } from '../../../billing/journal.js';
import { dateTime, displayWidth, fitWidth } from '../../format.js';
import { symbols, theme, type ThemeColor } from '../../theme.js';
import { formatUsd } from '../../../api/money.js';

function stateColor(entry: JournalEntry): ThemeColor {
  switch (entry.state) {
    case 'credited':
      return theme.ok;
    case 'refused':
      return theme.danger;
    case 'closed':
      return theme.muted;
    default:
      return theme.warning;
  }
}

/**
 * One row's text (without the selection mark) in `width` cells: the amount credited once known,
 * else the amount requested, and the top-up's reference (its hash, checkout session or deposit
 * address) whole when it fits, else shortened with a visible `…` (never cut silently).
 */
export function topUpRowText(entry: JournalEntry, width = 80): string {
  const full = entry.txHash ?? entry.sessionId ?? (entry.address ? `to ${entry.address}` : '');
  const why = entry.state === 'refused' || entry.state === 'verifying' ? (entry.reason ? ` (${entry.reason})` : '') : '';
  const head = `${dateTime(entry.createdAt).slice(0, 16)}  ${fitWidth(formatUsd(entry.credited ?? entry.amount), 10)} ${fitWidth(methodLabel(entry.method), 13)} ${stateLabel(entry.state)}${why}  `;
  const room = Math.max(11, width - displayWidth(head));
  const ref = displayWidth(full) <= room ? full : `${full.slice(0, Math.min(room, 18) - 1)}…`;
  return `${head}${ref}`;
}

/** Props of {@link RecentTopUps}. */
export interface RecentTopUpsProps {
  readonly entries: readonly JournalEntry[];
  readonly selected: number;
  readonly rows: number;
  readonly columns: number;
  /** The record cannot be trusted (the pane's line says why): no list, and no invitation to start one. */
  readonly damaged?: boolean;
}

/** See the module comment. Draws at most `rows` lines (a title and the rows around the selection). */
export function RecentTopUps({ entries, selected, rows, columns, damaged }: RecentTopUpsProps) {
  if (rows <= 0) return null;
  if (damaged && entries.length === 0) return <Text color={theme.muted}>the top-ups recorded on this machine cannot be read</Text>;
  if (entries.length === 0) {
    return <Text color={theme.muted}>no top-ups recorded on this machine yet · t starts one</Text>;
  }
  const room = Math.max(1, rows - 1);
  const start = Math.min(Math.max(0, selected - room + 1), Math.max(0, entries.length - room));
  const shown = entries.slice(start, start + room);
  return (
    <Box flexDirection="column">
      <Text color={theme.muted} wrap="truncate">{`recent top-ups (${entries.length}) · j/k select · enter reopens`}</Text>
      {shown.map((entry, i) => {
        const on = start + i === selected;
        return (
          <Text key={entry.id} wrap="truncate" inverse={on} color={stateColor(entry)}>
            {fitWidth(`${on ? symbols.selected : ' '} ${topUpRowText(entry, columns - 2)}`, columns)}
          </Text>
        );
      })}
    </Box>
  );
}
