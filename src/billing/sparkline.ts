/**
 * A one-line sparkline of the balance over time (Unicode block elements ▁▂▃▄▅▆▇█), for the
 * Billing pane and `keydeck monitor`. Pure.
 */
import type { BalanceSample } from './history.js';

/** The eight bar heights, lowest first (each one terminal cell wide). */
export const SPARK_BARS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * Draws `values` as at most `width` bars: when there are more values than cells, each cell
 * shows the last value of its bucket (the balance at the end of that stretch of time). A flat
 * series is drawn at mid height; an empty one as ''. The lowest value is always `▁`, the
 * highest `█`.
 */
export function sparkline(values: readonly number[], width: number): string {
  const cells = Math.max(0, Math.floor(width));
  if (values.length === 0 || cells === 0) return '';
  const points: number[] = [];
  if (values.length <= cells) {
    points.push(...values);
  } else {
    for (let c = 0; c < cells; c++) {
      const end = Math.floor(((c + 1) * values.length) / cells) - 1;
      points.push(values[end]!);
    }
  }
  const min = Math.min(...points);
  const max = Math.max(...points);
  if (max - min < 1e-9) return SPARK_BARS[3].repeat(points.length);
  const top = SPARK_BARS.length - 1;
  return points.map((v) => SPARK_BARS[Math.round(((v - min) / (max - min)) * top)]).join('');
}

/** The sparkline of the `remaining` values of `samples`, oldest on the left. */
export function balanceSparkline(samples: readonly BalanceSample[], width: number): string {
  return sparkline(
    samples.map((s) => s.remaining),
    width,
  );
}
