/**
 * The auto top-up policy of a profile, kept in the config file under the profile's
 * `autoTopUp`: when the balance falls below `belowUsd`, charge the card on file `amountUsd` (or up
 * to `toUsd`), never more than `maxPerDayUsd` in a UTC day nor `maxPerMonthUsd` in a UTC month.
 *
 * ```json
 * "autoTopUp": { "belowUsd": 20, "amountUsd": 30, "maxPerDayUsd": 60, "maxPerMonthUsd": 300,
 *   "method": "card_direct", "since": "2026-11-28T03:00:00.000Z" }
 * ```
 *
 * The caps are always written out (their defaults resolved when the policy is set: see
 * {@link resolveAutoTopUpPolicy}), so what the user authorised is what the file says, whatever a
 * later version's defaults. `since` is when the policy was set or last resumed, on the service's
 * clock (its HTTP `Date`): failures before it do not count towards the pause. `paused` is set by
 * auto top-up itself when it finds that another machine charged the card for the same fall of
 * the balance before this one (docs/topups.md "Auto top-up"); `resume` and `set` clear it. No
 * secret, no state of a charge: those are in the top-up record (src/billing/journal.ts).
 */
import { z } from '../api/zod.js';
import { TopUpMethodNameSchema } from '../api/methodName.js';

/** The service's smallest top-up, USD. */
export const MIN_TOP_UP_USD = 10;
/** The largest amount, threshold or cap a policy may name, USD (a typo guard, not a service rule). */
export const MAX_POLICY_USD = 100_000;
/** Default day cap: this many of the policy's largest charge (two charges a day). */
export const DEFAULT_DAY_CAP_CHARGES = 2;
/** Default month cap: this many of the policy's largest charge. */
export const DEFAULT_MONTH_CAP_CHARGES = 10;
/** Consecutive failed charges after which the policy pauses itself until `autotopup resume`. */
export const PAUSE_AFTER_FAILURES = 3;
/** The environment variable of the settle wait's bounds (`MIN-MAX` or `N`, seconds). */
export const SETTLE_ENV = 'KEYDECK_AUTOTOPUP_SETTLE_SECONDS';
/** The settle wait's default bounds, seconds: after a fall is seen, a charge waits this long (random in between) first. */
export const DEFAULT_SETTLE_SECONDS = { min: 5, max: 30 } as const;
/** The longest settle wait {@link SETTLE_ENV} may ask for, seconds. */
export const MAX_SETTLE_SECONDS = 600;

/** The bounds of the settle wait, ms. */
export interface SettleBounds {
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * The settle wait's bounds from {@link SETTLE_ENV} (`5-30`: from 5 to 30 seconds; `2`: 2 seconds;
 * `0`: no wait; decimals allowed), else {@link DEFAULT_SETTLE_SECONDS}; or the reason the value
 * is refused (one sentence).
 */
export function settleBounds(env: NodeJS.ProcessEnv): SettleBounds | { problem: string } {
  const text = env[SETTLE_ENV]?.trim();
  if (text === undefined || text === '') return { minMs: DEFAULT_SETTLE_SECONDS.min * 1000, maxMs: DEFAULT_SETTLE_SECONDS.max * 1000 };
  const m = /^(\d{1,3}(?:\.\d{1,3})?)(?:\s*-\s*(\d{1,3}(?:\.\d{1,3})?))?$/.exec(text);
  const min = m ? Number(m[1]) : NaN;
  const max = m ? Number(m[2] ?? m[1]) : NaN;
  if (!m || min > max || max > MAX_SETTLE_SECONDS) {
    return { problem: `${SETTLE_ENV} is seconds, MIN-MAX (such as 5-30) or one number, at most ${MAX_SETTLE_SECONDS}, not "${text.slice(0, 40)}"` };
  }
  return { minMs: Math.round(min * 1000), maxMs: Math.round(max * 1000) };
}

const Usd = z.number().finite().min(0).max(MAX_POLICY_USD);

/** The policy as stored. */
export const AutoTopUpPolicySchema = z.strictObject({
  /** Charge when `remaining` (USD) is below this. */
  belowUsd: Usd,
  /** A fixed charge, USD (≥ 10, two decimals). Exactly one of `amountUsd` and `toUsd`. */
  amountUsd: Usd.optional(),
  /** Or: charge what brings the balance up to this, USD (at least the service's minimum). */
  toUsd: Usd.optional(),
  /** Most charged in one UTC day, USD. */
  maxPerDayUsd: Usd,
  /** Most charged in one UTC month, USD. */
  maxPerMonthUsd: Usd,
  /** The card-on-file method name sent (default: the profile's `topUpMethods.card_direct`, else `card_direct`). */
  method: TopUpMethodNameSchema.optional(),
  /** ISO 8601, the service's clock: when the policy was set or last resumed (failures before it do not count). */
  since: z.string(),
  /** Set when this machine paused its policy (another machine charged for the same fall first); until `resume`. */
  paused: z
    .strictObject({
      /** ISO 8601, the service's clock. */
      at: z.string(),
      /** Why, in one sentence (it names the other charge). */
      reason: z.string().max(2000),
      /** The other charge's reference at the service (`paymentId`), when it has one. */
      otherCharge: z.string().max(200).optional(),
    })
    .optional(),
});
/** See {@link AutoTopUpPolicySchema}. */
export type AutoTopUpPolicy = z.infer<typeof AutoTopUpPolicySchema>;

/**
 * The names the card on file may go by at a profile's service (`topUpMethods`: the profile's own):
 * its own name for the kind, the seed's `card_direct` and the pages' `stripe_direct`.
 */
export function cardMethodNames(topUpMethods?: { readonly card_direct?: string | undefined }): string[] {
  return [...new Set([topUpMethods?.card_direct ?? 'card_direct', 'card_direct', 'stripe_direct'])];
}

/** What `autotopup set` was given (USD numbers, already parsed as amounts). */
export interface AutoTopUpRequest {
  readonly belowUsd: number;
  readonly amountUsd?: number | undefined;
  readonly toUsd?: number | undefined;
  readonly maxPerDayUsd?: number | undefined;
  readonly maxPerMonthUsd?: number | undefined;
  readonly method?: string | undefined;
}

/** The smallest and largest charge a policy can make, USD. */
export function chargeRange(policy: Pick<AutoTopUpPolicy, 'belowUsd' | 'amountUsd' | 'toUsd'>): { least: number; most: number } {
  if (policy.amountUsd !== undefined) return { least: policy.amountUsd, most: policy.amountUsd };
  const to = policy.toUsd ?? 0;
  // From just below the threshold to the target, and from an empty balance to it.
  return { least: Math.max(MIN_TOP_UP_USD, roundUpCents(to - policy.belowUsd)), most: Math.max(MIN_TOP_UP_USD, to) };
}

/** `usd` rounded up to the cent (a charge never falls short of the target). */
export function roundUpCents(usd: number): number {
  return Math.ceil(Math.round(usd * 1e6) / 1e4) / 100;
}

const hasCents = (usd: number) => Math.abs(Math.round(usd * 100) - usd * 100) < 1e-6;

/**
 * The policy `request` describes, its caps resolved (default: {@link DEFAULT_DAY_CAP_CHARGES} and
 * {@link DEFAULT_MONTH_CAP_CHARGES} times its largest charge), or the reason it is refused — one
 * sentence, checked before anything is stored: a threshold the charge cannot reach, an amount
 * under the service's minimum or with more than two decimals, caps below a charge.
 */
export function resolveAutoTopUpPolicy(request: AutoTopUpRequest, now: Date): { policy: AutoTopUpPolicy } | { problem: string } {
  const { belowUsd, amountUsd, toUsd } = request;
  if ((amountUsd === undefined) === (toUsd === undefined)) return { problem: 'give either --amount USD (a fixed charge) or --to USD (a target balance), not both' };
  for (const [flag, value] of [
    ['--below', belowUsd],
    ['--amount', amountUsd],
    ['--to', toUsd],
    ['--max-per-day', request.maxPerDayUsd],
    ['--max-per-month', request.maxPerMonthUsd],
  ] as const) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0 || value > MAX_POLICY_USD) return { problem: `${flag} must be an amount from 0 to ${MAX_POLICY_USD} USD` };
    if (!hasCents(value)) return { problem: `${flag} has more than two decimals: amounts are USD to the cent` };
  }
  if (belowUsd <= 0) return { problem: '--below must be above 0 USD: a balance is never below 0' };
  if (amountUsd !== undefined && amountUsd < MIN_TOP_UP_USD) return { problem: `--amount must be at least ${MIN_TOP_UP_USD} USD, the service's smallest top-up` };
  const reach = amountUsd ?? toUsd!;
  if (belowUsd >= reach) {
    return {
      problem:
        amountUsd !== undefined
          ? `--below ${belowUsd} is not below --amount ${amountUsd}: a charge from an empty balance would not reach the threshold, so every run would charge again`
          : `--below ${belowUsd} is not below --to ${toUsd}: the target must be above the threshold`,
    };
  }
  const { least, most } = chargeRange({ belowUsd, amountUsd, toUsd });
  const maxPerDayUsd = request.maxPerDayUsd ?? roundUpCents(most * DEFAULT_DAY_CAP_CHARGES);
  const maxPerMonthUsd = request.maxPerMonthUsd ?? Math.max(maxPerDayUsd, roundUpCents(most * DEFAULT_MONTH_CAP_CHARGES));
  if (maxPerDayUsd < least) return { problem: `--max-per-day ${maxPerDayUsd} is below the smallest charge this policy makes (${least} USD): no charge could ever be made` };
  if (maxPerMonthUsd < maxPerDayUsd) return { problem: `--max-per-month ${maxPerMonthUsd} is below --max-per-day ${maxPerDayUsd}` };
  return {
    policy: AutoTopUpPolicySchema.parse({
      belowUsd,
      ...(amountUsd !== undefined && { amountUsd }),
      ...(toUsd !== undefined && { toUsd }),
      maxPerDayUsd,
      maxPerMonthUsd,
      ...(request.method !== undefined && { method: request.method }),
      since: now.toISOString(),
    }),
  };
}
