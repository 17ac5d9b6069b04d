/**
 * What keydeck refuses about a key before anything is sent, in one place for the Keys pane and
 * `keydeck keys` (src/billing/keyRefusals.ts): a credit key while the balance is $0 or less, and
 * switching an expired subscription key back on (by the service's clock).
 */
import { describe, expect, it } from 'vitest';
import type { ConsumptionKey } from '../../src/api/schemas.js';
import { creditKeyRefusal, reactivationRefusal } from '../../src/billing/keyRefusals.js';

const subscription = (expiresAt: string, status?: string): ConsumptionKey =>
  ({ id: 'k1', name: 'pro', keyType: 'subscription', keyPlan: 'pro', isActive: false, subscriptionExpiresAt: expiresAt, ...(status && { subscriptionStatus: status }) }) as unknown as ConsumptionKey;

describe('key refusals', () => {
  it('a credit key with a balance of $0 or less, never above', () => {
    expect(creditKeyRefusal({ remaining: 0 })).toEqual({ code: 'zero_balance', remaining: 0 });
    expect(creditKeyRefusal({ remaining: -0.5 })).toEqual({ code: 'zero_balance', remaining: -0.5 });
    expect(creditKeyRefusal({ remaining: 0.01 })).toBeUndefined();
  });

  it('an expired subscription key, by the clock given; a live one or a credit key may be switched on', () => {
    const now = Date.parse('2026-06-10T00:00:00Z');
    expect(reactivationRefusal(subscription('2026-06-01T00:00:00Z'), now)).toEqual({ code: 'subscription_ended', ended: 'a new subscription payment creates a new key' });
    expect(reactivationRefusal(subscription('2026-07-01T00:00:00Z', 'expired'), now)?.code).toBe('subscription_ended');
    expect(reactivationRefusal(subscription('2026-07-01T00:00:00Z'), now)).toBeUndefined();
    expect(reactivationRefusal({ keyType: 'credit', keyPlan: null, isActive: false } as unknown as ConsumptionKey, now)).toBeUndefined();
  });
});
