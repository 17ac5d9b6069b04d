/**
 * The stand-in inference endpoint: the service's limits limits (requests and tokens per minute, pool concurrency,
 * 429 with Retry-After), subscription expiry after 30 days on the sandbox clock, charges, and
 * request validation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANNED_ANSWER, DEFAULT_COST_USD, estimateRequestTokens, LIMITS } from '../../src/sandbox/index.js';
import { startTestSandbox, type Reply, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

/** A message whose request counts `tokens` tokens in all (with the canned answer). */
function messagesOf(tokens: number): Array<{ role: string; content: string }> {
  const answer = Math.ceil(CANNED_ANSWER.length / 4);
  const messages = [{ role: 'user', content: 'x'.repeat((tokens - answer) * 4) }];
  expect(estimateRequestTokens(messages)).toBe(tokens);
  return messages;
}

function expectRateLimited(reply: Reply): number {
  expect(reply.status).toBe(429);
  expect(reply.body.error.code).toBe('rate_limited');
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  return retryAfter;
}

async function sequential(n: number, send: () => Promise<Reply>): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < n; i++) replies.push(await send());
  return replies;
}

async function fundedCreditKey(amount = 50): Promise<{ token: string; apiKey: string; id: string }> {
  const token = await sb.newUser();
  await sb.topUp(token, amount);
  const key = await sb.creditKey(token);
  return { token, apiKey: key.apiKey, id: key.id };
}

describe('the service’s limits requests per minute', () => {
  it('credit keys: 60 per minute, then 429 with Retry-After (not charged); the window reopens a minute later', async () => {
    const { token, apiKey } = await fundedCreditKey(50);
    const replies = await Promise.all(Array.from({ length: 60 }, () => sb.infer(apiKey, { sandbox_cost_usd: 0.01 })));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    const before = await sb.credits(token);
    expect(before.remaining).toBeCloseTo(49.4, 6);
    expectRateLimited(await sb.infer(apiKey, { sandbox_cost_usd: 0.01 }));
    expect(await sb.credits(token)).toEqual(before);
    // Another key of the same account has its own window.
    const other = await sb.creditKey(token, 'other');
    expect((await sb.infer(other.apiKey)).status).toBe(200);
    await sb.advance(60);
    expect((await sb.infer(apiKey)).status).toBe(200);
  });

  it('standard subscription keys: 60 per minute', async () => {
    const token = await sb.newUser();
    const key = await sb.subscription(token, 'standard');
    const replies = await sequential(LIMITS.standard.requestsPerMinute, () => sb.infer(key.apiKey));
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    const reply = await sb.infer(key.apiKey);
    expectRateLimited(reply);
    expect(reply.body.error.message).toMatch(/60 requests per minute/);
    await sb.advance(61);
    expect((await sb.infer(key.apiKey)).status).toBe(200);
  });

  it('pro subscription keys: 200 per minute', async () => {
    const token = await sb.newUser();
    const key = await sb.subscription(token, 'pro');
    const replies = await sequential(200, () => sb.infer(key.apiKey));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(200);
    expectRateLimited(await sb.infer(key.apiKey));
    await sb.advance(61);
    expect((await sb.infer(key.apiKey)).status).toBe(200);
  });
});

describe('the service’s limits tokens per minute', () => {
  it('standard: 3,333 tokens per minute; Retry-After until enough tokens leave the window', async () => {
    const token = await sb.newUser();
    const key = await sb.subscription(token, 'standard');
    const big = messagesOf(1500);
    expect((await sb.infer(key.apiKey, { messages: big })).status).toBe(200);
    await sb.advance(20);
    expect((await sb.infer(key.apiKey, { messages: big })).status).toBe(200);
    const refused = await sb.infer(key.apiKey, { messages: big });
    const retryAfter = expectRateLimited(refused);
    expect(refused.body.error.message).toMatch(/3333 tokens per minute/);
    // The first request (20 s ago) must leave the window: about 40 s.
    expect(retryAfter).toBeGreaterThanOrEqual(35);
    expect(retryAfter).toBeLessThanOrEqual(40);
    // A small request still fits (3,000 + 333 ≤ 3,333).
    expect((await sb.infer(key.apiKey, { messages: messagesOf(333) })).status).toBe(200);
    await sb.advance(retryAfter);
    // Left in the window: 1,500 + 333 (sent 20 s after the first); 1,500 more is exactly 3,333.
    expect((await sb.infer(key.apiKey, { messages: messagesOf(1500) })).status).toBe(200);
    expectRateLimited(await sb.infer(key.apiKey, { messages: messagesOf(30) }));
  });

  it('max_tokens counts instead of the canned answer', async () => {
    const token = await sb.newUser();
    const key = await sb.subscription(token, 'standard');
    expect((await sb.infer(key.apiKey, { max_tokens: 3000 })).status).toBe(200);
    expectRateLimited(await sb.infer(key.apiKey, { max_tokens: 400 }));
  });

  it('pro: 13,333 tokens per minute', async () => {
    const token = await sb.newUser();
    const key = await sb.subscription(token, 'pro');
    const big = messagesOf(4000);
    for (let i = 0; i < 3; i++) expect((await sb.infer(key.apiKey, { messages: big })).status).toBe(200);
    expectRateLimited(await sb.infer(key.apiKey, { messages: big }));
    expect((await sb.infer(key.apiKey, { messages: messagesOf(1333) })).status).toBe(200);
  });

  it('a single request above the per-minute allowance is a 400 naming messages (waiting would not help)', async () => {
    const token = await sb.newUser();
    const key = await sb.subscription(token, 'standard');
    const reply = await sb.infer(key.apiKey, { messages: messagesOf(3334) });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'invalid_request', field: 'messages' });
    expect((await sb.infer(key.apiKey, { messages: messagesOf(3333) })).status).toBe(200);
  });

  it('credit keys have no token limit', async () => {
    const { apiKey } = await fundedCreditKey(10);
    for (let i = 0; i < 3; i++) expect((await sb.infer(apiKey, { messages: messagesOf(10_000) })).status).toBe(200);
  });
});

describe('the service’s limits pool concurrency', () => {
  it('a subscription key serves 2 requests at once; a third concurrent one is 429 with Retry-After', async () => {
    const token = await sb.newUser();
    const key = await sb.subscription(token, 'pro');
    const replies = await Promise.all([1, 2, 3].map(() => sb.infer(key.apiKey, { sandbox_delay_ms: 2500 })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(2);
    const refused = replies.find((r) => r.status !== 200)!;
    expectRateLimited(refused);
    expect(refused.body.error.message).toMatch(/2 concurrent/);
    // Slots are given back when the answers are sent.
    expect((await Promise.all([1, 2].map(() => sb.infer(key.apiKey)))).map((r) => r.status)).toEqual([200, 200]);
  });

  it('credit keys have no concurrency bound', async () => {
    const { apiKey } = await fundedCreditKey(10);
    const replies = await Promise.all([1, 2, 3, 4].map(() => sb.infer(apiKey, { sandbox_delay_ms: 500 })));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });
});

describe('charges and answers', () => {
  it('charges a credit key sandbox_cost_usd (default a small fixed price); subscription keys are not charged', async () => {
    const { token, apiKey } = await fundedCreditKey(10);
    const reply = await sb.infer(apiKey);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: CANNED_ANSWER }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2, completion_tokens: Math.ceil(CANNED_ANSWER.length / 4) },
      sandbox: { keyType: 'credit', chargedUsd: DEFAULT_COST_USD },
    });
    expect((await sb.credits(token)).remaining).toBeCloseTo(10 - DEFAULT_COST_USD, 9);
    await sb.infer(apiKey, { sandbox_cost_usd: 0.000001 });
    expect((await sb.credits(token)).remaining).toBeCloseTo(10 - DEFAULT_COST_USD - 0.000001, 9);

    const sub = await sb.subscription(token, 'standard');
    const free = await sb.infer(sub.apiKey, { sandbox_cost_usd: 5 });
    expect(free.body.sandbox).toMatchObject({ keyType: 'subscription', chargedUsd: 0 });
    expect((await sb.credits(token)).remaining).toBeCloseTo(10 - DEFAULT_COST_USD - 0.000001, 9);
  });

  it('holds the answer sandbox_delay_ms', async () => {
    const { apiKey } = await fundedCreditKey(10);
    const started = performance.now();
    expect((await sb.infer(apiKey, { sandbox_delay_ms: 400 })).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('refuses bad bodies with 400 naming the field, and charges nothing', async () => {
    const { token, apiKey } = await fundedCreditKey(10);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ sandbox_cost_usd: -1 }, 'sandbox_cost_usd'],
      [{ sandbox_cost_usd: '1' }, 'sandbox_cost_usd'],
      [{ sandbox_cost_usd: 1e7 }, 'sandbox_cost_usd'],
      [{ sandbox_delay_ms: 30_001 }, 'sandbox_delay_ms'],
      [{ sandbox_delay_ms: 1.5 }, 'sandbox_delay_ms'],
      [{ sandbox_delay_ms: -1 }, 'sandbox_delay_ms'],
      [{ messages: [] }, 'messages'],
      [{ messages: 'hello' }, 'messages'],
      [{ messages: [{ role: 'user', content: 42 }] }, 'messages.0.content'],
      [{ max_tokens: 0 }, 'max_tokens'],
      [{ model: 42 }, 'model'],
    ];
    for (const [extra, field] of cases) {
      const reply = await sb.infer(apiKey, extra);
      expect(reply.status, JSON.stringify(extra)).toBe(400);
      expect(reply.body.error).toMatchObject({ code: 'invalid_request', field });
      expect(reply.body.error.message).toContain(field);
    }
    const missing = await sb.call('POST', '/v1/chat/completions', { token: apiKey, body: {} });
    expect(missing.body.error).toMatchObject({ code: 'invalid_request', field: 'messages', message: 'messages is required' });
    expect(await sb.credits(token)).toMatchObject({ remaining: 10 });
  });
});

describe('subscription expiry (30 days)', () => {
  it('refuses the key once its 30-day period ends and lists it as expired; other keys are unaffected', async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 10);
    const credit = await sb.creditKey(token, 'credit');
    const sub = await sb.subscription(token, 'standard');
    const keep = await sb.subscription(token, 'pro');

    await sb.advance(30 * 24 * 3600 - 120);
    expect((await sb.infer(sub.apiKey)).status).toBe(200);
    const fresh = await sb.subscription(token, 'standard', ['asia']); // bought later: expires later
    await sb.advance(121);

    const refused = await sb.infer(sub.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
    expect(refused.body.error.message).toMatch(/expired/);
    expect((await sb.infer(keep.apiKey)).status).toBe(401); // same period, also over
    expect((await sb.infer(credit.apiKey)).status).toBe(200);
    expect((await sb.infer(fresh.apiKey)).status).toBe(200);

    const list = (await sb.call('GET', '/api/keys', { token })).body as Array<Record<string, unknown>>;
    const byId = new Map(list.map((k) => [k.id, k]));
    expect(byId.get(sub.id)).toMatchObject({ isActive: false, subscriptionStatus: 'expired' });
    expect(byId.get(fresh.id)).toMatchObject({ isActive: true, subscriptionStatus: 'active' });
    expect(byId.get(credit.id)).toMatchObject({ isActive: true });
    expect(byId.get(credit.id)).not.toHaveProperty('subscriptionStatus');

    // Reactivating an expired key is refused (a new payment makes a new key); renaming is fine.
    const reactivate = await sb.call('PUT', `/api/keys/${sub.id}`, { token, body: { isActive: true } });
    expect(reactivate.status).toBe(400);
    expect(reactivate.body.error.field).toBe('isActive');
    const rename = await sb.call('PUT', `/api/keys/${sub.id}`, { token, body: { name: 'old' } });
    expect(rename.body).toMatchObject({ name: 'old', isActive: false, subscriptionStatus: 'expired' });
  });

  it('the clock only moves forward and rejects bad input', async () => {
    for (const body of [{ advanceSeconds: -1 }, { advanceSeconds: '10' }, {}, { advanceSeconds: 1, extra: 1 }]) {
      const reply = await sb.call('POST', '/sandbox/clock', { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
    }
    const a = await sb.call('POST', '/sandbox/clock', { body: { advanceSeconds: 0 } });
    const b = await sb.call('POST', '/sandbox/clock', { body: { advanceSeconds: 3600 } });
    expect(Date.parse(b.body.now) - Date.parse(a.body.now)).toBeGreaterThanOrEqual(3600_000);
    expect(b.body.offsetSeconds - a.body.offsetSeconds).toBe(3600);
  });

  it('every answer’s HTTP Date header follows the simulated clock, and the client reads the offset from it', async () => {
    const { KeydeckClient } = await import('../../src/api/client.js');
    const token = await sb.newUser();
    const before = await sb.call('GET', '/api/keys', { token });
    const offset = (Date.parse(before.headers.get('date')!) - Date.now()) / 1000;
    await sb.call('POST', '/sandbox/clock', { body: { advanceSeconds: 2 * 86_400 } });
    const after = await sb.call('GET', '/api/keys', { token });
    const shifted = (Date.parse(after.headers.get('date')!) - Date.now()) / 1000;
    // One-second resolution of the header: compare within a few seconds.
    expect(Math.abs(shifted - offset - 2 * 86_400)).toBeLessThan(5);
    const client = new KeydeckClient({ baseUrl: sb.url, token, retries: 0 });
    expect(client.serviceClockOffsetMs).toBeUndefined();
    await client.keys.list();
    expect(Math.abs(client.serviceClockOffsetMs! / 1000 - shifted)).toBeLessThan(5);
    expect(Math.abs(client.serviceNow() - Date.now() - client.serviceClockOffsetMs!)).toBeLessThan(1000);
    client.close();
  });
});
