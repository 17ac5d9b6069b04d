/**
 * Text of the billing figures (shared by the Billing pane and `keydeck monitor`): burn rates,
 * run-out projections, durations, spent-so-far. Pure.
 */
import { DAY_WINDOW_MS, LONG_WINDOW_MS, SHORT_WINDOW_MS, WEEK_WINDOW_MS, type BalanceTrend, type BurnRate, type RunOutProjection } from '../../../billing/history.js';
import { displayWidth, fitWidth } from '../../format.js';
import { formatUsd } from '../../../api/money.js';

/** Short weekday names, Sunday first (`Date.getDay()`), as `toLocaleDateString('en-US', { weekday: 'short' })` writes them. */
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** A duration in ms as "45 s", "12 min", "3 h 20 min", "2 d 4 h". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

/** "$1.20/h", or "…" when unknown (not enough history yet). */
export function formatRate(rate: BurnRate | undefined): string {
  if (!rate) return '…';
  return `${formatUsd(rate.usdPerHour)}/h`;
}

/** "never (flat or rising)", "now (empty)", "… (collecting)", or "in 3 h 20 min (Sat 14:03)" in local time. */
export function formatRunOut(projection: RunOutProjection): string {
  switch (projection.kind) {
    case 'unknown':
      return '… (collecting)';
    case 'never':
      return 'never (flat or rising)';
    case 'empty':
      return 'now (empty)';
    case 'at': {
      const when = new Date(projection.at);
      const day = WEEKDAYS[when.getDay()]!;
      const time = when.toTimeString().slice(0, 5);
      return `in ${formatDuration(projection.inMs)} (${day} ${time})`;
    }
  }
}

/** USD spent so far: `totalTopUp − remaining` (never below 0), computed in cents. */
export function spentSoFar(totalTopUp: number, remaining: number): number {
  return Math.max(0, Math.round(totalTopUp * 100) - Math.round(remaining * 100)) / 100;
}

/**
 * The burn rates of a trend on one line that fits `width` cells: "burn 15 min $1.20/h · 1 h
 * $1.10/h · 24 h $0.90/h · 7 d $0.80/h". The windows the history does not cover yet share one
 * figure (the same readings): said once, as what it is, "50 min so far $0.90/h", not once per window
 * with "(over 2 h)" each; "burn … (collecting)" before any. What does not fit is left
 * out from the longest window on, whole: never a figure cut in the middle.
 */
export function burnRatesLine(trend: BalanceTrend, width = Number.POSITIVE_INFINITY): string {
  const windows: Array<[string, BurnRate | undefined, number]> = [
    ['15 min', trend.short, SHORT_WINDOW_MS],
    ['1 h', trend.long, LONG_WINDOW_MS],
    ['24 h', trend.day, DAY_WINDOW_MS],
    ['7 d', trend.week, WEEK_WINDOW_MS],
  ];
  const parts: string[] = [];
  for (const [label, rate, windowMs] of windows) {
    if (!rate) continue;
    if (rate.spanMs >= windowMs * 0.9) parts.push(`${label} ${formatRate(rate)}`);
    else {
      // This window and every longer one are read from the same readings so far.
      parts.push(`${formatDuration(rate.spanMs)} so far ${formatRate(rate)}`);
      break;
    }
  }
  if (parts.length === 0) return 'burn … (collecting)';
  while (parts.length > 1 && displayWidth(`burn ${parts.join(' · ')}`) > width) parts.pop();
  const line = `burn ${parts.join(' · ')}`;
  return displayWidth(line) <= width ? line : fitWidth(line, width);
}
