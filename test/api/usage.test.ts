/**
 * `client.usage` and `client.plans`: the reader's usage rows against the example
 * bodies of the real service's usage pages (./docs-examples.ts), the client over HTTP against the
 * sandbox in every dialect, and against a hostile server: a usage read is sent once (never
 * retried, a 429's Retry-After surfaced), plans go without the token, key values are dropped,
 * and a shape the reader does not know is `invalid_response` naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import { parseBody } from '../../src/api/failures.js';
import { readAnswer } from '../../src/api/reader.js';
import { KeyInfoSchema, KeyUsageAnswerSchema, PlanListSchema, UsageListSchema, periodOfRange } from '../../src/api/usageSchemas.js';
import { DIALECTS, startSandbox, type Dialect } from '../../src/sandbox/index.js';
import { keyInfo, newerUsageAssumed, newerUsageShown, olderUsageAssumed, plans } from './docs-examples.js';
import { json, startHostileServer } from './hostile-server.js';

const wire = (value: unknown) => parseBody(JSON.stringify(value));

describe('reader table: the usage pages’ bodies', () => {
  it('reads GET /v1/usage as both pages show it', () => {
    const r = readAnswer({ schema: KeyInfoSchema }, wire(keyInfo));
    expect(r.ok && r.data).toMatchObject({
      budget: { spent: 1.23, limit: 10, duration: '30d' },
      rate_limits: { rpm: 60, tpm: 3333 },
      plan: { slug: 'standard' },
      credits: { balance: 5 },
      key: { name: 'prod-key', type: 'subscription' },
    });
    const credit = readAnswer(
      { schema: KeyInfoSchema },
      wire({ ...keyInfo, budget: { spent: '0.10', limit: null }, plan: { slug: null, status: null, expires_at: null }, credits: { balance: '4.999999' } }),
    );
    expect(credit.ok && credit.data).toMatchObject({ budget: { spent: 0.1, limit: null }, credits: { balance: 4.999999 } });
    expect(readAnswer({ schema: KeyInfoSchema }, wire({ ...keyInfo, budget: { spent: -1 } }))).toMatchObject({ ok: false, field: 'budget.spent' });
  });

  it('reads GET /api/plans as the older page shows it: price as USD, limits by their names', () => {
    const r = readAnswer({ schema: PlanListSchema }, wire(plans));
    expect(r.ok && r.data.map((p) => [p.slug, p.priceUsd, p.requestsPerMinute, p.tokensPerMinute])).toEqual([
      ['standard', 20, 60, 3333],
      ['pro', 60, 200, 13333],
    ]);
    const enveloped = readAnswer({ schema: PlanListSchema }, wire({ success: true, data: [{ slug: 'x', price: 9.5, rateLimits: { rpm: 10 } }] }));
    expect(enveloped.ok && enveloped.data[0]).toMatchObject({ slug: 'x', priceUsd: 9.5, requestsPerMinute: 10 });
  });

  it('reads what the newer page shows of GET /api/usage (id and name, no figures yet)', () => {
    const r = readAnswer({ schema: UsageListSchema }, wire(newerUsageShown));
    expect(r.ok && r.data).toMatchObject({ keys: [{ id: 'key-uuid', name: 'prod-key', periods: {} }], periods: [] });
  });

  it('reads the assumed complete entries: four periods, counts, subscription info; the key value dropped', () => {
    const r = readAnswer({ schema: UsageListSchema }, wire(newerUsageAssumed));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.hiddenKeyValues).toBe(1);
    expect(r.data.periods).toEqual(['24h', '7d', '30d', 'total']);
    expect(r.data.keys[0]).toMatchObject({
      id: 'key-uuid',
      keyType: 'subscription',
      periods: { '24h': { spend: 0.42, requests: 120, tokens: 51_000 }, '7d': { spend: 2.1 }, '30d': { spend: 8.5, requests: 2400 }, total: { spend: 12.75 } },
      subscription: { plan: 'standard', status: 'active', expiresAt: '2026-02-15T10:00:00.000Z' },
    });
    expect(r.data.keys[1]!.periods).toEqual({ '24h': { spend: 0 }, '7d': { spend: 1.5 }, '30d': { spend: 3.25 }, total: { spend: 4 } });
    expect(JSON.stringify(r.data.raw)).not.toContain('sk_live');
  });

  it('reads the assumed older aggregated answer: one figure per key, for its range’s period', () => {
    const r = readAnswer({ schema: UsageListSchema }, wire(olderUsageAssumed));
    expect(r.ok && r.data).toMatchObject({
      periods: ['30d'],
      range: { startDate: olderUsageAssumed.startDate },
      keys: [{ id: 'clx1abc...', periods: { '30d': { spend: 4, requests: 900, tokens: 410_000 } } }, { id: 'clx2def...' }],
    });
    expect(periodOfRange({ startDate: '2026-01-01', endDate: '2026-01-02' })).toBe('24h');
    expect(periodOfRange({ startDate: '2026-01-01', endDate: '2026-01-08' })).toBe('7d');
    expect(periodOfRange({ startDate: '2025-01-01', endDate: '2026-01-08' })).toBe('total');
    expect(periodOfRange(undefined)).toBe('total');
  });

  it('accepts the usual spellings of periods and flat fields', () => {
    const r = readAnswer(
      { schema: UsageListSchema },
      wire([
        { id: 'a', periods: { today: '0.5', last_7_days: 1, Monthly: { cost: 2 }, allTime: { spent: '9' } } },
        { id: 'b', spend24h: 0.25, spend_30d: 1, totalSpend: '3.5' },
        { id: 'c', spend: 7, max_budget: '50.00' },
      ]),
    );
    expect(r.ok && r.data.keys.map((k) => k.periods)).toEqual([
      { '24h': { spend: 0.5 }, '7d': { spend: 1 }, '30d': { spend: 2 }, total: { spend: 9 } },
      { '24h': { spend: 0.25 }, '30d': { spend: 1 }, total: { spend: 3.5 } },
      { total: { spend: 7 } },
    ]);
    expect(r.ok && r.data.keys[2]!.maxBudget).toBe(50);
  });

  it('refuses only the key whose spend is negative or not a number, with a sentence', () => {
    const r = readAnswer(
      { schema: UsageListSchema },
      wire({
        success: true,
        data: [
          { id: 'ok', usage: { '24h': 1 } },
          { id: 'neg', name: 'minus', usage: { '24h': -0.5 } },
          { id: 'nan', usage: { '7d': { spend: 'lots' } } },
        ],
      }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data.keys[0]!.periods['24h']!.spend).toBe(1);
    expect(r.data.keys[1]).toMatchObject({ periods: {}, refused: expect.stringMatching(/^minus: its usage\.24h spend is negative/) });
    expect(r.data.keys[2]!.refused).toMatch(/usage\.7d spend is not an amount \("lots"\)/);
  });

  it('names the field of a shape it does not read', () => {
    expect(readAnswer({ schema: UsageListSchema }, wire({ success: true, data: [{ id: 'a' }, { name: 'no id' }] }))).toMatchObject({ ok: false, field: 'data[1].id' });
    expect(readAnswer({ schema: UsageListSchema }, wire({ success: true, data: [{ id: 'a' }, 'text'] }))).toMatchObject({ ok: false, field: 'data[1]' });
    expect(readAnswer({ schema: UsageListSchema }, wire({ success: true, data: { total: 5 } }))).toMatchObject({ ok: false, field: 'data' });
    expect(readAnswer({ schema: KeyUsageAnswerSchema }, wire({ success: true, data: { usage: {} } }))).toMatchObject({ ok: false, field: 'data.id' });
  });
});

describe.each(DIALECTS)('the client against the sandbox (%s)', (dialect: Dialect) => {
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  let client: KeydeckClient;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, dialect });
    client = new KeydeckClient({ baseUrl: sandbox.url, token: sandbox.token });
  });
  afterAll(async () => {
    client.close();
    await sandbox.close();
  });

  it('reads every key’s usage, one key’s, a consumption key’s own view, and the plans', async () => {
    const sub = (await (
      await fetch(`${sandbox.url}/sandbox/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'pro', blocks: ['asia'] }),
      })
    ).json()) as { id: string; apiKey: string };
    await fetch(`${sandbox.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sub.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], sandbox_cost_usd: 0.4 }),
    });
    const report = await client.usage.list();
    const entry = report.keys.find((k) => k.id === sub.id)!;
    if (dialect === 'docs-v1') {
      expect(report.periods).toEqual(['30d']);
      expect(entry.periods['30d']).toMatchObject({ spend: 0.4, requests: 1 });
    } else {
      expect(report.periods).toEqual(['24h', '7d', '30d', 'total']);
      expect(entry).toMatchObject({ keyType: 'subscription', periods: { '24h': { spend: 0.4, requests: 1 }, total: { spend: 0.4 } } });
    }
    const one = await client.usage.get(sub.id);
    expect(one.id).toBe(sub.id);
    expect(Object.values(one.periods)[0]).toMatchObject({ spend: 0.4 });
    const own = new KeydeckClient({ baseUrl: sandbox.url, token: sub.apiKey });
    try {
      expect(await own.usage.keyInfo()).toMatchObject({ budget: { spent: 0.4 }, rate_limits: { rpm: 200, tpm: 13333 }, plan: { slug: 'pro' } });
    } finally {
      own.close();
    }
    expect((await client.plans.list()).map((p) => [p.slug, p.priceUsd, p.requestsPerMinute, p.tokensPerMinute])).toEqual([
      ['standard', 20, 60, 3333],
      ['pro', 60, 200, 13333],
    ]);
  });
});

describe('the client against a hostile server', () => {
  it('sends a usage read once: a 5xx or a 429 is never retried, and the 429’s wait is surfaced', async () => {
    const server = await startHostileServer((req, res, n) =>
      n === 0
        ? json(res, 502, { error: { code: 'server_error', message: 'usage data temporarily unavailable' } })
        : json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '3600' }),
    );
    const client = new KeydeckClient({ baseUrl: server.url, token: 'mk_0123456789abcdef' });
    try {
      const first = await client.usage.list().catch((e: unknown) => e);
      expect(first).toBeInstanceOf(KeydeckApiError);
      expect((first as KeydeckApiError).code).toBe('server_error');
      const second = await client.usage.get('k1').catch((e: unknown) => e);
      expect((second as KeydeckApiError).code).toBe('rate_limited');
      expect((second as KeydeckApiError).retryAfterMs).toBe(3_600_000);
      expect(server.requests.map((r) => r.path)).toEqual(['/api/usage', '/api/usage/k1']);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('sends GET /api/plans without the token, and retries it as any GET', async () => {
    const server = await startHostileServer((req, res, n) => (n === 0 ? json(res, 503, {}) : json(res, 200, plans)));
    const client = new KeydeckClient({ baseUrl: server.url, token: 'mk_0123456789abcdef' });
    try {
      expect(await client.plans.list()).toHaveLength(2);
      expect(server.requests).toHaveLength(2);
      expect(server.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
    } finally {
      client.close();
      await server.close();
    }
  });
});
