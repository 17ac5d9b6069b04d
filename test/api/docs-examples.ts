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

/**
 * https://docs.cheapestinference.com/api/usage and the newer https://cheapestinference-docs.pages.dev/api/usage
 * — `GET /v1/usage` with a consumption key (the same example on both).
 */
export const keyInfo = {
  budget: { spent: 1.23, limit: 10.0, duration: '30d', resets_at: '2026-02-15T10:00:00.000Z' },
  rate_limits: { rpm: 60, tpm: 3333 },
  plan: { slug: 'standard', status: 'active', expires_at: '2026-02-15T10:00:00.000Z' },
  credits: { balance: 5.0 },
  key: { name: 'prod-key', type: 'subscription', created_at: '2026-01-15T10:00:00.000Z' },
};

/**
 * The older https://cheapestinference-docs.pages.dev/api/usage — `GET /api/plans` (public; the
 * newer pages list no plans body).
 */
export const plans = [
  { slug: 'standard', name: 'Standard', priceUsdc: '20', rateLimits: { tpm_limit: 3333, rpm_limit: 60 } },
  { slug: 'pro', name: 'Pro', priceUsdc: '60', rateLimits: { tpm_limit: 13333, rpm_limit: 200 } },
];

/**
 * The newer https://cheapestinference-docs.pages.dev/api/usage — `GET /api/usage` ("all your keys
 * with usage stats across 4 time periods and subscription info. Rate limited to 12 requests per 12
 * hours"). The page's example is cut after `"name": "`: this is what it shows, `{ success, data:
 * [{ id: "key-uuid", name }] }`; the rest of each entry is keydeck's assumption (src/api/reader.ts's
 * table), as the sandbox sends it.
 */
export const newerUsageShown = { success: true, data: [{ id: 'key-uuid', name: 'prod-key' }] };

/** {@link newerUsageShown} completed as keydeck assumes (periods as `usage.<period>.spend`, subscription info). */
export const newerUsageAssumed = {
  success: true,
  data: [
    {
      id: 'key-uuid',
      name: 'prod-key',
      keyType: 'subscription',
      keyPlan: 'standard',
      isActive: true,
      apiKey: 'sk_live_xxxxxxxxxxxxxxxx',
      usage: {
        '24h': { spend: 0.42, requests: 120, tokens: 51_000 },
        '7d': { spend: '2.10', requests: 610, tokens: 260_000 },
        '30d': { spend: 8.5, requests: 2_400 },
        total: { spend: 12.75 },
      },
      subscription: { planSlug: 'standard', status: 'active', expiresAt: '2026-02-15T10:00:00.000Z' },
    },
    { id: 'key-uuid-2', name: 'client_42', keyType: 'credit', keyPlan: 'credits', isActive: true, usage: { '24h': 0, '7d': 1.5, '30d': '3.25', total: 4 } },
  ],
};

/**
 * The older https://cheapestinference-docs.pages.dev/api/usage (and the dashboard section of
 * https://docs.cheapestinference.com/api/usage) — `GET /api/usage?startDate=2026-01-01&endDate=2026-02-01`,
 * "aggregated usage across all your keys"; no body is shown: this is keydeck's assumption (a
 * bare object with the range and a `keys` list, money as decimal strings as on the older pages).
 */
export const olderUsageAssumed = {
  startDate: '2026-01-01T00:00:00.000Z',
  endDate: '2026-01-31T00:00:00.000Z',
  totalSpend: '4.50',
  keys: [
    { keyId: 'clx1abc...', name: 'prod-key', spend: '4.00', requests: 900, tokens: 410_000 },
    { keyId: 'clx2def...', name: 'mobile-app', spend: '0.50', requests: 40 },
  ],
};
