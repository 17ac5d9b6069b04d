/**
 * Pure helpers of the Keys pane: the sort orders of consumption keys, their table
 * columns fitted to the terminal width, and the display row of one key.
 */
import type { ReservedHours } from '../../../api/poolBlocks.js';
import { compareNames } from '../../../terminal/collate.js';
import type { ConsumptionKey } from '../../../api/schemas.js';
import { centsText } from '../../../api/money.js';
import type { UsagePeriod } from '../../../api/usageSchemas.js';
import type { SpendRow } from '../../../billing/spend.js';
import { periodWords } from '../../../billing/usageWords.js';
import type { DataColumn, DataRow } from '../../components/DataTable.js';
import { tableWidth } from '../../components/DataTable.js';
import { countdownChangeAt, DAY, earliest, expiresIn, HOUR, MINUTE, newestFirst, parseTime, shortDate } from '../../format.js';
import { EXPIRY_WARNING_MS, keyStatus, paidTimeLeftMs, timeLeftWords, type KeyStatus } from '../../../api/keyStatus.js';
import { symbols } from '../../theme.js';

/** Sort orders cycled by `s`, in order. */
export const KEY_SORTS = ['created', 'name', 'status', 'expiry', 'spend'] as const;
/** One of {@link KEY_SORTS}. */
export type KeySort = (typeof KEY_SORTS)[number];

/** The sort after `sort`. */
export function nextSort(sort: KeySort): KeySort {
  return KEY_SORTS[(KEY_SORTS.indexOf(sort) + 1) % KEY_SORTS.length]!;
}

/** What each sort means, for the status line. */
export const SORT_LABELS: Readonly<Record<KeySort, string>> = {
  created: 'newest first',
  name: 'by name',
  status: 'active first, then expired, then inactive',
  expiry: 'soonest expiry first (credit keys last)',
  spend: 'biggest spend first (the last 24 h; keys without figures last)',
};

const STATUS_RANK: Record<KeyStatus, number> = { active: 0, expired: 1, inactive: 2 };

/**
 * A sorted copy of `keys` (stable; ties by name, except `created`: {@link newestFirst}). `now` (epoch ms) decides "expired"; `spendOf`
 * gives a key's spend for the `spend` sort (USD; −1 or less for none: sorted last).
 */
export function sortKeys(keys: readonly ConsumptionKey[], sort: KeySort, now: number, spendOf: (id: string) => number = () => -1): ConsumptionKey[] {
  const byName = (a: ConsumptionKey, b: ConsumptionKey) => compareNames(a.name, b.name);
  const out = [...keys];
  switch (sort) {
    case 'name':
      return out.sort(byName);
    case 'created':
      return newestFirst(out);
    case 'status': {
      const s = new Map(out.map((k) => [k, STATUS_RANK[keyStatus(k, now)]]));
      return out.sort((a, b) => s.get(a)! - s.get(b)! || byName(a, b));
    }
    case 'spend': {
      const v = new Map(out.map((k) => [k, spendOf(k.id)]));
      return out.sort((a, b) => v.get(b)! - v.get(a)! || byName(a, b));
    }
    case 'expiry': {
      const e = new Map(out.map((k) => [k, parseTime(k.subscriptionExpiresAt) ?? Number.POSITIVE_INFINITY]));
      return out.sort((a, b) => {
        const d = e.get(a)! - e.get(b)!;
        return Number.isNaN(d) || d === 0 ? byName(a, b) : d;
      });
    }
  }
}

/**
 * The status cell: a symbol and a word. An active pool key whose reserved blocks are known
 * (`hours`) says `● in block` or `○ outside` (its requests get 429 until its next block).
 */
export function statusCell(status: KeyStatus, hours?: ReservedHours): string {
  if (status === 'active' && hours) return hours.inside ? `${symbols.active} in block` : `${symbols.inactive} outside`;
  if (status === 'active') return `${symbols.active} active`;
  if (status === 'expired') return `${symbols.expired} expired`;
  return `${symbols.inactive} inactive`;
}

/** The type cell: `sub` or `credit` (the details panel spells it out). */
export function typeCell(keyType: string): string {
  return keyType === 'subscription' ? 'sub' : keyType;
}

/** Width of the expiry column: room for `⚠ 11 h left`. */
const EXPIRES_WIDTH = 11;

/**
 * True when `key` is a subscription within {@link EXPIRY_WARNING_MS} (3 days) of its end at `now`
 * (the service's clock) and not yet ended: its paid time is about to run out.
 */
export function endsSoon(key: ConsumptionKey, now: number): boolean {
  const left = paidTimeLeftMs(key, now);
  return left !== undefined && left > 0 && left <= EXPIRY_WARNING_MS;
}

/** Paid time left in the row's short form: `2 d`, `11 h`, `<1 h`. */
export function shortTimeLeft(ms: number): string {
  if (ms >= DAY) return `${Math.floor(ms / DAY)} d`;
  if (ms >= HOUR) return `${Math.floor(ms / HOUR)} h`;
  return '<1 h';
}

/**
 * The expiry of `key` at `now` (epoch ms, the service's clock where known) in words: `—` for a
 * credit key, `expired` whenever its status is (the service may say so before this clock does:
 * the two never disagree on screen), `⚠ 11 h left` within 3 days of the end, else `in 29 d`.
 */
export function expiryCell(key: ConsumptionKey, now: number): string {
  if (key.keyType === 'credit') return '—';
  if (keyStatus(key, now) === 'expired') return 'expired';
  if (endsSoon(key, now)) return `${symbols.warning} ${shortTimeLeft(paidTimeLeftMs(key, now)!)} left`;
  return expiresIn(key.subscriptionExpiresAt, now);
}

/**
 * The subscription key that ends soonest within 3 days (see {@link endsSoon}), for the one
 * warning above the panes; undefined when none does.
 */
export function soonestEnding(keys: readonly ConsumptionKey[] | undefined, now: number): { key: ConsumptionKey; leftMs: number } | undefined {
  let best: { key: ConsumptionKey; leftMs: number } | undefined;
  for (const key of keys ?? []) {
    if (!endsSoon(key, now)) continue;
    const leftMs = paidTimeLeftMs(key, now)!;
    if (!best || leftMs < best.leftMs) best = { key, leftMs };
  }
  return best;
}

/**
 * The one app-wide warning of a subscription about to end (beside the pane tabs):
 * `⚠ subscription ends in 11 h` (compact: `⚠ sub ends in 11 h`); undefined when none is.
 */
export function subscriptionNotice(keys: readonly ConsumptionKey[] | undefined, now: number, compact = false): string | undefined {
  const soonest = soonestEnding(keys, now);
  if (!soonest) return undefined;
  return compact ? `${symbols.warning} sub ends in ${shortTimeLeft(soonest.leftMs)}` : `${symbols.warning} subscription ends in ${timeLeftWords(soonest.leftMs)}`;
}

/** When `key`'s status turns `expired` by the clock (epoch ms): its `subscriptionExpiresAt`; undefined when it has none or is expired already by the service's word. */
function statusEndOf(key: ConsumptionKey): number | undefined {
  return key.subscriptionStatus === 'expired' ? undefined : parseTime(key.subscriptionExpiresAt);
}

/**
 * When the row of `key` ({@link keyRow}: its status, {@link expiryCell}; `hours`: where it stands in
 * its reserved blocks) may next read otherwise, at or after `now` (epoch ms, the service's clock):
 * the expiry cell's days, then hours (`⚠ 11 h left`, `<1 h` to the end), the status at the end, a
 * pool key's block starting or ending. Undefined when nothing in it moves with the clock.
 */
export function keyRowChangeAt(key: ConsumptionKey, now: number, hours?: ReservedHours): number | undefined {
  const end = statusEndOf(key);
  // Only a key that is not a subscription counts its last hour in minutes (`expiresIn`).
  const expiry = end === undefined ? undefined : countdownChangeAt(end, now, (left) => (left >= DAY ? DAY : left >= HOUR || key.keyType === 'subscription' ? HOUR : MINUTE));
  return earliest(expiry, hours && reservedHoursChangeAt(hours));
}

/** When a key standing at `hours` goes in or out of its reserved blocks (epoch ms); undefined when never. */
export function reservedHoursChangeAt(hours: ReservedHours): number | undefined {
  const at = hours.inside ? hours.endsAt : hours.startsAt;
  return Number.isFinite(at) ? at : undefined;
}

/**
 * When {@link timeLeftWords} of the paid time of `key` may next say something else, at or after
 * `now` (the service's clock): days from 48 h on, then hours, then minutes, the last at its end.
 */
export function timeLeftChangeAt(key: ConsumptionKey, now: number): number | undefined {
  const end = statusEndOf(key);
  return end === undefined ? undefined : countdownChangeAt(end, now, (left) => (left >= 2 * DAY ? DAY : left >= HOUR ? HOUR : MINUTE));
}

/**
 * When {@link subscriptionNotice}`(keys, t)` may next say something else, at or after `now` (the
 * service's clock): a subscription's 3 days before its end, then its time left counted down.
 */
export function subscriptionNoticeChangeAt(keys: readonly ConsumptionKey[] | undefined, now: number): number | undefined {
  return earliest(
    ...(keys ?? []).map((key) => {
      const end = key.keyType === 'subscription' ? statusEndOf(key) : undefined;
      if (end === undefined) return undefined;
      // Said from 3 days before the end on.
      return end - now > EXPIRY_WARNING_MS ? end - EXPIRY_WARNING_MS : timeLeftChangeAt(key, now);
    }),
  );
}

/**
 * The times (epoch ms, ascending) at which keys of `keys` turn `expired` by the clock: the sort by
 * status changes there ({@link expiredBy}).
 */
export function statusEnds(keys: readonly ConsumptionKey[] | undefined): number[] {
  const ends: number[] = [];
  for (const key of keys ?? []) {
    const end = statusEndOf(key);
    if (end !== undefined) ends.push(end);
  }
  return ends.sort((a, b) => a - b);
}

/** How many of `ends` ({@link statusEnds}) have passed at `now`, and the next one after it (undefined: none left). */
export function expiredBy(ends: readonly number[], now: number): { readonly count: number; readonly next: number | undefined } {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid]! <= now) lo = mid + 1;
    else hi = mid;
  }
  return { count: lo, next: ends[lo] };
}

/** Width of the budget column: a bar of 5 cells and a percentage (`███░░ 64%`). */
const BUDGET_COLUMN_WIDTH = 10;

/** Width of a spend column: room for `$9999.99` (larger amounts shorten: `$12.3k`). */
const SPEND_WIDTH = 8;

/** A spend for a table cell: `$12.40`, `$12.3k`, `$1.2M` (cut, never rounded up). */
export function spendCell(usd: number | undefined): string {
  if (usd === undefined) return '—';
  if (usd < 10_000) return `$${centsText(usd)}`;
  if (usd < 1e6) return `$${Math.floor(usd / 100) / 10}k`;
  return `$${Math.floor(usd / 1e5) / 10}M`;
}

/**
 * The spend periods the Keys pane shows at `width` columns, from those the service gives: at 80
 * and 100 columns 24 h and 30 d (a name keeps room), from 120 also 7 d, from 140 all time (the
 * compact layout: the share period only).
 */
export function spendColumnsFor(width: number, compact: boolean, given: readonly UsagePeriod[]): UsagePeriod[] {
  if (given.length === 0) return [];
  if (compact) return [given.includes('24h') ? '24h' : given[0]!];
  const wanted: readonly UsagePeriod[] = width >= 140 ? ['24h', '7d', '30d', 'total'] : width >= 120 ? ['24h', '7d', '30d'] : ['24h', '30d'];
  const shown = wanted.filter((p) => given.includes(p));
  return shown.length > 0 ? shown : given.slice(0, width >= 120 ? 3 : 2);
}

/**
 * Table columns of the Keys pane for a terminal `width` cells wide; `spend` are the spend
 * periods shown (see {@link spendColumnsFor}): with them, `plan` and `created` give way below 120
 * and 100 columns (the details show both); `budget`: a rule governs some key (./keyBudget.ts).
 */
export function keyColumns(width: number, compact: boolean, sort: KeySort, spend: readonly UsagePeriod[] = [], budget = false): DataColumn[] {
  const arrow = (s: KeySort, title: string) => (s === sort ? `${title} ↓` : title);
  // With budgets (docs/guardrails.md), their bar after the status; the type gives way below 100 columns (the details say it).
  const budgetCols: DataColumn[] = budget ? [{ key: 'budget', title: 'budget', width: BUDGET_COLUMN_WIDTH }] : [];
  const spendCols: DataColumn[] = spend.map((p, i) => ({ key: `spend:${p}`, title: i === 0 ? arrow('spend', periodWords(p)) : periodWords(p), width: SPEND_WIDTH, align: 'right' }));
  const withSpend = spend.length > 0;
  const fixed: DataColumn[] = compact
    ? [
        ...(withSpend || budget ? [] : [{ key: 'type', title: 'type', width: 6 }]),
        { key: 'status', title: arrow('status', 'status'), width: 10 },
        ...budgetCols,
        { key: 'expires', title: arrow('expiry', 'expires'), width: EXPIRES_WIDTH },
        ...spendCols,
      ]
    : [
        ...(budget && width < 100 ? [] : [{ key: 'type', title: 'type', width: 6 }]),
        ...((withSpend || budget) && width < 120 ? [] : [{ key: 'plan', title: 'plan', width: 8 }]),
        { key: 'status', title: arrow('status', 'status'), width: 10 },
        ...budgetCols,
        { key: 'expires', title: arrow('expiry', 'expires'), width: EXPIRES_WIDTH },
        ...((withSpend || budget) && width < 100 ? [] : [{ key: 'created', title: arrow('created', 'created'), width: 10 }]),
        ...spendCols,
      ];
  const nameWidth = Math.max(8, width - tableWidth([0, ...fixed.map((c) => c.width)]));
  return [{ key: 'name', title: arrow('name', '  name'), width: nameWidth }, ...fixed];
}

/**
 * The display row of `key`; `selected` puts the `▶` marker in the name cell; `spend` its usage
 * figures (`—` in every spend cell without them, or when they were refused); `hours` where it
 * stands in its reserved blocks (pool keys whose blocks are known).
 */
export function keyRow(key: ConsumptionKey, selected: boolean, now: number, spend?: SpendRow, hours?: ReservedHours): DataRow {
  const row: Record<string, string> = {
    name: `${selected ? symbols.selected : ' '} ${key.name}`,
    type: typeCell(key.keyType),
    plan: key.keyPlan,
    status: statusCell(keyStatus(key, now), hours),
    expires: expiryCell(key, now),
    created: shortDate(key.createdAt),
  };
  // A key the usage read does not name (made since it, say) shows "—" (not read), never a blank cell.
  for (const p of ['24h', '7d', '30d', 'total']) row[`spend:${p}`] = '—';
  if (spend && spend.refused === undefined) for (const [p, u] of Object.entries(spend.periods)) row[`spend:${p}`] = spendCell(u?.spend);
  return row;
}
