/**
 * Pure text formatting for the TUI (money is src/api/money.ts `formatUsd`): relative times, dates, and fitting text to a
 * display width (by terminal cells, via string-width, so wide characters line up).
 */
import fastStringWidth from './fastStringWidth.js';
import cliTruncate from 'cli-truncate';

/** A minute, an hour and a day, in ms: the steps of the words below and of when they change. */
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Parses an ISO 8601 timestamp to epoch ms; undefined when absent or unparsable. */
export function parseTime(iso: string | null | undefined): number | undefined {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * A copy of `items` newest first by `createdAt`. Items created in the same millisecond keep the
 * service's list order reversed (it lists oldest first), so a list made quickly stays in the order
 * it was made; an unreadable time counts as the oldest.
 */
export function newestFirst<T extends { readonly createdAt?: string | null | undefined }>(items: readonly T[]): T[] {
  const at = new Map(items.map((item, i) => [item, [parseTime(item.createdAt) ?? 0, i] as const]));
  return [...items].sort((a, b) => at.get(b)![0] - at.get(a)![0] || at.get(b)![1] - at.get(a)![1]);
}

/** How long ago `iso` was, relative to `now` (ms): "just now", "3 min ago", "2 h ago", "5 d ago"; "never" when absent. */
export function relativeAgo(iso: string | null | undefined, now: number): string {
  const t = parseTime(iso);
  if (t === undefined) return 'never';
  const d = Math.max(0, now - t);
  if (d < MINUTE) return 'just now';
  if (d < HOUR) return `${Math.floor(d / MINUTE)} min ago`;
  if (d < DAY) return `${Math.floor(d / HOUR)} h ago`;
  return `${Math.floor(d / DAY)} d ago`;
}

/** Time until `iso` from `now` (ms): "in 12 d", "in 5 h", "in 20 min"; "expired" once past; "—" when absent. */
export function expiresIn(iso: string | null | undefined, now: number): string {
  const t = parseTime(iso);
  if (t === undefined) return '—';
  const d = t - now;
  if (d <= 0) return 'expired';
  if (d >= DAY) return `in ${Math.floor(d / DAY)} d`;
  if (d >= HOUR) return `in ${Math.floor(d / HOUR)} h`;
  return `in ${Math.max(1, Math.floor(d / MINUTE))} min`;
}

/**
 * When words counting down to `target` (epoch ms) in whole units may next say something else, at
 * or after `now` (ms): at `target - k·unit` (rounded down or up, such words change there), the last
 * at `target` itself; `unitOf` picks the unit from the time left (days, then hours, then minutes, as
 * the words do). Undefined once `target` is reached (the words say it is over from then on).
 */
export function countdownChangeAt(target: number, now: number, unitOf: (leftMs: number) => number): number | undefined {
  const left = target - now;
  if (!(left > 0)) return undefined;
  const unit = unitOf(left);
  return target - Math.floor(left / unit) * unit;
}

/** When {@link relativeAgo}`(iso, t)` next says something else after `now` (ms); undefined when `iso` is not a time. */
export function relativeAgoChangeAt(iso: string | null | undefined, now: number): number | undefined {
  const t = parseTime(iso);
  if (t === undefined) return undefined;
  const d = Math.max(0, now - t);
  const unit = d < HOUR ? MINUTE : d < DAY ? HOUR : DAY;
  return t + (Math.floor(d / unit) + 1) * unit;
}

/** When {@link expiresIn}`(iso, t)` may next say something else, at or after `now` (ms); undefined when it no longer moves. */
export function expiresInChangeAt(iso: string | null | undefined, now: number): number | undefined {
  const t = parseTime(iso);
  return t === undefined ? undefined : countdownChangeAt(t, now, (left) => (left >= DAY ? DAY : left >= HOUR ? HOUR : MINUTE));
}

/** The earliest of `times` (epoch ms), undefined ones left out; undefined when none is given. */
export function earliest(...times: ReadonlyArray<number | undefined>): number | undefined {
  let first: number | undefined;
  for (const t of times) if (t !== undefined && (first === undefined || t < first)) first = t;
  return first;
}

/** `2025-11-21T14:03:00Z` → `"2025-11-21"` (UTC); the raw text when unparsable. */
export function shortDate(iso: string | null | undefined): string {
  const t = parseTime(iso);
  if (t === undefined) return iso ?? '—';
  return new Date(t).toISOString().slice(0, 10);
}

/** `2025-11-21T14:03:00Z` → `"2025-11-21 14:03 UTC"`; the raw text when unparsable. */
export function dateTime(iso: string | null | undefined): string {
  const t = parseTime(iso);
  if (t === undefined) return iso ?? '—';
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Clock time of epoch ms `t` in local time, `HH:MM:SS`. */
export function clockTime(t: number): string {
  return new Date(t).toTimeString().slice(0, 8);
}

/**
 * Coarse age of a poll result for the header: "just now" under `stepSeconds` (default 5),
 * then steps of `stepSeconds` ("15 s ago"), then minutes, then hours. Coarse on purpose: the
 * text is redrawn only when it changes ({@link nextAgeChangeMs}), which keeps an idle
 * monitor's CPU use near zero.
 */
export function updatedAgo(updatedAt: number, now: number, stepSeconds = 5): string {
  const s = Math.max(0, Math.floor((now - updatedAt) / 1000));
  if (s < stepSeconds) return 'just now';
  if (s < 60) return `${s - (s % stepSeconds)} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

/** Milliseconds from `now` until {@link updatedAgo}'s text for `updatedAt` next changes. */
export function nextAgeChangeMs(updatedAt: number, now: number, stepSeconds = 5): number {
  const age = Math.max(0, now - updatedAt);
  const stepMs = age < 60_000 ? stepSeconds * 1000 : age < 3_600_000 ? 60_000 : 3_600_000;
  const next = Math.floor(age / stepMs + 1) * stepMs;
  return Math.max(1, Math.min(next, age < 60_000 ? 60_000 : next) - age);
}

/** Display width of `text` in terminal cells: string-width's, through the fast path Ink uses too (fastStringWidth.ts). */
export function displayWidth(text: string): number {
  return fastStringWidth(text);
}

/** `text` truncated with "…" to at most `width` cells, then padded with spaces to exactly `width` cells. */
export function fitWidth(text: string, width: number): string {
  if (width <= 0) return '';
  let out = text;
  let w = displayWidth(out);
  if (w > width) {
    out = cliTruncate(out, width);
    w = displayWidth(out);
  }
  return w < width ? out + ' '.repeat(width - w) : out;
}

/** `text` truncated with "…" to at most `width` cells (no padding). */
export function truncateTo(text: string, width: number): string {
  if (width <= 0) return '';
  return displayWidth(text) > width ? cliTruncate(text, width) : text;
}

/**
 * `text` broken at spaces into lines of at most `width` cells. A word longer than the width is
 * broken across lines (`longWord: 'break'`: every character kept) or cut hard (`'cut'`).
 */
function wrapLines(text: string, width: number, longWord: 'break' | 'cut'): string[] {
  if (width <= 0) return [];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (displayWidth(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    let rest = word;
    if (longWord === 'cut' && displayWidth(rest) > width) rest = truncateTo(rest, width);
    while (displayWidth(rest) > width) {
      let head = '';
      for (const ch of rest) {
        if (displayWidth(head + ch) > width) break;
        head += ch;
      }
      if (head === '') head = [...rest][0]!;
      lines.push(head);
      rest = rest.slice(head.length);
    }
    line = rest;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * `text` broken at spaces into as many lines of at most `width` cells as it needs; a word longer
 * than the width is broken across lines, never cut: every character of `text` but the spaces
 * at the breaks is kept.
 */
export function wrapAll(text: string, width: number): string[] {
  return wrapLines(text, width, 'break');
}

/**
 * `text` broken at spaces into lines of at most `width` cells (a word longer than the width is
 * cut hard); at most `maxLines` lines, the last one ending in "…" only when text was left over.
 */
export function wrapWords(text: string, width: number, maxLines = Number.POSITIVE_INFINITY): string[] {
  const lines = wrapLines(text, width, 'cut');
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = truncateTo(`${kept[maxLines - 1]} ${lines[maxLines]}`, width);
  return kept;
}
