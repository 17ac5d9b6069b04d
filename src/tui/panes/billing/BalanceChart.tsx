/**
 * The Billing pane's line chart of the balance: a title naming the window and the
 * key that cycles it (`w`: 1h 6h 24h 7d 30d), then the chart of src/billing/chart.ts (USD axis,
 * time ticks, top-ups marked ▲) sized to the pane; where a chart does not fit (fewer than
 * {@link MIN_CHART_ROWS} lines: 80×24 with the top spenders shown), a sparkline of the same
 * window with its range and its top-ups (`▲ 2 top-ups +$55.00`, as the chart's legend) instead
 *, so the pane never leaves the space blank and says what the chart would. Redrawn
 * only when the history, the window, the size or the minute changes.
 */
import { Box, Text } from 'ink';
import { useMemo, useState } from 'react';
import { axisLabel, balanceChart, CHART_WINDOW_MS, CHART_WINDOWS, type ChartWindow } from '../../../billing/chart.js';
import { sparkline } from '../../../billing/sparkline.js';
import { resample, topUpsIn, type BalanceHistory } from '../../../billing/history.js';
import { theme } from '../../theme.js';

/** Props of {@link BalanceChart}. */
export interface BalanceChartProps {
  readonly history: BalanceHistory;
  readonly window: ChartWindow;
  /** Epoch ms. */
  readonly now: number;
  readonly columns: number;
  /** Lines available (title included): a chart from {@link MIN_CHART_ROWS}, a sparkline from 2, nothing below. */
  readonly rows: number;
}

/** Lines a chart of `plotRows` rows takes in the pane: title, plot, axis, ticks, top-up marks. */
export const CHART_EXTRA_ROWS = 4;
/** Fewest lines a chart is drawn in (a plot of 2 rows); below, the sparkline. */
export const MIN_CHART_ROWS = 6;

/** See the module comment. */
export function BalanceChart({ history, window, now, columns, rows }: BalanceChartProps) {
  // What the chart is drawn from: the history (a mutable store: its version says when it changed),
  // the window, the size, and `now` as it was when one of them or the minute last changed, so
  // that the chart is redrawn then only (React's "adjusting state when a prop changes").
  const key = `${history.version} ${Math.floor(now / 60_000)} ${window} ${columns} ${rows}`;
  const [frame, setFrame] = useState(() => ({ key, history, window, now, columns, rows }));
  if (frame.key !== key || frame.history !== history) setFrame({ key, history, window, now, columns, rows });
  const chart = useMemo(() => {
    const { history, window, now, columns, rows } = frame;
    if (rows < MIN_CHART_ROWS) return undefined;
    // Readings from a little before the window give the line its start.
    const samples = history.since(now - CHART_WINDOW_MS[window] * 1.25);
    const drawn = balanceChart(samples, { window, now, width: columns, height: rows - CHART_EXTRA_ROWS });
    // Without a top-up in the window there is no row of marks: the plot takes that row too.
    return drawn.topUps.length > 0 || drawn.lines.length === 0 ? drawn : balanceChart(samples, { window, now, width: columns, height: rows - CHART_EXTRA_ROWS + 1 });
  }, [frame]);
  const spark = useMemo(() => {
    const { history, window, now, columns, rows } = frame;
    if (rows >= MIN_CHART_ROWS || rows < 2) return undefined;
    const from = now - CHART_WINDOW_MS[window];
    const samples = history.since(from - CHART_WINDOW_MS[window] / 4);
    const values = resample(samples, from, now, Math.max(1, columns - 24)).filter((v): v is number => v !== undefined);
    if (values.length === 0) return { line: '', range: '', legend: '' };
    // The range and the top-ups from every reading of the window, not only the cells' last ones:
    // a top-up within one cell's stretch of time is a rise all the same.
    const inWindow = samples.filter((x) => x.t >= from && x.t <= now).map((x) => x.remaining);
    const low = Math.min(...values, ...inWindow);
    const high = Math.max(...values, ...inWindow);
    const topUps = topUpsIn(samples.filter((x) => x.t <= now)).filter((m) => m.t > from);
    const total = topUps.reduce((sum, m) => sum + Math.round(m.amount * 100), 0) / 100;
    return {
      line: sparkline(values, columns - 24),
      range: high - low < 0.005 ? `flat at ${axisLabel(high)}` : `${axisLabel(low)} – ${axisLabel(high)}`,
      legend: topUps.length === 0 ? '' : `▲ ${topUps.length > 1 ? `${topUps.length} top-ups` : 'top-up'} +${axisLabel(total)}`,
    };
  }, [frame]);
  const choices = CHART_WINDOWS.map((w) => (w === window ? `[${w}]` : w)).join(' ');
  if (spark) {
    return (
      <Box flexDirection="column">
        <Text wrap="truncate">
          <Text color={theme.muted}>{`balance, last ${window} · w ${choices}`}</Text>
          {spark.legend ? <Text color={theme.ok}>{` · ${spark.legend}`}</Text> : null}
        </Text>
        {spark.line === '' ? (
          <Text color={theme.muted} wrap="truncate">
            {'no readings in this window yet: the line fills as the balance is read'}
          </Text>
        ) : (
          <Text wrap="truncate">
            <Text color={theme.accent}>{spark.line}</Text>
            <Text color={theme.muted}>{` ${spark.range}`}</Text>
          </Text>
        )}
      </Box>
    );
  }
  if (!chart) return null;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text color={theme.muted}>{`balance, last ${window} · w ${choices}`}</Text>
        {chart.legend ? <Text color={theme.ok}>{` · ${chart.legend}`}</Text> : null}
      </Text>
      {chart.lines.length === 0 ? (
        <Text color={theme.muted} wrap="truncate">
          {'no readings in this window yet: the chart fills as the balance is read'}
        </Text>
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
