/**
 * The trend of the balance on the Billing pane: a sparkline of `remaining` over the history,
 * the burn rate (USD/hour) over the last 15 minutes and the last hour, and when the balance
 * runs out at the current rate ("never" when flat or rising).
 */
import { Box, Text } from 'ink';
import type { BalanceHistory, BalanceTrend } from '../../../billing/history.js';
import { balanceSparkline } from '../../../billing/sparkline.js';
import { theme } from '../../theme.js';
import { burnRatesLine, formatDuration, formatRunOut } from './billingFormat.js';

/** Props of {@link TrendLines}. */
export interface TrendLinesProps {
  readonly history: BalanceHistory;
  readonly trend: BalanceTrend;
  readonly columns: number;
  /** One line for rates and projection instead of two (compact layout). */
  readonly compact: boolean;
}

/** See the module comment. */
export function TrendLines({ history, trend, columns, compact }: TrendLinesProps) {
  const samples = history.samples();
  const first = samples[0];
  const last = samples.at(-1);
  const span = first && last ? formatDuration(last.t - first.t) : '0 s';
  const label = `trend (${span}) `;
  const spark = balanceSparkline(samples, Math.max(0, columns - label.length - 1));
  const burn = burnRatesLine(trend);
  const runOut = `runs out ${formatRunOut(trend.runOut)}`;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text color={theme.muted}>{label}</Text>
        <Text color={theme.accent}>{spark || '…'}</Text>
      </Text>
      {compact ? (
        <Text wrap="truncate">{`${burn} · ${runOut}`}</Text>
      ) : (
        <>
          <Text wrap="truncate">{burn}</Text>
          <Text wrap="truncate">{runOut}</Text>
        </>
      )}
    </Box>
  );
}
