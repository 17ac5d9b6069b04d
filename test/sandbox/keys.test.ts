/**
 * The service's states and transitions transitions and the service's endpoints key endpoints over HTTP: subscription and credit key creation,
 * deactivation and reactivation, deletion, management keys, and isolation between users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsumptionKeyListSchema, ManagementKeyListSchema } from '../../src/api/schemas.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const SK = /^sk_[0-9A-Za-z]{40}$/;
const MK = /^mk_[0-9A-Za-z]{40}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('the demo user', () => {
  it('starts as an account used for three weeks: two top-ups, keys of each kind with spend, management keys, a pledge', async () => {
    const credits = await sb.credits(sb.token);
    // $25 + $100 topped up, $40.80 spent by the credit keys (src/sandbox/demo.ts).
    expect(credits).toMatchObject({ totalTopUp: 125, remaining: 84.2, hasCreditKey: true, creditKeyCount: 2 });
    expect(credits.userId).toEqual(expect.any(String));

    const list = await sb.call('GET', '/api/keys', { token: sb.token });
    expect(list.status).toBe(200);
    const keys = ConsumptionKeyListSchema.parse(list.body);
    expect(keys.map((k) => [k.name, k.keyType, k.isActive])).toEqual([
      ['Standard subscription (europe)', 'subscription', true],
      ['prod-backend', 'credit', true],
      ['staging', 'credit', false],
      ['Pro subscription (asia, americas)', 'subscription', true],
      ['batch-jobs', 'credit', true],
    ]);
    const standard = keys[0]!;
    expect(Date.parse(standard.subscriptionExpiresAt!) - Date.parse(standard.createdAt)).toBe(30 * DAY_MS);
    // Created over the last three weeks, not all at once.
    expect(Date.now() - Date.parse(standard.createdAt)).toBeGreaterThan(20 * DAY_MS);
    expect(Date.now() - Date.parse(keys[4]!.createdAt)).toBeLessThan(4 * DAY_MS);

    const status = await sb.call('GET', '/api/billing/status', { token: sb.token });
    expect(status.body.data.recentTopUps).toEqual([expect.objectContaining({ method: 'usdc', amount: 100 }), expect.objectContaining({ method: 'usdc', amount: 25 })]);
    expect(status.body.data.poolPledges).toEqual(expect.arrayContaining([expect.objectContaining({ poolSlug: 'kimi26', hasKey: false })]));
    const managementKeys = await sb.call('GET', '/api/keys/management', { token: sb.token });
    expect(managementKeys.body.map((k: { name: string }) => k.name)).toEqual(['ci-deploy', 'old-laptop']);
  });
});

describe('subscription payment (the service’s states and transitions first row)', () => {
  it('creates exactly one active 30-day key per payment; several coexist; apiKey is shown once', async () => {
    const token = await sb.newUser();
    const first = await sb.call('POST', '/sandbox/subscriptions', { token, body: { plan: 'standard', blocks: ['asia'] } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ keyType: 'subscription', keyPlan: 'standard', isActive: true, subscriptionStatus: 'active' });
    expect(first.body.apiKey).toMatch(SK);
    expect(Date.parse(first.body.subscriptionExpiresAt) - Date.parse(first.body.createdAt)).toBe(30 * DAY_MS);

    const second = await sb.subscription(token, 'pro', ['europe', 'americas']);
    expect(second.keyPlan).toBe('pro');

    const list = await sb.call('GET', '/api/keys', { token });
    expect(list.body.map((k: { id: string }) => k.id)).toEqual([first.body.id, second.id]);
    expect(JSON.stringify(list.body)).not.toContain('sk_');
    for (const key of list.body) expect(key).not.toHaveProperty('apiKey');
    // Subscription keys do not touch the credit balance.
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 0, remaining: 0, hasCreditKey: false });
  });

  it('refuses a bad plan or bad blocks without creating anything', async () => {
    const token = await sb.newUser();
    for (const body of [
      { plan: 'gold', blocks: ['asia'] },
      { plan: 'standard', blocks: [] },
      { plan: 'standard', blocks: ['asia', 'asia'] },
      { plan: 'standard', blocks: ['mars'] },
      { plan: 'standard', blocks: ['asia', 'europe', 'americas', 'asia'] },
      { plan: 'standard' },
    ]) {
      const reply = await sb.call('POST', '/sandbox/subscriptions', { token, body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.code).toBe('invalid_request');
    }
    expect((await sb.call('GET', '/api/keys', { token })).body).toEqual([]);
  });
});

describe('credit keys', () => {
  it('POST /api/keys/credit with a balance above 0 creates an active key, apiKey shown once', async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 10);
    const created = await sb.call('POST', '/api/keys/credit', { token, body: { name: '  ci runner  ' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'ci runner', keyType: 'credit', keyPlan: 'credits', isActive: true });
    expect(created.body.id).toMatch(UUID);
    expect(created.body.apiKey).toMatch(SK);
    expect(Number.isNaN(Date.parse(created.body.createdAt))).toBe(false);

    const list = await sb.call('GET', '/api/keys', { token });
    expect(list.body).toEqual([{ id: created.body.id, name: 'ci runner', keyPlan: 'credits', lastUsedAt: null, keyType: 'credit', isActive: true, createdAt: created.body.createdAt }]);
    expect(await sb.credits(token)).toMatchObject({ hasCreditKey: true, creditKeyCount: 1 });
  });

  it('is refused with 402 insufficient_balance when the balance is 0, and nothing is created', async () => {
    const token = await sb.newUser();
    const reply = await sb.call('POST', '/api/keys/credit', { token, body: { name: 'nope' } });
    expect(reply.status).toBe(402);
    expect(reply.body.error.code).toBe('insufficient_balance');
    expect((await sb.call('GET', '/api/keys', { token })).body).toEqual([]);
    expect(await sb.credits(token)).toMatchObject({ hasCreditKey: false, creditKeyCount: 0, userId: null });
  });
});

describe('PUT /api/keys/:id (the service’s states and transitions deactivate, reactivate, rename)', () => {
  it('revokes at once with isActive false and reactivates with isActive true', async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 10);
    const key = await sb.creditKey(token, 'toggle');
    expect((await sb.infer(key.apiKey)).status).toBe(200);

    const off = await sb.call('PUT', `/api/keys/${key.id}`, { token, body: { isActive: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id: key.id, name: 'toggle', isActive: false, keyType: 'credit' });
    expect(off.body).not.toHaveProperty('apiKey');
    // 403 as the usage page's "Key is deactivated": known, and refused.
    const refused = await sb.infer(key.apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.body.error.message).toMatch(/deactivated/);
    expect(await sb.credits(token)).toMatchObject({ hasCreditKey: true, creditKeyCount: 0 });

    const on = await sb.call('PUT', `/api/keys/${key.id}`, { token, body: { isActive: true } });
    expect(on.body.isActive).toBe(true);
    expect((await sb.infer(key.apiKey)).status).toBe(200);
    expect(await sb.credits(token)).toMatchObject({ creditKeyCount: 1 });
  });

  it('renames a key and pauses a subscription key the same way', async () => {
    const token = await sb.newUser();
    const sub = await sb.subscription(token, 'standard');
    const renamed = await sb.call('PUT', `/api/keys/${sub.id}`, { token, body: { name: 'renamed', isActive: false } });
    expect(renamed.body).toMatchObject({ name: 'renamed', isActive: false, subscriptionStatus: 'active' });
    expect((await sb.infer(sub.apiKey)).status).toBe(403);
    const list = await sb.call('GET', '/api/keys', { token });
    expect(list.body[0]).toMatchObject({ name: 'renamed', isActive: false });
  });

  it('refuses an empty change with 400 naming the fields', async () => {
    const token = await sb.newUser();
    const sub = await sb.subscription(token, 'standard');
    const reply = await sb.call('PUT', `/api/keys/${sub.id}`, { token, body: {} });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(/name or isActive/);
  });
});

describe('DELETE /api/keys/:id (the service’s states and transitions permanent)', () => {
  it('answers { deleted: true }, the key is gone from the list and refused at once; a second delete is 404', async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 10);
    const key = await sb.creditKey(token);
    const sub = await sb.subscription(token, 'pro');
    const del = await sb.call('DELETE', `/api/keys/${key.id}`, { token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    expect((await sb.call('GET', '/api/keys', { token })).body.map((k: { id: string }) => k.id)).toEqual([sub.id]);
    const refused = await sb.infer(key.apiKey);
    expect(refused.status).toBe(401);
    expect((await sb.call('DELETE', `/api/keys/${key.id}`, { token })).status).toBe(404);
    expect((await sb.call('PUT', `/api/keys/${key.id}`, { token, body: { isActive: true } })).status).toBe(404);
    // The other key is unaffected.
    expect((await sb.infer(sub.apiKey)).status).toBe(200);
    expect(await sb.credits(token)).toMatchObject({ hasCreditKey: false, creditKeyCount: 0 });
  });
});

describe('management keys', () => {
  it('creates (full key once), lists with keyPrefix and lastUsedAt, works on /api/*, and stops at once when deleted', async () => {
    const token = await sb.newUser();
    const created = await sb.call('POST', '/api/keys/management', { token, body: { name: 'laptop' } });
    expect(created.status).toBe(200);
    expect(created.body.id).toMatch(UUID);
    expect(created.body.apiKey).toMatch(MK);
    expect(created.body.keyPrefix).toBe(created.body.apiKey.slice(0, 11));
    expect(created.body.name).toBe('laptop');
    const mk = created.body.apiKey as string;

    const before = await sb.call('GET', '/api/keys/management', { token });
    const listed = ManagementKeyListSchema.parse(before.body);
    expect(listed).toEqual([{ id: created.body.id, name: 'laptop', keyPrefix: created.body.keyPrefix, isActive: true, lastUsedAt: null, createdAt: expect.any(String) }]);
    expect(JSON.stringify(before.body)).not.toContain(mk);

    // A management key is accepted on /api/*, and its use is recorded.
    expect((await sb.call('GET', '/api/keys', { token: mk })).status).toBe(200);
    expect((await sb.call('GET', '/api/billing/credits', { token: mk })).status).toBe(200);
    expect((await sb.call('GET', '/api/billing/status', { token: mk })).status).toBe(200);
    const after = await sb.call('GET', '/api/keys/management', { token });
    expect(Date.parse(after.body[0].lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(after.body[0].createdAt));

    // It can manage keys: a second management key, created with the first.
    const second = await sb.call('POST', '/api/keys/management', { token: mk, body: { name: 'ci' } });
    expect(second.status).toBe(200);

    const del = await sb.call('DELETE', `/api/keys/management/${created.body.id}`, { token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    const refused = await sb.call('GET', '/api/keys', { token: mk });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthorized');
    expect((await sb.call('GET', '/api/keys/management', { token })).body.map((k: { name: string }) => k.name)).toEqual(['ci']);
    expect((await sb.call('DELETE', `/api/keys/management/${created.body.id}`, { token })).status).toBe(404);
  });
});

describe('isolation between users', () => {
  it("user B gets 404 for user A's key ids and never sees them; A's keys keep working", async () => {
    const a = await sb.newUser();
    const b = await sb.newUser();
    await sb.topUp(a, 10);
    const aKey = await sb.creditKey(a, 'a-key');
    const aMk = (await sb.call('POST', '/api/keys/management', { token: a, body: { name: 'a-mk' } })).body;

    for (const [method, path, body] of [
      ['PUT', `/api/keys/${aKey.id}`, { isActive: false }],
      ['PUT', `/api/keys/${aKey.id}`, { name: 'stolen' }],
      ['DELETE', `/api/keys/${aKey.id}`, undefined],
      ['DELETE', `/api/keys/management/${aMk.id}`, undefined],
    ] as const) {
      const reply = await sb.call(method, path, { token: b, ...(body && { body }) });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body.error.code).toBe('not_found');
    }
    expect((await sb.call('GET', '/api/keys', { token: b })).body).toEqual([]);
    expect((await sb.call('GET', '/api/keys/management', { token: b })).body).toEqual([]);
    expect(await sb.credits(b)).toMatchObject({ totalTopUp: 0, remaining: 0 });

    expect((await sb.call('GET', '/api/keys', { token: a })).body[0]).toMatchObject({ name: 'a-key', isActive: true });
    expect((await sb.infer(aKey.apiKey)).status).toBe(200);
    expect((await sb.call('GET', '/api/keys', { token: aMk.apiKey })).status).toBe(200);
  });
});
