/**
 * The sandbox's pool subscriptions, over HTTP: pools and their hour slots, a pledge
 * without a key in the billing status, `POST /api/keys/subscription` (one active key per
 * subscription), and a pool key's reserved blocks on the sandbox clock (429 outside with
 * Retry-After, 1 concurrent request inside).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCK_NAMES, blockOfHour } from '../../src/api/poolBlocks.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';

let v2: TestSandbox;
let seed: TestSandbox;
beforeAll(async () => {
  [v2, seed] = await Promise.all([startTestSandbox({ dialect: 'docs-v2' }), startTestSandbox()]);
});
afterAll(async () => {
  await Promise.all([v2?.close(), seed?.close()]);
});

/** The sandbox's current block, from its clock. */
async function currentBlock(sb: TestSandbox): Promise<(typeof BLOCK_NAMES)[number]> {
  const r = await sb.call('POST', '/sandbox/clock', { body: { advanceSeconds: 0 } });
  return blockOfHour(new Date(r.body.now).getUTCHours());
}

describe('pools', () => {
  it('lists the pools in the pages shape, enveloped in docs-v2 and bare in seed', async () => {
    const listed = await v2.call('GET', '/api/pools', { token: v2.token });
    expect(listed.status).toBe(200);
    expect(listed.body.success).toBe(true);
    expect(listed.body.data[0]).toMatchObject({ slug: 'kimi26', status: 'active', totalSlots: 10, minPricePerDay: '39.00', annualDiscount: 0.15, manualProvisioning: false });
    const bare = await seed.call('GET', '/api/pools', { token: seed.token });
    expect(Array.isArray(bare.body)).toBe(true);
    expect((await seed.call('GET', '/api/pools')).status).toBe(401);
  });

  it('answers one pool by slug or id with 24 hour slots per seat, priced so a block sums to its monthly price', async () => {
    const bySlug = await seed.call('GET', '/api/pools/kimi26', { token: seed.token });
    const byId = await seed.call('GET', `/api/pools/${bySlug.body.id}`, { token: seed.token });
    expect(byId.body.slug).toBe('kimi26');
    const slots = bySlug.body.hourSlots as Array<{ hour: number; slotIndex: number; pricePerDay: string; status: string }>;
    expect(slots).toHaveLength(24 * 10);
    const europeSeat0 = slots.filter((s) => s.slotIndex === 0 && s.hour >= 8 && s.hour < 16);
    expect(europeSeat0.reduce((sum, s) => sum + Math.round(Number(s.pricePerDay) * 100), 0)).toBe(4900);
    expect((await seed.call('GET', '/api/pools/nope', { token: seed.token })).status).toBe(404);
  });
});

describe('pledges and their keys', () => {
  it('shows the docs-v2 demo pledge without a key, mints its one key, refuses a second, and marks a seat reserved', async () => {
    const status = await v2.call('GET', '/api/billing/status', { token: v2.token });
    const pledge = status.body.data.poolPledges.find((p: { poolSlug: string }) => p.poolSlug === 'kimi26');
    expect(pledge).toMatchObject({ hasKey: false, status: 'active', blocks: ['asia', 'europe', 'americas'] });
    const minted = await v2.call('POST', '/api/keys/subscription', { token: v2.token, body: { name: 'pool key', subscriptionId: pledge.id } });
    expect(minted.status).toBe(200);
    expect(minted.body.data).toMatchObject({ name: 'pool key', keyPlan: 'pool', keyType: 'subscription', subscriptionId: pledge.id, apiKey: expect.stringMatching(/^sk_/) });
    const again = await v2.call('POST', '/api/keys/subscription', { token: v2.token, body: { name: 'second', subscriptionId: pledge.id } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_request', field: 'subscriptionId' });
    expect(again.body.error.message).toContain('"pool key"');
    const after = await v2.call('GET', '/api/billing/status', { token: v2.token });
    expect(after.body.data.poolPledges.find((p: { id: string }) => p.id === pledge.id)).toMatchObject({ hasKey: true, keys: [{ name: 'pool key' }] });
    const listed = await v2.call('GET', '/api/keys', { token: v2.token });
    expect(listed.body.data.find((k: { name: string }) => k.name === 'pool key')).toMatchObject({ keyPlan: 'pool', subscriptionId: pledge.id });
    const detail = await v2.call('GET', '/api/pools/kimi26', { token: v2.token });
    expect(detail.body.data.hourSlots.filter((s: { status: string }) => s.status === 'reserved')).toHaveLength(24);
    // A deactivated key frees the subscription for a new one; reactivating the old is then refused.
    const oldId = minted.body.data.id;
    expect((await v2.call('PUT', `/api/keys/${oldId}`, { token: v2.token, body: { isActive: false } })).status).toBe(200);
    const fresh = await v2.call('POST', '/api/keys/subscription', { token: v2.token, body: { name: 'fresh', subscriptionId: pledge.id } });
    expect(fresh.status).toBe(200);
    expect((await v2.call('PUT', `/api/keys/${oldId}`, { token: v2.token, body: { isActive: true } })).status).toBe(409);
  });

  it('refuses an unknown subscription (404), a bad id (400) and the seed model’s own key (409)', async () => {
    const token = await seed.newUser();
    expect((await seed.call('POST', '/api/keys/subscription', { token, body: { name: 'x', subscriptionId: 'nope' } })).status).toBe(404);
    const bad = await seed.call('POST', '/api/keys/subscription', { token, body: { name: 'x', subscriptionId: 'a/b' } });
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', field: 'subscriptionId' });
    const sub = await seed.subscription(token, 'standard');
    expect((await seed.call('POST', '/api/keys/subscription', { token, body: { name: 'x', subscriptionId: sub.id } })).status).toBe(409);
  });

  it('a pool key gets 429 outside its blocks (Retry-After until the next) and 1 concurrent request inside', async () => {
    const token = await seed.newUser();
    const now = await currentBlock(seed);
    const other = BLOCK_NAMES.find((b) => b !== now)!;
    const pledged = async (blocks: string[]) => {
      const p = await seed.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks } });
      expect(p.body).toMatchObject({ hasKey: false, blocks });
      const k = await seed.call('POST', '/api/keys/subscription', { token, body: { name: blocks.join('+'), subscriptionId: p.body.id } });
      return k.body.apiKey as string;
    };
    const outside = await pledged([other]);
    const refused = await seed.infer(outside);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain(`next block, ${other}`);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(16 * 3600);
    const inside = await pledged([now]);
    const replies = await Promise.all([1, 2].map(() => seed.infer(inside, { sandbox_delay_ms: 1000 })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 429]);
    expect(replies.find((r) => r.status === 429)!.body.error.message).toContain('1 concurrent request per key');
    // No rpm cap inside the block: more requests than a standard key's 60 per minute pass.
    const statuses: number[] = [];
    for (let i = 0; i < 65; i++) statuses.push((await seed.infer(inside)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});
