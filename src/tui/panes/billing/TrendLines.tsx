/**
 * The trend of the balance on the Billing pane: the burn rate (USD/hour) over the last 15
 * minutes, hour, 24 hours and 7 days, and when the balance runs out at the current rate
 * ("never" when flat or rising); in the compact layout, where the chart does not fit, a
 * sparkline of `remaining` over the last 24 hours first.
 */
import { Box, Text } from 'ink';
import { resample, type BalanceHistory, type BalanceTrend } from '../../../billing/history.js';
import { sparkline } from '../../../billing/sparkline.js';
import { theme } from '../../theme.js';
import { burnRatesLine, formatRunOut } from './billingFormat.js';
import { displayWidth } from '../../format.js';

/** Props of {@link TrendLines}. */
export interface TrendLinesProps {
  readonly history: BalanceHistory;
  readonly trend: BalanceTrend;
  readonly columns: number;
  /** Compact layout: a 24 h sparkline and one line for rates and projection (the full layout has the chart). */
  readonly compact: boolean;
  /** Epoch ms. */
  readonly now: number;
}

/** What the compact sparkline covers, ms (24 h). */
const SPARK_SPAN_MS = 24 * 3_600_000;

/** See the module comment. */
export function TrendLines({ history, trend, columns, compact, now }: TrendLinesProps) {
  const runOut = `runs out ${formatRunOut(trend.runOut)}`;
  // Fitted whole (never a figure cut); the compact line has the run-out after it.
  const burn = burnRatesLine(trend, compact ? Math.max(20, columns - displayWidth(runOut) - 3) : columns);
  if (!compact) {
    // Full size: the chart below draws the balance itself.
    return (
      <Box flexDirection="column">
        <Text wrap="truncate">{burn}</Text>
        <Text wrap="truncate">{runOut}</Text>
      </Box>
    );
  }
  const label = 'last 24 h ';
  const width = Math.max(0, columns - label.length - 1);
  const values = resample(history.since(now - SPARK_SPAN_MS - 3_600_000), now - SPARK_SPAN_MS, now, width).filter((v): v is number => v !== undefined);
  const spark = sparkline(values, width);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text color={theme.muted}>{label}</Text>
        <Text color={theme.accent}>{spark || '…'}</Text>
      </Text>
      <Text wrap="truncate">{`${burn} · ${runOut}`}</Text>
    </Box>
  );
}
