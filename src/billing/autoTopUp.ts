/**
 * Auto top-up's decision, pure: given a profile's policy (src/config/autoTopUp.ts) and
 * what was read afresh — the balance, the top-ups in flight, a top-up that appeared since the fall
 * was seen, the card charges of the day and the month, the failures since the policy was set or
 * resumed — whether to charge, how much, or why not. The operation that reads those facts and
 * makes the charge is src/operations/autoTopUp.ts; ./autoTopUpCount.ts counts them; this module
 * only decides and words.
 *
 * | order | decision     | when                                                                          |
 * |-------|--------------|-------------------------------------------------------------------------------|
 * | 1     | `paused`     | {@link PAUSE_AFTER_FAILURES} charges in a row failed since `since`, or this machine's policy was paused (two machines charged for one fall) |
 * | 2     | `not_needed` | the fresh balance is at or above `belowUsd`                                   |
 * | 3     | `served`     | a top-up appeared at the service since the fall was seen: it serves the fall  |
 * | 4     | `pending`    | a top-up of the account is in flight (asked for, neither credited nor refused) |
 * | 5     | `capped`     | the charge would pass the UTC day's or month's cap (pending charges count)    |
 * | 6     | `charge`     | otherwise: `amountUsd`, or up to `toUsd` (at least the service's minimum)     |
 */
import { chargeRange, MIN_TOP_UP_USD, PAUSE_AFTER_FAILURES, roundUpCents, type AutoTopUpPolicy } from '../config/autoTopUp.js';
import { formatUsd } from '../api/money.js';
import type { InFlightTopUp } from './autoTopUpCount.js';

/** What was read afresh for one decision. Amounts in USD. */
export interface AutoTopUpFacts {
  readonly now: Date;
  readonly policy: AutoTopUpPolicy;
  /** The account's `remaining`, read just now. */
  readonly remaining: number;
  /** Each top-up in flight (./autoTopUpCount.ts `inFlight`). */
  readonly pending: readonly InFlightTopUp[];
  /** Card charges in the current UTC day and month (credited or in flight; refused ones not). */
  readonly chargedToday: number;
  readonly chargedThisMonth: number;
  /** Failed charges in a row, newest first, since the policy's `since`. */
  readonly failureStreak: number;
  /** Why this machine's policy is paused (the policy's `paused.reason`), when it is. */
  readonly pausedBecause?: string | undefined;
  /** What appeared at the service since the fall was seen, in words, when something did. */
  readonly served?: string | undefined;
}

/** What to do. */
export type AutoTopUpDecision =
  | { readonly kind: 'paused'; readonly failures: number; readonly because?: string }
  | { readonly kind: 'not_needed'; readonly remaining: number; readonly belowUsd: number }
  | { readonly kind: 'served'; readonly what: string }
  | { readonly kind: 'pending'; readonly pending: readonly InFlightTopUp[] }
  | { readonly kind: 'capped'; readonly cap: 'day' | 'month'; readonly amount: number; readonly used: number; readonly limit: number; readonly resetsAt: Date }
  | { readonly kind: 'charge'; readonly amount: number };

/** Start of the UTC day of `now`, and of the next one. */
export function utcDay(now: Date): { start: Date; next: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  return { start, next: new Date(start.getTime() + 86_400_000) };
}

/** Start of the UTC month of `now`, and of the next one. */
export function utcMonth(now: Date): { start: Date; next: Date } {
  return { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), next: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)) };
}

/** The charge the policy makes at `remaining` USD: the fixed amount, or up to the target (≥ the minimum). */
function chargeFor(policy: AutoTopUpPolicy, remaining: number): number {
  if (policy.amountUsd !== undefined) return policy.amountUsd;
  return Math.max(MIN_TOP_UP_USD, roundUpCents((policy.toUsd ?? 0) - Math.max(0, remaining)));
}

/** Decides (the module's table). */
export function decideAutoTopUp(facts: AutoTopUpFacts): AutoTopUpDecision {
  const { policy, now } = facts;
  if (facts.pausedBecause !== undefined) return { kind: 'paused', failures: facts.failureStreak, because: facts.pausedBecause };
  if (facts.failureStreak >= PAUSE_AFTER_FAILURES) return { kind: 'paused', failures: facts.failureStreak };
  if (facts.remaining >= policy.belowUsd) return { kind: 'not_needed', remaining: facts.remaining, belowUsd: policy.belowUsd };
  if (facts.served !== undefined) return { kind: 'served', what: facts.served };
  if (facts.pending.length > 0) return { kind: 'pending', pending: facts.pending };
  const amount = chargeFor(policy, facts.remaining);
  const cents = (usd: number) => Math.round(usd * 100);
  if (cents(facts.chargedToday) + cents(amount) > cents(policy.maxPerDayUsd)) {
    return { kind: 'capped', cap: 'day', amount, used: facts.chargedToday, limit: policy.maxPerDayUsd, resetsAt: utcDay(now).next };
  }
  if (cents(facts.chargedThisMonth) + cents(amount) > cents(policy.maxPerMonthUsd)) {
    return { kind: 'capped', cap: 'month', amount, used: facts.chargedThisMonth, limit: policy.maxPerMonthUsd, resetsAt: utcMonth(now).next };
  }
  return { kind: 'charge', amount };
}

/** Why a machine paused its own policy: another machine charged for the same fall first (`other`, in words). */
export function twoMachinesReason(other: string): string {
  return `Another card charge for the same fall of the balance was made before this one (${other}): two machines run auto top-up for this account: keep one.`;
}

/** The policy in words: "below $20.00, charge $30.00 (at most $60.00 a day, $300.00 a month)". */
export function policySentence(policy: AutoTopUpPolicy): string {
  const charge = policy.amountUsd !== undefined ? `charge ${formatUsd(policy.amountUsd)}` : `charge up to ${formatUsd(policy.toUsd ?? 0)}`;
  const { least } = chargeRange(policy);
  return `below ${formatUsd(policy.belowUsd)}, ${charge} to the card on file${policy.amountUsd === undefined ? ` (at least ${formatUsd(least)})` : ''}; at most ${formatUsd(policy.maxPerDayUsd)} a day and ${formatUsd(policy.maxPerMonthUsd)} a month (UTC)`;
}
