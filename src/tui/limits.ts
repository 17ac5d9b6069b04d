/**
 * The published limits of a consumption key (service interface §8), and its display status
 * (§2.1, §3): what the details panel of the Keys pane shows.
 */
import type { ConsumptionKey } from '../api/schemas.js';

/** §8 limits of one key kind. `tokensPerMinute` undefined: not limited by tokens (credit keys). */
export interface KeyLimits {
  readonly requestsPerMinute: number;
  readonly tokensPerMinute?: number;
  /** Concurrent requests per key (pool subscriptions: 2). Undefined when not published. */
  readonly concurrentRequests?: number;
  /** Credit keys: bounded by the shared USD balance (§2.1, §8). */
  readonly boundedByBalance: boolean;
}

/**
 * The §8 limits for a key, or undefined when the spec publishes none for its plan (a
 * subscription plan other than standard/pro). Pro's `keyPlan` value is not shown in the spec;
 * `pro` is assumed.
 */
export function limitsOf(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>): KeyLimits | undefined {
  if (key.keyType === 'credit') return { requestsPerMinute: 60, boundedByBalance: true };
  if (key.keyType === 'subscription') {
    if (key.keyPlan === 'standard') return { requestsPerMinute: 60, tokensPerMinute: 3333, concurrentRequests: 2, boundedByBalance: false };
    if (key.keyPlan === 'pro') return { requestsPerMinute: 200, tokensPerMinute: 13333, concurrentRequests: 2, boundedByBalance: false };
  }
  return undefined;
}

/** One line describing {@link limitsOf}: "60 requests/min · 3,333 tokens/min · 2 concurrent requests (pool)". */
export function describeLimits(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>): string {
  const l = limitsOf(key);
  if (!l) return `limits for plan "${key.keyPlan}" are not published`;
  const parts = [`${l.requestsPerMinute} requests/min`];
  if (l.tokensPerMinute !== undefined) parts.push(`${l.tokensPerMinute.toLocaleString('en-US')} tokens/min`);
  if (l.concurrentRequests !== undefined) parts.push(`${l.concurrentRequests} concurrent requests (pool)`);
  if (l.boundedByBalance) parts.push('no token limit; bounded by the balance');
  return parts.join(' · ');
}

export { keyStatus, type KeyStatus } from '../api/keyStatus.js';
