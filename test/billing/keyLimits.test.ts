/**
 * A key's published limits (src/billing/keyLimits.ts): each figure with
 * its source, the service's word first (its `GET /api/plans`, then its pages, then the service's limits), one line
 * that fits the 80-column details panel, and the JSON of `keys list --json` / `keys show --json`.
 */
import { describe, expect, it } from 'vitest';
import { endedWords, paidTimeLost, renewalWords } from '../../src/api/keyStatus.js';
import { describeLimits, limitsJson, limitsOf, withoutSources } from '../../src/billing/keyLimits.js';
import { PlanListSchema } from '../../src/api/usageSchemas.js';
import { plans as pagePlans } from '../api/docs-examples.js';

const credit = { keyType: 'credit', keyPlan: 'credits' };
const pool = { keyType: 'subscription', keyPlan: 'pool' };
const standard = { keyType: 'subscription', keyPlan: 'standard' };
const pro = { keyType: 'subscription', keyPlan: 'pro' };
const plans = PlanListSchema.parse(pagePlans);

describe('a key’s limits, each figure with its source', () => {
  it('legacy plans without the service’s plans: the Management API page’s rates and budget, the service’s limits’ tokens and concurrency', () => {
    expect(limitsOf(standard)).toMatchObject({
      requestsPerMinute: 200,
      budgetPer8HoursUsd: 0.22,
      tokensPerMinute: 3333,
      concurrentRequests: 2,
      source: 'pages',
      sources: { requestsPerMinute: 'pages', budgetPer8HoursUsd: 'pages', tokensPerMinute: 'spec', concurrentRequests: 'spec' },
    });
    expect(describeLimits(standard)).toBe('200 req/min, $0.22/8h (the service’s docs); 3,333 tok/min, 2 concurrent (the service’s published limits)');
    expect(describeLimits(pro)).toBe('400 req/min, $0.67/8h (the service’s docs); 13,333 tok/min, 2 concurrent (the service’s published limits)');
  });

  it('the service’s own GET /api/plans wins when it lists the plan (and the page’s budget is not mixed with its rates)', () => {
    const l = limitsOf(pro, plans)!;
    expect(l).toMatchObject({ requestsPerMinute: 200, tokensPerMinute: 13333, concurrentRequests: 2, source: 'plans' });
    expect(l.budgetPer8HoursUsd).toBeUndefined();
    expect(describeLimits(pro, plans)).toBe('200 req/min, 13,333 tok/min (the service’s plans); 2 concurrent (the service’s published limits)');
    // An empty list (the newer billing page: "GET /api/plans returns an empty list") falls back to the pages.
    expect(limitsOf(pro, [])?.requestsPerMinute).toBe(400);
  });

  it('credit keys: 60 a minute per the keys page, no token limit, bounded by the balance; pool keys: in their blocks only, 1 concurrent', () => {
    expect(describeLimits(credit)).toBe('60 req/min, no token limit, bounded by the balance (the service’s docs)');
    expect(describeLimits(pool)).toBe('in its blocks only, unlimited, 1 concurrent (the service’s docs)');
    expect(limitsJson(pool)).toEqual({
      requestsPerMinute: null,
      tokensPerMinute: null,
      concurrentRequests: 1,
      onlyInBlocks: true,
      boundedByBalance: false,
      source: 'pages',
      sources: { concurrentRequests: 'pages', onlyInBlocks: 'pages' },
    });
  });

  it('an unknown plan has no published limits (said, never guessed)', () => {
    expect(limitsOf({ keyType: 'subscription', keyPlan: 'enterprise' })).toBeUndefined();
    expect(limitsJson({ keyType: 'subscription', keyPlan: 'enterprise' })).toBeNull();
    expect(describeLimits({ keyType: 'subscription', keyPlan: 'enterprise' })).toBe('limits for plan "enterprise" are not published');
  });

  it('every line fits the details panel at 80 columns (76 cells, "limits: " included) without its sources', () => {
    for (const key of [credit, pool, standard, pro]) {
      for (const p of [undefined, plans]) expect(`limits: ${withoutSources(describeLimits(key, p))}`.length).toBeLessThanOrEqual(76);
    }
    expect(withoutSources(describeLimits(standard))).toBe('200 req/min, $0.22/8h; 3,333 tok/min, 2 concurrent');
  });
});

describe('a key’s status words (the pool key is minted again from its pledge)', () => {
  const now = Date.parse('2026-11-01T00:00:00Z');
  const ends = '2026-11-30T00:00:00Z';
  const spec = { keyType: 'subscription', keyPlan: 'standard', subscriptionStatus: 'active', subscriptionExpiresAt: ends };
  const poolKey = { ...spec, keyPlan: 'pool', subscriptionId: 'pledge_uuid' };

  it('deleting the spec’s subscription key loses its paid time; deleting a pool key does not: its pledge keeps it', () => {
    expect(paidTimeLost(spec, 'delete', now)).toBe('29 days of paid time are lost (a subscription is not refunded; a new payment creates a new key)');
    expect(paidTimeLost(poolKey, 'delete', now)).toBe('its pledge pledge_uuid keeps its 29 days of paid time, and a new key can be minted from it');
    expect(paidTimeLost(poolKey, 'delete', now)).not.toMatch(/lost|new payment/);
    expect(paidTimeLost(poolKey, 'deactivate', now)).toBe("its pledge's 29 days of paid time keep running out while it is off");
  });

  it('renewal and the end: not extended for the spec’s key; with its pledge for a pool key', () => {
    expect(renewalWords(spec)).toBe('not extended; a new subscription payment creates a new key');
    expect(renewalWords(spec, '$20.00')).toBe('not extended; a new payment ($20.00/month) creates a new key');
    expect(renewalWords(poolKey)).toMatch(/^with its pledge: renewed each period unless cancelled/);
    expect(endedWords(spec)).toBe('a new subscription payment creates a new key');
    expect(endedWords(poolKey)).toBe('its pledge has ended: a new pledge mints a new key');
  });
});
