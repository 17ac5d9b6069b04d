/**
 * The sandbox's usage endpoints: fed by real inference requests, periods on the
 * sandbox clock, the 12-per-12-hours limit per credential (429 + Retry-After, lifted only by the
 * explicit option), `/v1/usage` for credit and subscription keys (403 deactivated, 404 deleted),
 * `/api/plans` agreeing with the service's limits, and the older page's aggregated form in the docs-v1 dialect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/sandbox/index.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';

const HOUR = 3600;
const DAY = 24 * HOUR;

describe('usage (seed dialect)', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(() => sb.close());

  it('sums each key’s spend, requests and tokens over 24 h, 7 d, 30 d and all time on the sandbox clock', async () => {
    const token = await sb.fundedUser(50);
    const busy = await sb.creditKey(token, 'busy');
    const quiet = await sb.creditKey(token, 'quiet');
    const sub = await sb.subscription(token, 'standard');
    expect((await sb.infer(busy.apiKey, { sandbox_cost_usd: 2 })).status).toBe(200);
    await sb.advance(3 * DAY);
    expect((await sb.infer(busy.apiKey, { sandbox_cost_usd: 1.25 })).status).toBe(200);
    expect((await sb.infer(sub.apiKey, { sandbox_cost_usd: 0.5 })).status).toBe(200);

    const reply = await sb.call('GET', '/api/usage', { token });
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    const byName = new Map(reply.body.data.map((e: any) => [e.name, e]));
    const b: any = byName.get('busy');
    expect(b.usage['24h']).toMatchObject({ spend: 1.25, requests: 1 });
    expect(b.usage['7d']).toMatchObject({ spend: 3.25, requests: 2 });
    expect(b.usage.total.spend).toBe(3.25);
    expect(b.usage['24h'].tokens).toBeGreaterThan(0);
    expect(b).toMatchObject({ id: busy.id, keyType: 'credit', maxBudget: 50, subscription: null });
    expect((byName.get('quiet') as any).usage.total).toEqual({ spend: 0, requests: 0, tokens: 0 });
    // A subscription key's use is tracked as its spend, never charged to the balance.
    expect(byName.get(sub.name as string) as any).toMatchObject({ keyType: 'subscription', subscription: { planSlug: 'standard', status: 'active' }, usage: { '24h': { spend: 0.5 } } });
    expect((await sb.credits(token)).remaining).toBe(50 - 3.25);
    expect(JSON.stringify(reply.body)).not.toMatch(/sk_[A-Za-z0-9]{20}/);

    await sb.advance(2 * DAY);
    const later = await sb.call('GET', `/api/usage/${busy.id}`, { token });
    expect(later.body.data.usage['24h'].spend).toBe(0);
    expect(later.body.data.usage['7d'].spend).toBe(3.25);
    expect((await sb.call('GET', `/api/usage/${quiet.id}`, { token: await sb.newUser() })).status).toBe(404);
  });

  it('keeps a deleted key’s spend listed (isActive false, deletedAt) for 30 days', async () => {
    const token = await sb.fundedUser(20);
    const gone = await sb.creditKey(token, 'gone');
    await sb.infer(gone.apiKey, { sandbox_cost_usd: 1 });
    await sb.call('DELETE', `/api/keys/${gone.id}`, { token });
    const listed = (await sb.call('GET', '/api/usage', { token })).body.data.find((e: any) => e.id === gone.id);
    expect(listed).toMatchObject({ isActive: false, usage: { total: { spend: 1 } } });
    expect(typeof listed.deletedAt).toBe('string');
  });

  it('allows 12 usage reads per 12 hours per credential, then 429 with Retry-After until the oldest leaves the window', async () => {
    const token = await sb.fundedUser(10);
    const other = await sb.newUser();
    const before = (await sb.call('GET', '/sandbox/usage/calls')).body;
    for (let i = 0; i < 12; i++) expect((await sb.call('GET', '/api/usage', { token })).status).toBe(200);
    const refused = await sb.call('GET', '/api/usage', { token });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(12 * HOUR - 120);
    expect(wait).toBeLessThanOrEqual(12 * HOUR);
    // Another credential has its own window; the per-key endpoint shares the list's.
    expect((await sb.call('GET', '/api/usage', { token: other })).status).toBe(200);
    const key = await sb.creditKey(token, 'k');
    expect((await sb.call('GET', `/api/usage/${key.id}`, { token })).status).toBe(429);
    const after = (await sb.call('GET', '/sandbox/usage/calls')).body;
    expect(after.served - before.served).toBe(13);
    expect(after.refused - before.refused).toBe(2);
    await sb.advance(wait);
    expect((await sb.call('GET', '/api/usage', { token })).status).toBe(200);
  });

  it('answers /v1/usage for a credit and a subscription key, 403 once deactivated (inference too), 404 once deleted', async () => {
    const token = await sb.fundedUser(30);
    const credit = await sb.creditKey(token, 'app');
    const sub = await sb.subscription(token, 'pro');
    await sb.infer(credit.apiKey, { sandbox_cost_usd: 2.5 });
    await sb.infer(sub.apiKey, { sandbox_cost_usd: 0.75 });
    const c = await sb.call('GET', '/v1/usage', { token: credit.apiKey });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({
      budget: { spent: 2.5, limit: null, duration: null, resets_at: null },
      rate_limits: { rpm: 60, tpm: null },
      plan: { slug: null, status: null, expires_at: null },
      credits: { balance: 27.5 },
      key: { name: 'app', type: 'credit', created_at: expect.any(String) },
    });
    const s = await sb.call('GET', '/v1/usage', { token: sub.apiKey });
    expect(s.body).toMatchObject({ budget: { spent: 0.75, duration: '30d' }, rate_limits: { rpm: 200, tpm: 13333 }, plan: { slug: 'pro', status: 'active' } });
    expect((await sb.call('GET', '/v1/usage', { token })).status).toBe(403);

    await sb.call('PUT', `/api/keys/${credit.id}`, { token, body: { isActive: false } });
    expect((await sb.call('GET', '/v1/usage', { token: credit.apiKey })).status).toBe(403);
    const infer = await sb.infer(credit.apiKey);
    expect(infer.status).toBe(403);
    expect(infer.body.error.message).toMatch(/deactivated/);
    await sb.call('DELETE', `/api/keys/${credit.id}`, { token });
    expect((await sb.call('GET', '/v1/usage', { token: credit.apiKey })).status).toBe(404);
    expect((await sb.call('GET', '/v1/usage', { token: 'sk_unknownunknownunknown' })).status).toBe(401);
  });

  it('serves /api/plans without credentials, with the service’s limits’ limits', async () => {
    const reply = await sb.call('GET', '/api/plans');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([
      { slug: 'standard', name: 'Standard', priceUsdc: '20', rateLimits: { tpm_limit: LIMITS.standard.tokensPerMinute, rpm_limit: LIMITS.standard.requestsPerMinute } },
      { slug: 'pro', name: 'Pro', priceUsdc: '60', rateLimits: { tpm_limit: 13_333, rpm_limit: 200 } },
    ]);
    expect(LIMITS.standard).toMatchObject({ requestsPerMinute: 60, tokensPerMinute: 3_333 });
  });

  it('answers 502 "usage data temporarily unavailable" while switched so', async () => {
    const token = await sb.newUser();
    await sb.call('POST', '/sandbox/usage/unavailable', { body: { unavailable: true } });
    const reply = await sb.call('GET', '/api/usage', { token });
    await sb.call('POST', '/sandbox/usage/unavailable', { body: { unavailable: false } });
    expect(reply.status).toBe(502);
    expect(reply.body.error.message).toMatch(/temporarily unavailable/);
    expect((await sb.call('GET', '/api/usage', { token })).status).toBe(200);
  });
});

describe('usage without the read limit (load tests, benchmarks)', () => {
  it('serves more than 12 reads only when the option lifts the limit', async () => {
    const sb = await startTestSandbox({ usageReadLimit: false });
    try {
      const token = await sb.newUser();
      for (let i = 0; i < 14; i++) expect((await sb.call('GET', '/api/usage', { token })).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});

describe('usage in the docs-v1 dialect (the older page’s aggregated form)', () => {
  it('sums the range of startDate and endDate (default the last 30 days), money as decimal strings', async () => {
    const sb = await startTestSandbox({ dialect: 'docs-v1' });
    try {
      // A subscription key needs no top-up (the older dialect halves USDC instructions).
      const token = await sb.newUser();
      const key = await sb.subscription(token, 'standard');
      await sb.infer(key.apiKey, { sandbox_cost_usd: 1.5 });
      const reply = await sb.call('GET', '/api/usage', { token });
      expect(reply.body).toMatchObject({ totalSpend: '1.50', totalRequests: 1, keys: [{ keyId: key.id, spend: '1.50', requests: 1 }] });
      expect(Date.parse(reply.body.endDate) - Date.parse(reply.body.startDate)).toBe(30 * DAY * 1000);
      const empty = await sb.call('GET', '/api/usage?startDate=2001-01-01&endDate=2001-02-01', { token });
      expect(empty.body).toMatchObject({ totalSpend: '0.00', keys: [{ spend: '0.00' }] });
      expect((await sb.call('GET', '/api/usage?startDate=yesterday', { token })).status).toBe(400);
      expect((await sb.call('GET', '/api/plans')).body).toHaveLength(2);
    } finally {
      await sb.close();
    }
  });
});
