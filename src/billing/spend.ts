/**
 * Who spends what: a usage answer (./usageReads.ts) joined with the key list
 * and the balance, as the Keys pane, the Billing pane, `monitor`, `keys usage` and the
 * metrics show it. Pure.
 *
 * - A key id in the usage that the key list lacks is a deleted key (its spend still counts: the
 *   service keeps a deleted key's spend, docs/topups.md's budget model).
 * - A credit key's spend larger than the account's total top-ups is refused for that key with a
 *   sentence (a credit key cannot spend money that was never topped up); a subscription key's is
 *   not compared (its use is paid by its subscription, not the balance).
 * - Shares are of the account's spend over one period: the sum of every key's figure that was
 *   not refused.
 */
import { compareNames } from '../terminal/collate.js';
import { formatUsd } from '../api/money.js';
import { USAGE_PERIODS, type KeyUsage, type PeriodUsage, type UsagePeriod, type UsageReport } from '../api/usageSchemas.js';

/** One key's spend as shown. */
export interface SpendRow {
  readonly id: string;
  /** The key list's name, else the usage's, else the id. */
  readonly name: string;
  /** `listed`: in the key list; `deleted`: the usage names a key the list lacks; `unknown`: no list to compare with. */
  readonly status: 'listed' | 'deleted' | 'unknown';
  readonly keyType?: string;
  /** Spend by period (empty when refused). */
  readonly periods: Partial<Record<UsagePeriod, PeriodUsage>>;
  /** Why no figures are shown for this key (one sentence). */
  readonly refused?: string;
  readonly usage: KeyUsage;
}

/**
 * The rows of `report` (its order), named from `keys` when given (the consumption key's fields list), with the
 * refusals above; `totalTopUp` (USD) is the account's, when known.
 */
export function spendRows(report: UsageReport, keys?: ReadonlyArray<{ id: string; name: string; keyType?: string }>, totalTopUp?: number): SpendRow[] {
  const listed = keys ? new Map(keys.map((k) => [k.id, k])) : undefined;
  return report.keys.map((usage): SpendRow => {
    const known = listed?.get(usage.id);
    const name = known?.name ?? usage.name ?? usage.id;
    const keyType = known?.keyType ?? usage.keyType;
    const status = listed === undefined ? 'unknown' : known ? 'listed' : 'deleted';
    let refused = usage.refused;
    if (refused === undefined && totalTopUp !== undefined && keyType !== 'subscription') {
      for (const p of USAGE_PERIODS) {
        const spend = usage.periods[p]?.spend;
        if (spend !== undefined && Math.round(spend * 100) > Math.round(totalTopUp * 100)) {
          refused = `${name}: its ${p === 'total' ? 'all-time' : p} spend (${formatUsd(spend)}) is larger than the account's total top-ups (${formatUsd(totalTopUp)}), so keydeck shows no figures for this key`;
          break;
        }
      }
    }
    return { id: usage.id, name, status, ...(keyType !== undefined && { keyType }), periods: refused === undefined ? usage.periods : {}, ...(refused !== undefined && { refused }), usage };
  });
}

/**
 * True when the usage read tells less spend than the balance does: the credit keys'
 * all-time spend in `rows` is more than a cent below what the balance record says was spent
 * (`totalTopUp − remaining`). The figures then predate spend that the balance already shows
 * (read in an earlier session, say), and "no spend" must not be said as a fact. False when the
 * report has no all-time figures or no balance is known.
 */
export function usageBehindBalance(rows: readonly SpendRow[], credits: { readonly totalTopUp: number; readonly remaining: number } | undefined): boolean {
  if (!credits || rows.length === 0) return false;
  let micros = 0;
  for (const r of rows) {
    if (r.keyType === 'subscription') continue;
    const total = r.periods.total?.spend;
    if (total === undefined) return false;
    micros += Math.round(total * 1e6);
  }
  const spentMicros = Math.round((credits.totalTopUp - credits.remaining) * 1e6);
  return micros + 10_000 < spentMicros;
}

/** The period shares and top spenders are reckoned over: 24 h when given, else the shortest given. */
export function sharePeriod(periods: readonly UsagePeriod[]): UsagePeriod | undefined {
  return periods.includes('24h') ? '24h' : periods[0];
}

/** The account's spend over `period`: the sum of the rows' figures (refused rows left out), USD. */
export function accountSpend(rows: readonly SpendRow[], period: UsagePeriod): number {
  let micros = 0;
  for (const r of rows) micros += Math.round((r.periods[period]?.spend ?? 0) * 1e6);
  return micros / 1e6;
}

/** A top spender: the row, its spend over the period (USD) and its share of the account's (0–1). */
export interface TopSpender {
  readonly row: SpendRow;
  readonly spend: number;
  readonly share: number;
}

/** The `n` rows that spent most over `period` (ties by name), with their shares; rows that spent nothing left out. */
export function topSpenders(rows: readonly SpendRow[], period: UsagePeriod, n: number): TopSpender[] {
  const total = accountSpend(rows, period);
  return rows
    .map((row) => ({ row, spend: row.periods[period]?.spend ?? 0 }))
    .filter((s) => s.spend > 0)
    .sort((a, b) => b.spend - a.spend || compareNames(a.row.name, b.row.name))
    .slice(0, Math.max(0, n))
    .map((s) => ({ ...s, share: total > 0 ? s.spend / total : 0 }));
}

/** The row that spent most over `period` (one pass; ties: the first), or undefined when none spent. */
export function topSpender(rows: readonly SpendRow[], period: UsagePeriod): SpendRow | undefined {
  let best: SpendRow | undefined;
  let most = 0;
  for (const r of rows) {
    const spend = r.periods[period]?.spend ?? 0;
    if (spend > most) {
      most = spend;
      best = r;
    }
  }
  return best;
}
