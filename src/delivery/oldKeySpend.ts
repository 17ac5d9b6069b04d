/**
 * The old key's spend at a rotation's handover, in words (the figures of the usage record), for
 * the command line and the TUI alike: its spend over the shortest period the usage answer gives,
 * its rate between the last reads of the per-key history, and whether it spent in an interval that
 * ends after the successor was delivered (then it is still in use). Pure.
 */
import { USAGE_PERIODS, type PeriodUsage, type UsagePeriod } from '../api/usageSchemas.js';
import { keyBurnRate, type KeySample } from '../billing/runaway.js';
import { formatUsd } from '../api/money.js';
import { ageWords, periodWords, rateWords } from '../billing/usageWords.js';

/** Longest interval the rate is taken over, ms. */
const RATE_WINDOW_MS = 3 * 3_600_000;

/** What the figures say of the old key. */
export interface OldKeySpend {
  /** One sentence, without a final period: `usage figures of 14 min ago: the old key spent $0.42 in 24 h, $0.10/h between the last reads`. */
  readonly line: string;
  /** It spent in an interval ending after the delivery. */
  readonly spending: boolean;
}

/**
 * See the module comment. `periods` undefined: the key is not in the figures. `at`: when they were
 * read, `now` and `deliveredAt` (all service ms). `note` goes after the age (why no read was spent).
 */
export function oldKeySpend(input: {
  readonly periods: Partial<Record<UsagePeriod, PeriodUsage>> | undefined;
  readonly samples: readonly KeySample[];
  readonly at: number;
  readonly now: number;
  readonly deliveredAt: number;
  readonly note?: string;
}): OldKeySpend {
  const head = `usage figures of ${ageWords(input.at, input.now)}${input.note ?? ''}`;
  if (!input.periods) return { line: `${head}: the old key is not in them`, spending: false };
  const period = USAGE_PERIODS.find((p) => input.periods![p] !== undefined);
  const spent = period ? `spent ${formatUsd(input.periods[period]!.spend)} in ${periodWords(period)}` : 'has no spend figure';
  const rate = keyBurnRate(input.samples, RATE_WINDOW_MS);
  const last = input.samples.at(-1);
  const spending = rate !== undefined && rate > 0 && last !== undefined && last.t > input.deliveredAt;
  return { line: `${head}: the old key ${spent}${rate === undefined ? '' : `, ${rateWords(rate)} between the last reads`}`, spending };
}
