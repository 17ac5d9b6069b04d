/**
 * Auto top-up's state between runs, from this machine's record and policy alone, no
 * request: what the faces show (the Billing pane's and the monitor's line, the exporter's metrics)
 * and `keydeck autotopup status` says. A run reads the service's own lists as well
 * (./autoTopUp.ts); this is what this machine knows.
 */
import { utcDay, utcMonth } from '../billing/autoTopUp.js';
import { chargedSince, recordFailureStreak } from '../billing/autoTopUpCount.js';
import type { JournalEntry } from '../billing/journal.js';
import { PAUSE_AFTER_FAILURES, type AutoTopUpPolicy } from '../config/autoTopUp.js';

/** The policy's state from this machine's record alone. USD. */
export interface AutoTopUpSummary {
  /** Paused after {@link PAUSE_AFTER_FAILURES} failed charges in a row (this machine's record). */
  readonly paused: boolean;
  readonly failures: number;
  /** Paused on this machine because another machine charged for the same fall: the sentence that names it. */
  readonly twoMachines?: string;
  readonly chargedToday: number;
  readonly chargedThisMonth: number;
  readonly dayCapRemaining: number;
  readonly monthCapRemaining: number;
}

const NOTHING_LISTED = { pending: [], finished: [], failed: [], lists: false } as const;

/** {@link AutoTopUpSummary} of `records` (the profile's) under `policy`, at `serviceNow` (ms): every card charge on record counts toward the caps, auto or by hand. */
export function summarize(records: readonly JournalEntry[], policy: AutoTopUpPolicy, serviceNow: number): AutoTopUpSummary {
  const now = new Date(serviceNow);
  const none = new Set<string>();
  const chargedToday = chargedSince(records, NOTHING_LISTED, none, utcDay(now).start.getTime());
  const chargedThisMonth = chargedSince(records, NOTHING_LISTED, none, utcMonth(now).start.getTime());
  const failures = recordFailureStreak(records, policy.since);
  return {
    paused: failures >= PAUSE_AFTER_FAILURES,
    failures,
    ...(policy.paused !== undefined && { twoMachines: policy.paused.reason }),
    chargedToday,
    chargedThisMonth,
    dayCapRemaining: Math.max(0, Math.round((policy.maxPerDayUsd - chargedToday) * 100) / 100),
    monthCapRemaining: Math.max(0, Math.round((policy.maxPerMonthUsd - chargedThisMonth) * 100) / 100),
  };
}
