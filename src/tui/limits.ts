/**
 * The published limits of a consumption key (service interface §8, and the service's own plans
 * from `GET /api/plans` when it answers: its word wins), and its display status (§2.1, §3): what
 * the details panel of the Keys pane shows.
 */
import { groupThousands } from '../api/money.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { Plan } from '../api/usageSchemas.js';

/** §8 limits of one key kind. `tokensPerMinute` undefined: not limited by tokens (credit keys). */
export interface KeyLimits {
  readonly requestsPerMinute: number;
  readonly tokensPerMinute?: number;
  /** Concurrent requests per key (pool subscriptions: 2). Undefined when not published. */
  readonly concurrentRequests?: number;
  /** Credit keys: bounded by the shared USD balance (§2.1, §8). */
  readonly boundedByBalance: boolean;
  /** True when the rates are the service's (`GET /api/plans`), not §8's. */
  readonly fromService?: boolean;
}

/** The plan of `plans` (`GET /api/plans`) whose slug is the key's `keyPlan` (subscription keys only). */
export function planOf(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans: readonly Plan[] | undefined): Plan | undefined {
  return key.keyType === 'subscription' ? plans?.find((p) => p.slug === key.keyPlan) : undefined;
}

/**
 * The limits for a key: §8's, with the service's word over them where `plans` (`GET /api/plans`,
 * issue 22) gives the key's plan its rates; undefined when neither knows its plan (a subscription
 * plan other than standard/pro that the plans do not list). Pro's `keyPlan` value is not shown
 * in the spec; `pro` is assumed.
 */
export function limitsOf(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans?: readonly Plan[]): KeyLimits | undefined {
  if (key.keyType === 'credit') return { requestsPerMinute: 60, boundedByBalance: true };
  if (key.keyType !== 'subscription') return undefined;
  const seed: KeyLimits | undefined =
    key.keyPlan === 'standard'
      ? { requestsPerMinute: 60, tokensPerMinute: 3333, concurrentRequests: 2, boundedByBalance: false }
      : key.keyPlan === 'pro'
        ? { requestsPerMinute: 200, tokensPerMinute: 13333, concurrentRequests: 2, boundedByBalance: false }
        : undefined;
  const plan = planOf(key, plans);
  if (!plan || (plan.requestsPerMinute === undefined && plan.tokensPerMinute === undefined)) return seed;
  return {
    ...(seed ?? { boundedByBalance: false }),
    requestsPerMinute: plan.requestsPerMinute ?? seed?.requestsPerMinute ?? 0,
    ...((plan.tokensPerMinute ?? seed?.tokensPerMinute) !== undefined && { tokensPerMinute: plan.tokensPerMinute ?? seed!.tokensPerMinute! }),
    fromService: true,
  };
}

/** One line describing {@link limitsOf}: "60 requests/min · 3,333 tokens/min · 2 concurrent requests (pool)". */
export function describeLimits(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans?: readonly Plan[]): string {
  const l = limitsOf(key, plans);
  if (!l) return `limits for plan "${key.keyPlan}" are not published`;
  const parts = [`${l.requestsPerMinute} requests/min`];
  if (l.tokensPerMinute !== undefined) parts.push(`${groupThousands(l.tokensPerMinute)} tokens/min`);
  if (l.concurrentRequests !== undefined) parts.push(`${l.concurrentRequests} concurrent requests (pool)`);
  if (l.boundedByBalance) parts.push('no token limit; bounded by the balance');
  return parts.join(' · ');
}

export { keyStatus, type KeyStatus } from '../api/keyStatus.js';
