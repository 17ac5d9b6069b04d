/**
 * Per-key guardrails as numbers (docs/guardrails.md), for every face alike: which rule governs a
 * key (src/config/guardrailRules.ts), the UTC period a budget counts over, what the key spent in
 * it, how far it could go past its limit before keydeck sees it again, and when a key passes its
 * `maxAge` or `expiresIn`. Pure: the enforcement (src/operations/guardrail.ts) and the views (the
 * Keys pane, `keys list`, `plan`, the exporter's gauges) read the same figures.
 *
 * The service counts spend over rolling periods (24 h, 7 d, 30 d, all time), not calendar ones,
 * and allows 12 usage reads per 12 hours: a budget's spend is reckoned from what the reads give
 * ({@link spendInPeriod}), and the guardrail is a soft cap. Times are the service's clock, ms.
 */
import { PERIOD_MS, type KeyUsage } from '../api/usageSchemas.js';
import { DEFAULT_THRESHOLDS, DEFAULT_WARN_BEFORE_SECONDS, type BudgetPeriod, type BudgetRule, type KeyRule } from '../config/guardrailRules.js';
import { keyBurnRate, type KeySample } from './runaway.js';

const DAY_MS = 86_400_000;

/**
 * The UTC period of kind `period` that holds `t` (epoch ms): a day from midnight, a week from
 * Monday's midnight (ISO weeks), a month from the 1st's midnight. `end` is the next one's start.
 */
export function periodBounds(period: BudgetPeriod, t: number): { readonly start: number; readonly end: number } {
  const d = new Date(t);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (period === 'day') return { start: midnight, end: midnight + DAY_MS };
  if (period === 'week') {
    const start = midnight - ((d.getUTCDay() + 6) % 7) * DAY_MS;
    return { start, end: start + 7 * DAY_MS };
  }
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

/** Memo of compiled patterns (a pure function of the pattern). */
const patterns = new Map<string, RegExp>();

/** True when `name` matches `pattern`: `*` any run of characters, `?` one, the rest as written. */
export function matchesName(pattern: string, name: string): boolean {
  let re = patterns.get(pattern);
  if (!re) {
    re = new RegExp(`^${[...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.+()[\]{}|]/g, '\\$&'))).join('')}$`, 'su');
    if (patterns.size < 1000) patterns.set(pattern, re);
  }
  return re.test(name);
}

/** The rule that names the key `name` exactly, if any (a key the policy file declares). */
export function namedRule(rules: readonly KeyRule[], name: string): KeyRule | undefined {
  return rules.find((r) => r.name === name);
}

/**
 * The budget that governs the key `name`: its own rule's, else the first pattern's that matches it
 * (in the policy file's order; `*` matches every key). Undefined: none.
 */
export function budgetOf(rules: readonly KeyRule[], name: string): BudgetRule | undefined {
  const own = namedRule(rules, name)?.budget;
  if (own) return own;
  return rules.find((r) => r.match !== undefined && r.budget !== undefined && matchesName(r.match, name))?.budget;
}

/** How a period's spend was reckoned (see {@link spendInPeriod}). */
export type SpendBasis = 'no_read_yet' | 'since_read' | '24h' | '7d' | '30d' | 'total';

/** A key's spend in a period: USD, and how it was reckoned. */
export interface PeriodSpend {
  readonly usd: number;
  readonly basis: SpendBasis;
}

/**
 * What the key spent since `start` (the period's start) as of the read at `at`, from its figures
 * in that read (`usage`) and its earlier reads (`samples`, oldest first: src/billing/keyHistory.ts).
 * Each of these is at least the true spend, and the least of them is taken:
 * - its all-time spend now less its all-time spend at the last read at or before `start`
 *   (what it spent between that read and the period's start counts too: the guardrail may act
 *   early by that much, never later than the reads allow);
 * - the shortest rolling period the service gives that covers the whole period so far (24 h for
 *   a day, 7 d for a week, 30 d for a month up to its 30th day);
 * - its all-time spend.
 * A read before `start` knows nothing of the period yet: 0 (`no_read_yet`). Undefined when the
 * read has no figures for the key (or refused them).
 */
export function spendInPeriod(start: number, usage: KeyUsage | undefined, samples: readonly KeySample[], at: number | undefined): PeriodSpend | undefined {
  if (at === undefined || !usage || usage.refused !== undefined) return undefined;
  if (at < start) return { usd: 0, basis: 'no_read_yet' };
  const bounds: PeriodSpend[] = [];
  const total = usage.periods.total?.spend;
  let base: KeySample | undefined;
  for (const s of samples) if (s.t <= start) base = s;
  if (total !== undefined && base) bounds.push({ usd: Math.max(0, Math.round((total - base.cum) * 1e6) / 1e6), basis: 'since_read' });
  for (const p of ['24h', '7d', '30d'] as const) {
    const figure = usage.periods[p];
    if (figure && at - PERIOD_MS[p] <= start) {
      bounds.push({ usd: figure.spend, basis: p });
      break;
    }
  }
  if (total !== undefined) bounds.push({ usd: total, basis: 'total' });
  if (bounds.length === 0) return undefined;
  return bounds.reduce((a, b) => (b.usd < a.usd ? b : a));
}

/** The key's spend rate, USD/hour: over its reads of the last 24 h, else its 24 h spend over 24 h; undefined when unknown. */
export function burnRateUsdPerHour(samples: readonly KeySample[], usage: KeyUsage | undefined): number | undefined {
  const fromReads = keyBurnRate(samples, DAY_MS);
  if (fromReads !== undefined) return fromReads;
  const d1 = usage?.refused === undefined ? usage?.periods['24h']?.spend : undefined;
  return d1 === undefined ? undefined : d1 / 24;
}

/** A key's budget as it stands. USD, ms. */
export interface BudgetView {
  readonly rule: BudgetRule;
  /** The thresholds in force (the rule's, the account's, or the default), ascending. */
  readonly thresholds: readonly number[];
  /** The current period. */
  readonly start: number;
  readonly end: number;
  /** Spent in the period (undefined: no figures for the key). */
  readonly spentUsd?: number;
  readonly basis?: SpendBasis;
  /** `spentUsd / limit`. */
  readonly ratio?: number;
  /** When the figures were read. */
  readonly readAt?: number;
  /** The key's spend rate, USD/hour. */
  readonly usdPerHour?: number;
  /**
   * The soft cap's worst case: what the key can spend at its rate between the figures it is judged
   * by (`readAt`) and the next usage read (`nextReadAt`), USD. Undefined when either is unknown.
   */
  readonly overshootUsd?: number;
  readonly nextReadAt?: number;
  /** The thresholds reached, ascending. */
  readonly crossed: readonly number[];
  /** The limit is reached. */
  readonly atLimit: boolean;
}

/** What {@link budgetView} reads. */
export interface BudgetFigures {
  /** The key's figures in the last read (undefined: the read does not name it). */
  readonly usage?: KeyUsage | undefined;
  /** Its earlier reads, oldest first. */
  readonly samples: readonly KeySample[];
  /** When the last read was made (undefined: never). */
  readonly at?: number | undefined;
  /** The service's time now. */
  readonly now: number;
  /** When the next usage read is due (the shared schedule: src/billing/usageBudget.ts `nextAutoAt`). */
  readonly nextReadAt?: number | undefined;
  /** The account's thresholds (the policy file's `account.thresholds`). */
  readonly thresholds?: readonly number[] | undefined;
}

/** The budget `rule` of a key with `figures` (see {@link BudgetView}). */
export function budgetView(rule: BudgetRule, figures: BudgetFigures): BudgetView {
  const { start, end } = periodBounds(rule.period, figures.now);
  const thresholds = [...(rule.thresholds ?? figures.thresholds ?? DEFAULT_THRESHOLDS)].sort((a, b) => a - b);
  const spend = spendInPeriod(start, figures.usage, figures.samples, figures.at);
  const ratio = spend === undefined ? undefined : spend.usd / rule.limitUsd;
  const usdPerHour = burnRateUsdPerHour(figures.samples, figures.usage);
  const from = figures.at ?? figures.now;
  const overshootUsd = usdPerHour !== undefined && figures.nextReadAt !== undefined ? Math.round(usdPerHour * (Math.max(0, figures.nextReadAt - from) / 3_600_000) * 100) / 100 : undefined;
  return {
    rule,
    thresholds,
    start,
    end,
    ...(spend && { spentUsd: spend.usd, basis: spend.basis, ratio: ratio! }),
    ...(figures.at !== undefined && { readAt: figures.at }),
    ...(usdPerHour !== undefined && { usdPerHour }),
    ...(overshootUsd !== undefined && { overshootUsd }),
    ...(figures.nextReadAt !== undefined && { nextReadAt: figures.nextReadAt }),
    crossed: ratio === undefined ? [] : thresholds.filter((t) => ratio >= t),
    atLimit: ratio !== undefined && ratio >= 1,
  };
}

/** A key's `maxAge` or `expiresIn` as it stands. ms. */
export interface DeadlineView {
  readonly kind: 'age' | 'expiry';
  /** When it passes (the key's creation plus the rule's duration). */
  readonly dueAt: number;
  /** When it is warned of. */
  readonly warnAt: number;
  readonly state: 'ok' | 'warning' | 'due';
  /** What happens when it passes: rotated or flagged (`maxAge`), disabled (`expiresIn`). */
  readonly action: 'rotate' | 'flag' | 'disable';
}

/**
 * The deadlines `rule` sets for a key created at `createdAt` (ISO 8601, the service's), as of
 * `now`: `maxAge`, and `expiresIn` for a credit key. Empty when it sets none or the date is unreadable.
 */
export function deadlines(rule: KeyRule | undefined, key: { readonly createdAt: string; readonly keyType: string }, now: number): DeadlineView[] {
  const created = Date.parse(key.createdAt);
  if (!rule || !Number.isFinite(created)) return [];
  const warn = (rule.warnBeforeSeconds ?? DEFAULT_WARN_BEFORE_SECONDS) * 1000;
  const view = (kind: DeadlineView['kind'], seconds: number, action: DeadlineView['action']): DeadlineView => {
    const dueAt = created + seconds * 1000;
    const warnAt = dueAt - Math.min(warn, seconds * 500);
    return { kind, dueAt, warnAt, state: now >= dueAt ? 'due' : now >= warnAt ? 'warning' : 'ok', action };
  };
  const out: DeadlineView[] = [];
  if (rule.maxAgeSeconds !== undefined) out.push(view('age', rule.maxAgeSeconds, rule.onMaxAge ?? 'rotate'));
  if (rule.expiresInSeconds !== undefined && key.keyType === 'credit') out.push(view('expiry', rule.expiresInSeconds, 'disable'));
  return out;
}
