/**
 * The sandbox's `POST /api/billing/cancel` `{ subscriptionId }` (the older
 * billing page) and the renewal it stops: a pool pledge renews at its period end, its key running
 * on with it, unless its renewal was cancelled; then it ends at that period end and its key with
 * it. A subscription key of the spec's model (paid once) already ends: answered the same. Unknown
 * ids 404, ended ones 400, bad ids 400. Over HTTP, in the seed dialect (its own sandbox: the
 * clock moves).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

const DAY = 86_400;

/** The pledge `id` as the billing status lists it. */
async function pledgeOf(token: string, id: string): Promise<Record<string, unknown>> {
  const status = await sb.call('GET', '/api/billing/status', { token });
  return status.body.data.poolPledges.find((p: { id: string }) => p.id === id);
}

describe('POST /api/billing/cancel and the renewal it stops', () => {
  it('a pledge renews with its key unless cancelled; a cancelled one ends at its period end, its key with it', async () => {
    const token = await sb.newUser();
    const pledge = async () => (await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['asia'] } })).body;
    const [renewing, cancelled] = [await pledge(), await pledge()];
    const mint = async (id: string, name: string) => (await sb.call('POST', '/api/keys/subscription', { token, body: { name, subscriptionId: id } })).body;
    const [kept, ending] = [await mint(renewing.id, 'renews'), await mint(cancelled.id, 'ends')];
    expect(renewing.cancelAtPeriodEnd).toBe(false);

    const answer = await sb.call('POST', '/api/billing/cancel', { token, body: { subscriptionId: cancelled.id } });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: { subscriptionId: cancelled.id, status: 'active', currentPeriodEnd: cancelled.currentPeriodEnd, cancelAtPeriodEnd: true } });
    expect(await pledgeOf(token, cancelled.id)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    // Idempotent.
    expect((await sb.call('POST', '/api/billing/cancel', { token, body: { subscriptionId: cancelled.id } })).status).toBe(200);

    await sb.advance(31 * DAY);
    const renewed = await pledgeOf(token, renewing.id);
    expect(renewed).toMatchObject({ status: 'active', cancelAtPeriodEnd: false, hasKey: true });
    expect(Date.parse(renewed.currentPeriodEnd as string) - Date.parse(renewing.currentPeriodEnd)).toBe(30 * DAY * 1000);
    expect(await pledgeOf(token, cancelled.id)).toMatchObject({ status: 'expired', cancelAtPeriodEnd: true, hasKey: false });
    const keys = (await sb.call('GET', '/api/keys', { token })).body as Array<{ id: string; isActive: boolean; subscriptionStatus: string; subscriptionExpiresAt: string }>;
    expect(keys.find((k) => k.id === kept.id)).toMatchObject({ isActive: true, subscriptionStatus: 'active', subscriptionExpiresAt: renewed.currentPeriodEnd });
    expect(keys.find((k) => k.id === ending.id)).toMatchObject({ isActive: false, subscriptionStatus: 'expired' });

    // An ended pledge has nothing to cancel.
    const late = await sb.call('POST', '/api/billing/cancel', { token, body: { subscriptionId: cancelled.id } });
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({ success: false, error: { code: 'invalid_request', field: 'subscriptionId' } });
  });

  it('the spec’s subscription key (paid once) already ends: answered so; unknown ids 404, bad ids 400, another user’s 404', async () => {
    const token = await sb.newUser();
    const sub = await sb.subscription(token, 'pro');
    const answer = await sb.call('POST', '/api/billing/cancel', { token, body: { subscriptionId: sub.id } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ subscriptionId: sub.id, cancelAtPeriodEnd: true });
    expect((await sb.call('POST', '/api/billing/cancel', { token, body: { subscriptionId: 'nope' } })).status).toBe(404);
    const bad = await sb.call('POST', '/api/billing/cancel', { token, body: { subscriptionId: 'a/b' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', field: 'subscriptionId' });
    const other = await sb.newUser();
    expect((await sb.call('POST', '/api/billing/cancel', { token: other, body: { subscriptionId: sub.id } })).status).toBe(404);
    expect((await sb.call('POST', '/api/billing/cancel', { body: { subscriptionId: sub.id } })).status).toBe(401);
  });
});
