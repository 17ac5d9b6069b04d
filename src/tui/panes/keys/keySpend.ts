/**
 * What the Keys pane shows of usage, from the usage context: each key's spend row (the
 * spend columns), the spend to sort by (the share period, 24 h when given), and the selected key's
 * details: figures, share, the bars of its spend read by read, and the line that says how old the
 * figures are, how many reads are left and when the next is allowed.
 */
import { useCallback, useMemo } from 'react';
import type { UsagePeriod } from '../../../api/usageSchemas.js';
import { intervalRate } from '../../../billing/runaway.js';
import { SPARK_BARS } from '../../../billing/sparkline.js';
import { accountSpend, type SpendRow } from '../../../billing/spend.js';
import { usageLineChangeAt, usageStatusLine } from '../../../billing/usageWords.js';
import type { KeySpendDetails } from '../../components/KeyDetails.js';
import { useUsage } from '../../contexts/UsageContext.js';

/** Width of the bars of a key's spend in its details, cells. */
const SPARK_CELLS = 14;

/** The Keys pane's view of usage. */
export interface KeySpendView {
  /** The periods the last answer gives (none: no spend columns). */
  readonly periods: readonly UsagePeriod[];
  readonly rowOf: (keyId: string) => SpendRow | undefined;
  /** The spend to sort by, USD (−1 without figures). */
  readonly spendOf: (keyId: string) => number;
  /** The details' usage part at `now` (service ms); undefined when no usage is read in this session. */
  readonly detailsOf: (keyId: string, now: number) => KeySpendDetails | undefined;
  /**
   * When the details' usage line (the figures' age, a wait) may next say something else after
   * `now` (service ms; src/billing/usageWords.ts `usageLineChangeAt`); undefined when it does not
   * move with the clock. The pane is drawn again then (./KeysPane.tsx).
   */
  readonly statusChangeAt: (now: number) => number | undefined;
}

/** The bars of a key's spend rate between consecutive reads (oldest left); '' with fewer than two intervals. */
export function rateBars(samples: ReadonlyArray<{ t: number; cum: number }>, width = SPARK_CELLS): string {
  const rates: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const r = intervalRate(samples[i - 1]!, samples[i]!);
    if (r) rates.push(r.usdPerHour);
  }
  if (rates.length < 2) return '';
  // Rates are drawn from zero (a flat spend is a flat row of bars, not noise blown up).
  const max = Math.max(...rates);
  if (max <= 0) return SPARK_BARS[0].repeat(Math.min(width, rates.length));
  const step = rates.length <= width ? 1 : rates.length / width;
  const out: string[] = [];
  for (let c = 0; c < Math.min(width, rates.length); c++) {
    const v = rates[Math.min(rates.length - 1, Math.floor((c + 1) * step) - 1)]!;
    out.push(SPARK_BARS[Math.round((v / max) * (SPARK_BARS.length - 1))]!);
  }
  return out.join('');
}

/** See the module comment. */
export function useKeySpend(): KeySpendView {
  const usage = useUsage();
  const { byId, period, snapshot, rows, available, behindBalance, samplesOf } = usage;
  // The account's spend over the share period, once per answer: a key's share is its spend over it.
  const total = useMemo(() => (period ? accountSpend(rows, period) : 0), [rows, period]);
  const rowOf = useCallback((id: string) => byId.get(id), [byId]);
  const spendOf = useCallback((id: string) => (period ? (byId.get(id)?.periods[period]?.spend ?? -1) : -1), [byId, period]);
  const detailsOf = useCallback(
    (id: string, now: number): KeySpendDetails | undefined => {
      if (!available) return undefined;
      const budget = snapshot.budget;
      const status = `${usageStatusLine(snapshot.at, budget && { ...budget, now }, 'u reads now')}${behindBalance ? ' · older than the last balance change' : ''}`;
      const spend = byId.get(id);
      const own = period ? spend?.periods[period]?.spend : undefined;
      const share = own !== undefined && total > 0 ? own / total : undefined;
      const spark = rateBars(samplesOf(id));
      return {
        ...(spend && { spend }),
        periods: snapshot.report?.periods ?? [],
        ...(share !== undefined && { share }),
        ...(period && { period }),
        ...(spark && { spark }),
        status,
      };
    },
    [available, snapshot, behindBalance, byId, total, period, samplesOf],
  );
  const statusChangeAt = useCallback((now: number) => (available && snapshot.budget ? usageLineChangeAt(snapshot.at, { ...snapshot.budget, now }) : undefined), [available, snapshot]);
  return useMemo(() => ({ periods: snapshot.report?.periods ?? [], rowOf, spendOf, detailsOf, statusChangeAt }), [snapshot.report, rowOf, spendOf, detailsOf, statusChangeAt]);
}
