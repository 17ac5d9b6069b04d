/**
 * The example answers of the real service's public documentation pages (CheapestInference), as
 * those pages show them (ids, amounts and key placeholders as printed there). Two generations:
 * `older` (bare bodies, money as decimal strings, `creditKeyId`) and `newer` (the `{ success,
 * data }` envelope on every endpoint, `apiKey` on list entries, `keyPlan: "pool"`).
 */

/** https://docs.cheapestinference.com/api/keys — `GET /api/keys`. */
export const olderKeyList = [
  {
    id: 'clx1abc...',
    name: 'prod-key',
    keyPlan: 'standard',
    keyType: 'subscription',
    isActive: true,
    subscriptionStatus: 'active',
    subscriptionExpiresAt: '2026-02-15T10:00:00.000Z',
    createdAt: '2026-01-15T10:00:00.000Z',
  },
  { id: 'clx2def...', name: 'mobile-app', keyPlan: 'credits', keyType: 'credit', isActive: true, createdAt: '2026-01-20T14:30:00.000Z' },
];

/** https://cheapestinference-docs.pages.dev/api/keys/ — `GET /api/keys` (the second entry is cut on the page; completed as the first). */
export const newerKeyList = {
  success: true,
  data: [
    {
      id: 'clx1abc...',
      name: 'prod-key',
      keyPlan: 'pool',
      keyType: 'subscription',
      apiKey: 'sk-...',
      isActive: true,
      subscriptionId: 'sub-uuid',
      subscriptionStatus: 'active',
      subscriptionExpiresAt: '2026-02-15T10:00:00.000Z',
      createdAt: '2026-01-15T10:00:00.000Z',
      lastUsedAt: '2026-01-20T08:00:00.000Z',
    },
    { id: 'clx2def...', name: 'client_42', keyPlan: 'credits', keyType: 'credit', apiKey: 'sk-...', isActive: true, createdAt: '2026-01-20T14:30:00.000Z' },
  ],
};

/** https://cheapestinference-docs.pages.dev/api/credits — the older page. */
export const older = {
  checkout: { sessionUrl: 'https://checkout.stripe.com/c/pay/cs_live_...', sessionId: 'cs_live_...' },
  /** The answer to `{"amount": 50, "method": "usdc"}` (the address is `0x...` on the page). */
  usdc: { address: '0x...', chain: 'base', amount: 25 },
  verified: { credited: 25, balance: '75.00' },
  credits: { totalTopUp: '100.00', remaining: '74.50', hasCreditKey: true, creditKeyId: 'clx3ghi...' },
};

/** https://cheapestinference-docs.pages.dev/api/credits/ — the newer page. */
export const newer = {
  checkout: { success: true, data: { sessionUrl: 'https://checkout.stripe.com/c/pay/cs_live_...', sessionId: 'cs_live_...' } },
  /** The answer to `{"amount": 50, "method": "usdc"}`. */
  usdc: { success: true, data: { address: '0x...', chain: 'base', amount: '50' } },
  verified: { success: true, data: { credited: 25, balance: 75.0 } },
  credits: { success: true, data: { totalTopUp: 100, remaining: 74.5, hasCreditKey: true, creditKeyCount: 2, userId: 'ci_user_xxx' } },
};

/** https://docs.cheapestinference.com/api/billing — `GET /api/billing/status`, older. */
export const olderStatus = {
  subscriptions: [
    {
      id: 'uuid',
      planSlug: 'pro',
      status: 'active',
      currentPeriodEnd: '2026-03-05T10:00:00.000Z',
      cancelAtPeriodEnd: false,
      keyCount: 2,
      keys: [{ id: 'key_uuid', name: 'prod-api' }],
    },
  ],
  creditBalance: '25.00',
  legacySubscriptionKeys: [],
};

/** https://cheapestinference-docs.pages.dev/api/billing/ — `GET /api/billing/status`, newer. */
export const newerStatus = {
  success: true,
  data: {
    subscriptions: [],
    poolPledges: [
      {
        id: 'pledge_uuid',
        poolId: 'pool_uuid',
        poolSlug: 'kimi26',
        status: 'active',
        currentPeriodEnd: '2026-05-23T15:55:16.220Z',
        cancelAtPeriodEnd: true,
        hasKey: true,
      },
    ],
    plan: null,
    status: 'active',
    creditBalance: 25.0,
    stripeCustomerId: 'cus_xxx',
    subscriptionExpiresAt: null,
    legacySubscriptionKeys: [],
  },
};

/** A syntactically valid deposit address, for where the pages print `0x...`. */
export const ADDRESS = `0x${'ab'.repeat(20)}`;
