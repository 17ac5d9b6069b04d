/**
 * The published limits of a consumption key (service interface §8; the service's own plans from
 * `GET /api/plans` when it answers: its word wins; the service's pages for pool keys), each said
 * with its source, and its display status (§2.1, §3): what the details panel of the Keys pane shows.
 */
import { groupThousands } from '../api/money.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { Plan } from '../api/usageSchemas.js';

/**
 * Where a key's limits come from: the service's `GET /api/plans` (`plans`), the service's pages
 * for pool keys (`pages`: https://cheapestinference-docs.pages.dev/guides/per-key-plans/), or the
 * spec's §8 table (`spec`).
 */
export type LimitsSource = 'plans' | 'pages' | 'spec';

/** The limits of one key kind. `tokensPerMinute` undefined: not limited by tokens (credit keys). */
export interface KeyLimits {
  /** Requests per minute; undefined when not capped (a pool key inside its blocks). */
  readonly requestsPerMinute?: number;
  readonly tokensPerMinute?: number;
  /** Concurrent requests per key (§8 pool subscriptions: 2; the pages' pool keys: 1). Undefined when not published. */
  readonly concurrentRequests?: number;
  /** Credit keys: bounded by the shared USD balance (§2.1, §8). */
  readonly boundedByBalance: boolean;
  /** A pool key: no rate or budget cap inside its reserved blocks, 429 outside them. */
  readonly onlyInBlocks?: boolean;
  /** True when the rates are the service's (`GET /api/plans`), not §8's. */
  readonly fromService?: boolean;
  /** Where these figures come from (said next to them). */
  readonly source: LimitsSource;
}

/** The plan of `plans` (`GET /api/plans`) whose slug is the key's `keyPlan` (subscription keys only). */
export function planOf(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans: readonly Plan[] | undefined): Plan | undefined {
  return key.keyType === 'subscription' ? plans?.find((p) => p.slug === key.keyPlan) : undefined;
}

/**
 * The limits for a key: the service's word where it gives one (`plans`, `GET /api/plans`, issue
 * 22: the key's plan's rates), else the service's pages for a pool key (`keyPlan: "pool"`: 1
 * concurrent request, unlimited inside its blocks, 429 outside; issue 23), else §8's; undefined
 * when none knows its plan. Pro's `keyPlan` value is not shown in the spec; `pro` is assumed.
 */
export function limitsOf(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans?: readonly Plan[]): KeyLimits | undefined {
  if (key.keyType === 'credit') return { requestsPerMinute: 60, boundedByBalance: true, source: 'spec' };
  if (key.keyType !== 'subscription') return undefined;
  const seed: KeyLimits | undefined =
    key.keyPlan === 'standard'
      ? { requestsPerMinute: 60, tokensPerMinute: 3333, concurrentRequests: 2, boundedByBalance: false, source: 'spec' }
      : key.keyPlan === 'pro'
        ? { requestsPerMinute: 200, tokensPerMinute: 13333, concurrentRequests: 2, boundedByBalance: false, source: 'spec' }
        : key.keyPlan === 'pool'
          ? { concurrentRequests: 1, boundedByBalance: false, onlyInBlocks: true, source: 'pages' }
          : undefined;
  const plan = planOf(key, plans);
  if (!plan || (plan.requestsPerMinute === undefined && plan.tokensPerMinute === undefined)) return seed;
  const requestsPerMinute = plan.requestsPerMinute ?? seed?.requestsPerMinute;
  const tokensPerMinute = plan.tokensPerMinute ?? seed?.tokensPerMinute;
  return {
    ...(seed ?? { boundedByBalance: false }),
    ...(requestsPerMinute !== undefined && { requestsPerMinute }),
    ...(tokensPerMinute !== undefined && { tokensPerMinute }),
    fromService: true,
    source: 'plans',
  };
}

// Words a user reads (issue 44): where the figures come from, never the spec's section numbers.
const SOURCE_TEXT: Readonly<Record<LimitsSource, string>> = { plans: 'per the service’s plans', pages: 'per the service’s docs', spec: 'per the service’s published limits' };

/**
 * One line describing {@link limitsOf}, with where it comes from (short enough for an 80-column
 * details panel, which leaves out the source where it does not fit): "60 requests/min · 3,333
 * tokens/min · 2 concurrent · per the service’s published limits", or for a pool key "in its
 * blocks only, unlimited · 1 concurrent · per the service’s docs".
 */
export function describeLimits(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans?: readonly Plan[]): string {
  const l = limitsOf(key, plans);
  if (!l) return `limits for plan "${key.keyPlan}" are not published`;
  const parts: string[] = [];
  if (l.requestsPerMinute !== undefined) parts.push(`${l.requestsPerMinute} requests/min`);
  else if (l.onlyInBlocks) parts.push('in its blocks only, unlimited');
  if (l.tokensPerMinute !== undefined) parts.push(`${groupThousands(l.tokensPerMinute)} tokens/min`);
  if (l.concurrentRequests !== undefined) parts.push(`${l.concurrentRequests} concurrent`);
  if (l.boundedByBalance) parts.push('no token limit; bounded by the balance');
  parts.push(SOURCE_TEXT[l.source]);
  return parts.join(' · ');
}

export { keyStatus, type KeyStatus } from '../api/keyStatus.js';
