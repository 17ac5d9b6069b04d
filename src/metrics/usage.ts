/**
 * Where the money goes on an account's registry: the spend gauges of ./spend.ts
 * fed by a UsageTracker (src/billing/usageTracker.ts: reads through the one 12-per-12-hours
 * budget shared by every keydeck process), the same way for `keydeck monitor --metrics` and
 * `keydeck exporter`. The account's text is written afresh whenever the tracker's snapshot
 * changes (./exposition.ts keeps it otherwise).
 */
import type { ConsumptionKey } from '../api/schemas.js';
import { sharePeriod, spendRows } from '../billing/spend.js';
import type { UsageTracker } from '../billing/usageTracker.js';
import type { AccountMetrics } from './account.js';
import { registerSpendMetrics } from './spend.js';

/**
 * Registers the spend gauges of the tracker `tracker()` gives (undefined: none yet) on `metrics`' registry. `keys` (the last key list read,
 * when there is one) names keys the usage answer leaves unnamed.
 */
export function registerUsageMetrics(
  metrics: AccountMetrics,
  tracker: () => Pick<UsageTracker, 'snapshot' | 'clockOffsetMs'> | undefined,
  keys: () => readonly ConsumptionKey[] | undefined = () => undefined,
): void {
  registerSpendMetrics(metrics.registry, () => {
    const usage = tracker();
    const snap = usage?.snapshot;
    if (!usage || !snap?.report) return undefined;
    const list = keys();
    return {
      rows: spendRows(
        snap.report,
        list?.map((k) => ({ id: k.id, name: k.name, keyType: k.keyType })),
      ),
      period: sharePeriod(snap.report.periods),
      at: snap.at,
      budget: snap.budget,
      now: Date.now() + usage.clockOffsetMs,
      episodes: snap.episodes,
    };
  });
  metrics.watch(() => tracker()?.snapshot);
}
