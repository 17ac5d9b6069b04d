/**
 * A line chart of the balance (the credit balance record `remaining`, USD) over a window, drawn with
 * asciichart: a labelled USD axis on the left, the line, a time axis underneath with ticks
 * relative to now (`-24h … now`), and a row that marks each top-up (a rise of `totalTopUp`)
 * with `▲` under the stretch of time it happened in. Shared by the Billing pane and
 * `keydeck billing history --chart`. Pure: lines of plain text, no colour, no terminal.
 *
 * The line is the last reading at or before the end of each column (history.ts `resample`);
 * columns before the first reading are left blank, a stretch without readings (keydeck was
 * not running) carries the last one. Everything fits `width` cells; `height` is the rows of
 * the plot itself (the axis, ticks and markers add three).
 */
import { formatUsd } from '../api/money.js';
import asciichart from 'asciichart';
import { cellOf, resample, topUpsIn, type BalanceSample, type TopUpMark } from './history.js';

/** The chart windows, in the order the pane's key cycles them. */
export const CHART_WINDOWS = ['1h', '6h', '24h', '7d', '30d'] as const;
/** One of {@link CHART_WINDOWS}. */
export type ChartWindow = (typeof CHART_WINDOWS)[number];

const HOUR = 3_600_000;
/** Length of each window, ms. */
export const CHART_WINDOW_MS: Readonly<Record<ChartWindow, number>> = { '1h': HOUR, '6h': 6 * HOUR, '24h': 24 * HOUR, '7d': 7 * 24 * HOUR, '30d': 30 * 24 * HOUR };

/** The window after `w` (wrapping). */
export function nextWindow(w: ChartWindow): ChartWindow {
  return CHART_WINDOWS[(CHART_WINDOWS.indexOf(w) + 1) % CHART_WINDOWS.length]!;
}

/** Parses `--window` text (`1h`, `6h`, `24h`, `7d`, `30d`); undefined when it is none of them. */
export function parseWindow(text: string): ChartWindow | undefined {
  const t = text.trim().toLowerCase();
  return (CHART_WINDOWS as readonly string[]).includes(t) ? (t as ChartWindow) : undefined;
}

/** Options of {@link balanceChart}. */
export interface ChartOptions {
  readonly window: ChartWindow;
  /** Epoch ms: the right edge. */
  readonly now: number;
  /** Total width in cells (at least 30). */
  readonly width: number;
  /** Rows of the plot (at least 2); the chart is `height + 3` lines with top-ups in the window, `height + 2` without. */
  readonly height: number;
}

/** What {@link balanceChart} draws, with the figures it drew from. */
export interface Chart {
  /** The lines, each at most `width` cells. Empty when there is no reading in or before the window. */
  readonly lines: string[];
  /** Top-ups inside the window. */
  readonly topUps: TopUpMark[];
  /** Columns of the line. */
  readonly columns: number;
  /** "▲ top-up +$25.00" / "▲ 3 top-ups +$75.00" for a title; '' without top-ups in the window. */
  readonly legend: string;
}

/** "$1,234.56"-style axis label (two decimals, thousands separated, to the nearest cent). */
export function axisLabel(usd: number): string {
  return formatUsd(Math.round(usd * 100) / 100);
}

/** "45m", "6h", "3d": a duration for the time axis. */
function shortDuration(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 120) return `${min}m`;
  const h = Math.round(min / 6) / 10;
  if (h < 48) return `${h}h`;
  return `${Math.round(h / 24)}d`;
}

/**
 * Draws the balance of `samples` (oldest first; readings before the window give the line its
 * start) over `options.window` ending at `options.now`. See the module comment.
 */
export function balanceChart(samples: readonly BalanceSample[], options: ChartOptions): Chart {
  const windowMs = CHART_WINDOW_MS[options.window];
  const from = options.now - windowMs;
  const inWindow = samples.filter((s) => s.t > from && s.t <= options.now);
  const topUps = topUpsIn(samples.filter((s) => s.t <= options.now)).filter((m) => m.t > from);
  const height = Math.max(2, Math.floor(options.height));
  // Labels as wide as the widest of the values shown.
  const known = samples.filter((s) => s.t <= options.now);
  if (known.length === 0 || (inWindow.length === 0 && known.at(-1)!.t < from - windowMs)) return { lines: [], topUps: [], columns: 0, legend: '' };
  const probe = [...inWindow, known.filter((s) => s.t <= from).at(-1)].filter((s): s is BalanceSample => s !== undefined).map((s) => s.remaining);
  let min = Math.min(...probe);
  let max = Math.max(...probe);
  if (max - min < 0.01) {
    // A flat balance: a band around it, so the line sits in the middle with readable labels.
    min -= 1;
    max += 1;
  }
  const labelWidth = Math.max(axisLabel(min).length, axisLabel(max).length);
  const columns = Math.max(10, Math.floor(options.width) - labelWidth - 2);
  const values = resample(samples, from, options.now, columns);
  const first = values.findIndex((v) => v !== undefined);
  if (first < 0) return { lines: [], topUps: [], columns: 0, legend: '' };
  // asciichart draws the move from one value to the next in the column of the first: each column
  // would show the cell after it, and the line would stop a column short of "now". Led by a copy
  // of its first value, column c shows the move into cell c, under the same time as its tick and
  // its top-up mark, and a lone value (the first reading, in the last column) gets its cell.
  const series = [values[first]!, ...(values.slice(first) as number[])];
  const plot = asciichart.plot(series, {
    // asciichart draws height + 1 rows.
    height: height - 1,
    min,
    max,
    format: (x: number) => axisLabel(x).padStart(labelWidth),
  });
  const gutter = labelWidth + 2;
  const pad = ' '.repeat(first);
  // asciichart marks the first value on the axis (┼): where the line starts later, the axis stays plain.
  const lines = plot.split('\n').map((line) => `${first > 0 ? line.slice(0, gutter).replace('┼', '┤') : line.slice(0, gutter)}${pad}${line.slice(gutter)}`.trimEnd());

  // Time axis and its ticks: four stretches, labelled relative to now.
  lines.push(`${' '.repeat(gutter - 1)}└${'─'.repeat(columns)}`);
  const ticks = new Array<string>(columns).fill(' ');
  const place = (col: number, text: string) => {
    const start = Math.max(0, Math.min(columns - text.length, col - Math.floor(text.length / 2)));
    if (ticks.slice(Math.max(0, start - 1), start + text.length + 1).some((c) => c !== ' ')) return;
    for (let i = 0; i < text.length; i++) ticks[start + i] = text[i]!;
  };
  place(columns - 1, 'now');
  place(0, `-${shortDuration(windowMs)}`);
  for (let k = 1; k < 4; k++) place(Math.round((k * columns) / 4), `-${shortDuration(windowMs - (k * windowMs) / 4)}`);
  lines.push(`${' '.repeat(gutter)}${ticks.join('')}`.trimEnd());

  let legend = '';
  if (topUps.length > 0) {
    const marks = new Array<string>(columns).fill(' ');
    for (const m of topUps) marks[cellOf(m.t, from, options.now, columns)] = '▲';
    const total = topUps.reduce((sum, m) => sum + Math.round(m.amount * 100), 0) / 100;
    legend = `▲ ${topUps.length > 1 ? `${topUps.length} top-ups` : 'top-up'} +${axisLabel(total)}`;
    // The row's name in the label column, in words: a lone ▲ there read as a top-up at the window's start.
    const label = gutter - 1 >= 8 ? '▲ top-up' : gutter - 1 >= 6 ? 'top-up' : '';
    lines.push(`${label.padStart(gutter - 1)} ${marks.join('')}`.trimEnd());
  }
  return { lines: lines.map((l) => l.slice(0, Math.max(30, Math.floor(options.width)))), topUps, columns, legend };
}
