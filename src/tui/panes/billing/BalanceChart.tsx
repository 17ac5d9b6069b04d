/**
 * The Billing pane's line chart of the balance (issue 16): a title naming the window and the
 * key that cycles it (`w`: 1h 6h 24h 7d 30d), then the chart of src/billing/chart.ts (USD axis,
 * time ticks, top-ups marked ▲) sized to the pane. Redrawn only when the history, the window,
 * the size or the minute changes.
 */
import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { balanceChart, CHART_WINDOW_MS, CHART_WINDOWS, type ChartWindow } from '../../../billing/chart.js';
import type { BalanceHistory } from '../../../billing/history.js';
import { theme } from '../../theme.js';

/** Props of {@link BalanceChart}. */
export interface BalanceChartProps {
  readonly history: BalanceHistory;
  readonly window: ChartWindow;
  /** Epoch ms. */
  readonly now: number;
  readonly columns: number;
  /** Lines available (title included); below 6 nothing is drawn. */
  readonly rows: number;
}

/** Lines a chart of `plotRows` rows takes in the pane: title, plot, axis, ticks, top-up marks. */
export const CHART_EXTRA_ROWS = 4;

/** See the module comment. */
export function BalanceChart({ history, window, now, columns, rows }: BalanceChartProps) {
  const minute = Math.floor(now / 60_000);
  const chart = useMemo(
    () => {
      if (rows < 6) return undefined;
      // Readings from a little before the window give the line its start.
      const samples = history.since(now - CHART_WINDOW_MS[window] * 1.25);
      return balanceChart(samples, { window, now, width: columns, height: rows - CHART_EXTRA_ROWS });
    },
    [history, history.version, window, minute, columns, rows], // eslint-disable-line react-hooks/exhaustive-deps
  );
  if (!chart) return null;
  const choices = CHART_WINDOWS.map((w) => (w === window ? `[${w}]` : w)).join(' ');
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text color={theme.muted}>{`balance, last ${window} · w ${choices}`}</Text>
        {chart.legend ? <Text color={theme.ok}>{` · ${chart.legend}`}</Text> : null}
      </Text>
      {chart.lines.length === 0 ? (
        <Text color={theme.muted} wrap="truncate">{'no readings in this window yet: the chart fills as the balance is read'}</Text>
      ) : (
        chart.lines.map((line, i) => (
          <Text key={i} color={i < chart.lines.length - 2 - (chart.topUps.length > 0 ? 1 : 0) ? theme.accent : theme.muted} wrap="truncate">
            {line}
          </Text>
        ))
      )}
    </Box>
  );
}
