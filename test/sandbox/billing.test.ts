/**
 * The service's endpoints for billing endpoints, the credit balance record–the verified top-up result data, the service's errors top-up failures, the budget model and example of the service's states and transitions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardCheckoutSessionSchema, CreditBalanceSchema, UsdcPaymentInstructionSchema, VerifiedTopUpSchema } from '../../src/api/schemas.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

async function instruction(token: string, amount: number) {
  const reply = await sb.call('POST', '/api/billing/topup', { token, body: { amount, method: 'usdc' } });
  expect(reply.status).toBe(200);
  expect(reply.body.success).toBe(true);
  return UsdcPaymentInstructionSchema.parse(reply.body.data);
}

async function transfer(to: string, amount: string): Promise<string> {
  const reply = await sb.call('POST', '/sandbox/chain/transfers', { body: { to, amount } });
  expect(reply.status).toBe(200);
  expect(reply.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  return reply.body.txHash;
}

function verify(token: string, txHash: string, amount: number) {
  return sb.call('POST', '/api/billing/verify-topup', { token, body: { txHash, amount } });
}

describe('USDC top-up', () => {
  it('gives a fresh deposit address on base per instruction, with the amount as a string', async () => {
    const token = await sb.newUser();
    const a = await instruction(token, 25);
    const b = await instruction(token, 12.5);
    expect(a).toEqual({ address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), chain: 'base', amount: '25' });
    expect(b.amount).toBe('12.5');
    expect(b.address).not.toBe(a.address);
    // Pending instructions show in the status until paid.
    const status = await sb.call('GET', '/api/billing/status', { token });
    expect(status.body.data.pendingTopUps.map((p: { address?: string }) => p.address).sort()).toEqual([a.address, b.address].sort());
  });

  it('credits a verified transfer once: replay is 409 tx_already_used and changes nothing', async () => {
    const token = await sb.newUser();
    const { address } = await instruction(token, 25);
    const txHash = await transfer(address, '25');
    const ok = await verify(token, txHash, 25);
    expect(ok.status).toBe(200);
    expect(VerifiedTopUpSchema.parse(ok.body.data)).toEqual({ credited: 25, balance: 25 });
    const credits = CreditBalanceSchema.parse(await sb.credits(token));
    expect(credits).toMatchObject({ totalTopUp: 25, remaining: 25 });
    expect(credits.userId).toEqual(expect.any(String));

    const replay = await verify(token, txHash, 25);
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual({ success: false, error: expect.objectContaining({ code: 'tx_already_used' }) });
    // Upper-case hex is the same transaction.
    expect((await verify(token, `0x${txHash.slice(2).toUpperCase()}`, 25)).status).toBe(409);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 25, remaining: 25 });
  });

  it('refuses a different amount with 422 amount_mismatch and changes nothing; the exact amount still credits', async () => {
    const token = await sb.newUser();
    const { address } = await instruction(token, 30);
    const txHash = await transfer(address, '30');
    for (const amount of [25, 30.01, 300]) {
      const reply = await verify(token, txHash, amount);
      expect(reply.status).toBe(422);
      expect(reply.body.error.code).toBe('amount_mismatch');
    }
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 0, remaining: 0, userId: null });
    expect((await verify(token, txHash, 30)).body.data).toEqual({ credited: 30, balance: 30 });
  });

  it('refuses an unknown hash with 404 not_found saying it was not found (may still be confirming)', async () => {
    const token = await sb.newUser();
    const reply = await verify(token, `0x${'ab'.repeat(32)}`, 10);
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('not_found');
    expect(reply.body.error.message).toMatch(/not found/);
    expect(reply.body.error.message).toMatch(/confirming/);
  });

  it("refuses another user's transaction (and one to no deposit address) exactly like an unknown one", async () => {
    const a = await sb.newUser();
    const b = await sb.newUser();
    const { address } = await instruction(a, 20);
    const txHash = await transfer(address, '20');
    const stolen = await verify(b, txHash, 20);
    const unknown = await verify(b, `0x${'cd'.repeat(32)}`, 20);
    expect(stolen.status).toBe(404);
    expect(stolen.body).toEqual(unknown.body);
    const nowhere = await transfer(`0x${'1'.repeat(40)}`, '20');
    expect((await verify(b, nowhere, 20)).status).toBe(404);
    expect(await sb.credits(b)).toMatchObject({ totalTopUp: 0 });
    // The owner can still credit it.
    expect((await verify(a, txHash, 20)).status).toBe(200);
  });
});

describe('top-up amounts and methods', () => {
  it('refuses an amount below 10 USD, more than two decimals, a non-number, a bad method; 10 is accepted', async () => {
    const token = await sb.newUser();
    const cases: Array<[unknown, string]> = [
      [{ amount: 9.99, method: 'usdc' }, 'amount'],
      [{ amount: 0, method: 'card_checkout' }, 'amount'],
      [{ amount: -10, method: 'card_direct' }, 'amount'],
      [{ amount: 10.001, method: 'usdc' }, 'amount'],
      [{ amount: '25', method: 'usdc' }, 'amount'],
      [{ method: 'usdc' }, 'amount'],
      [{ amount: 25, method: 'paypal' }, 'method'],
      [{ amount: 25 }, 'method'],
    ];
    for (const [body, field] of cases) {
      const reply = await sb.call('POST', '/api/billing/topup', { token, body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.success).toBe(false);
      expect(reply.body.error).toMatchObject({ code: 'invalid_request', field });
      expect(reply.body.error.message).toContain(field);
    }
    const below = await sb.call('POST', '/api/billing/topup', { token, body: { amount: 9.99, method: 'usdc' } });
    expect(below.body.error.message).toMatch(/at least 10/);
    const status = await sb.call('GET', '/api/billing/status', { token });
    expect(status.body.data.pendingTopUps).toEqual([]);
    expect((await sb.call('POST', '/api/billing/topup', { token, body: { amount: 10, method: 'card_direct' } })).status).toBe(200);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 10 });
  });

  it('verify-topup refuses a malformed hash and an amount below 10', async () => {
    const token = await sb.newUser();
    for (const body of [{ txHash: '0x1234', amount: 10 }, { txHash: `0x${'g'.repeat(64)}`, amount: 10 }, { txHash: `0x${'a'.repeat(64)}`, amount: 5 }, { amount: 10 }]) {
      const reply = await verify(token, (body as { txHash?: string }).txHash as string, body.amount);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.code).toBe('invalid_request');
    }
  });
});

describe('card top-ups', () => {
  it('card_checkout gives a hosted page whose Pay form credits the amount exactly once', async () => {
    const token = await sb.newUser();
    const reply = await sb.call('POST', '/api/billing/topup', { token, body: { amount: 40, method: 'card_checkout' } });
    expect(reply.status).toBe(200);
    const session = CardCheckoutSessionSchema.parse(reply.body.data);
    expect(session.sessionUrl).toBe(`${sb.url}/sandbox/checkout/${session.sessionId}`);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 0 });
    const pending = (await sb.call('GET', '/api/billing/status', { token })).body.data.pendingTopUps;
    expect(pending).toEqual([expect.objectContaining({ method: 'card_checkout', amount: 40, sessionId: session.sessionId })]);

    const page = await fetch(session.sessionUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toMatch(/<form method="post">/);
    expect(html).toMatch(/Pay \$40\.00/);

    // What a browser sends when the button is pressed.
    const pay = await fetch(session.sessionUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(pay.status).toBe(200);
    expect(await pay.text()).toMatch(/credited/);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 40, remaining: 40 });

    const again = await fetch(session.sessionUrl, { method: 'POST' });
    expect(again.status).toBe(200);
    expect(await again.text()).toMatch(/already paid/);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 40, remaining: 40 });
    expect(await (await fetch(session.sessionUrl)).text()).not.toMatch(/<form/);
    expect((await sb.call('GET', '/api/billing/status', { token })).body.data.pendingTopUps).toEqual([]);
  });

  it('an unknown checkout session is 404', async () => {
    expect((await fetch(`${sb.url}/sandbox/checkout/cs_sandbox_${'x'.repeat(24)}`)).status).toBe(404);
    expect((await fetch(`${sb.url}/sandbox/checkout/nope`, { method: 'POST' })).status).toBe(404);
  });

  it('card_direct credits at once and answers { status, paymentId, amount, credited, balance }', async () => {
    const token = await sb.newUser();
    const reply = await sb.call('POST', '/api/billing/topup', { token, body: { amount: 15.5, method: 'card_direct' } });
    expect(reply.body).toEqual({
      success: true,
      data: { status: 'succeeded', paymentId: expect.stringMatching(/^pi_/), amount: 15.5, credited: 15.5, balance: 15.5 },
    });
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 15.5, remaining: 15.5 });
  });

  it('POST /sandbox/cards/decline: the account’s next N card charges are declined (402 card_declined), nothing charged; other accounts are not', async () => {
    const token = await sb.newUser();
    const other = await sb.newUser();
    expect((await sb.call('POST', '/sandbox/cards/decline', { body: { count: 2 } })).status).toBe(401);
    expect((await sb.call('POST', '/sandbox/cards/decline', { token, body: { count: 2.5 } })).status).toBe(400);
    expect((await sb.call('POST', '/sandbox/cards/decline', { token, body: { count: 2 } })).body).toEqual({ declineNext: 2 });
    const charge = (t: string) => sb.call('POST', '/api/billing/topup', { token: t, body: { amount: 10, method: 'card_direct' } });
    const first = await charge(token);
    expect(first.status).toBe(402);
    expect(first.body).toEqual({ success: false, error: { code: 'card_declined', message: expect.stringMatching(/declined.*Nothing was charged/) } });
    expect((await charge(other)).status).toBe(200);
    // The second decline goes to the checkout page's Pay button.
    const session = (await sb.call('POST', '/api/billing/topup', { token, body: { amount: 20, method: 'card_checkout' } })).body.data.sessionId as string;
    const paid = await fetch(`${sb.url}/sandbox/checkout/${session}`, { method: 'POST' });
    expect(paid.status).toBe(402);
    expect(await paid.text()).toMatch(/Card declined/);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 0 });
    expect((await charge(token)).status).toBe(200);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 10 });
    // The declined card_direct is listed with its time; the checkout page's decline is not a card-on-file charge.
    expect((await sb.call('GET', '/api/billing/status', { token })).body.data.failedTopUps).toEqual([
      { method: 'card_direct', status: 'declined', amount: 10, paymentId: expect.stringMatching(/^pi_sandbox_/), createdAt: expect.any(String) },
    ]);
  });

  it('POST /sandbox/cards/delay: a card-on-file charge is answered processing, listed pending, and credited when due on the sandbox clock, across a restart', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-card-delay-'));
    const dbPath = path.join(dir, 'sandbox.db');
    let lagging = await startTestSandbox({ dbPath });
    try {
      const token = await lagging.newUser();
      expect((await lagging.call('POST', '/sandbox/cards/delay', { body: { seconds: 60 } })).status).toBe(401);
      expect((await lagging.call('POST', '/sandbox/cards/delay', { token, body: { seconds: 3601 } })).status).toBe(400);
      expect((await lagging.call('POST', '/sandbox/cards/delay', { token, body: { seconds: 60 } })).body).toEqual({ delaySeconds: 60 });
      const answer = await lagging.call('POST', '/api/billing/topup', { token, body: { amount: 30, method: 'card_direct' } });
      expect(answer.body.data).toEqual({ status: 'processing', paymentId: expect.stringMatching(/^pi_sandbox_/), amount: 30 });
      const paymentId = answer.body.data.paymentId as string;
      expect(await lagging.credits(token)).toMatchObject({ totalTopUp: 0 });
      const pending = (await lagging.call('GET', '/api/billing/status', { token })).body.data;
      expect(pending.pendingTopUps).toEqual([{ method: 'card_direct', status: 'pending', amount: 30, paymentId, createdAt: expect.any(String) }]);
      expect(pending.recentTopUps).toEqual([]);
      await lagging.close();
      lagging = await startTestSandbox({ dbPath });
      // 59 s after the charge on the sandbox's clock, whatever real time the restart took: the clock
      // is real time plus its offset, and a restart under load took past the second left.
      const clock = (await lagging.call('POST', '/sandbox/clock', { body: { advanceSeconds: 0 } })).body.now as string;
      await lagging.advance(59 - (Date.parse(clock) - Date.parse(pending.pendingTopUps[0].createdAt as string)) / 1000);
      expect(await lagging.credits(token)).toMatchObject({ totalTopUp: 0 });
      await lagging.advance(2);
      expect(await lagging.credits(token)).toMatchObject({ totalTopUp: 30, remaining: 30 });
      const done = (await lagging.call('GET', '/api/billing/status', { token })).body.data;
      expect(done.pendingTopUps).toEqual([]);
      expect(done.recentTopUps).toEqual([expect.objectContaining({ method: 'card_direct', status: 'succeeded', amount: 30, paymentId })]);
      // 0: credited at once again.
      expect((await lagging.call('POST', '/sandbox/cards/delay', { token, body: { seconds: 0 } })).body).toEqual({ delaySeconds: 0 });
      expect((await lagging.call('POST', '/api/billing/topup', { token, body: { amount: 10, method: 'card_direct' } })).body.data).toMatchObject({ status: 'succeeded', credited: 10, balance: 40 });
    } finally {
      await lagging.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('budget model', () => {
  it('the service’s states and transitions example: top-up 50, spend 20, top-up 25 → totalTopUp 75, spend 20, remaining 55', async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 50);
    const key = await sb.creditKey(token);
    const spend = await sb.infer(key.apiKey, { sandbox_cost_usd: 20 });
    expect(spend.status).toBe(200);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 50, remaining: 30 });
    await sb.topUp(token, 25);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 75, remaining: 55 });
    const status = (await sb.call('GET', '/api/billing/status', { token })).body.data;
    expect(status.balance).toEqual({ totalTopUp: 75, spend: 20, remaining: 55 });
    expect(status.creditKeys.keys).toEqual([expect.objectContaining({ id: key.id, spend: 20 })]);
  });

  it('spend >= max_budget fails inference with 402 budget_exceeded; a top-up raises the budget and it serves again', async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 10);
    const a = await sb.creditKey(token, 'a');
    const b = await sb.creditKey(token, 'b');
    expect((await sb.infer(a.apiKey, { sandbox_cost_usd: 6 })).status).toBe(200);
    expect((await sb.infer(b.apiKey, { sandbox_cost_usd: 4 })).status).toBe(200);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 10, remaining: 0 });
    for (const key of [a, b]) {
      const refused = await sb.infer(key.apiKey, { sandbox_cost_usd: 0.01 });
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('budget_exceeded');
    }
    // No credit key while the balance is 0.
    const noKey = await sb.call('POST', '/api/keys/credit', { token, body: { name: 'c' } });
    expect(noKey.status).toBe(402);
    expect(noKey.body.error.code).toBe('insufficient_balance');

    await sb.topUp(token, 10);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 20, remaining: 10 });
    expect((await sb.infer(a.apiKey, { sandbox_cost_usd: 1 })).status).toBe(200);
    const keys = (await sb.call('GET', '/api/billing/status', { token })).body.data.creditKeys.keys;
    expect(keys.map((k: { spend: number }) => k.spend)).toEqual([7, 4]);
  });

  it('a deleted credit key keeps its spend in the account (money does not come back)', async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 10);
    const key = await sb.creditKey(token);
    await sb.infer(key.apiKey, { sandbox_cost_usd: 3 });
    await sb.call('DELETE', `/api/keys/${key.id}`, { token });
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 10, remaining: 7, hasCreditKey: false });
  });

  it('40 parallel $1 requests against a $10 balance: exactly 10 succeed, the rest are budget_exceeded', async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 10);
    const key = await sb.creditKey(token);
    const replies = await Promise.all(Array.from({ length: 40 }, () => sb.infer(key.apiKey, { sandbox_cost_usd: 1, sandbox_delay_ms: 300 })));
    const ok = replies.filter((r) => r.status === 200).length;
    expect(ok).toBe(10);
    expect(replies.filter((r) => r.status === 402 && r.body.error.code === 'budget_exceeded')).toHaveLength(40 - ok);
    const credits = await sb.credits(token);
    expect(credits.remaining).toBe(10 - ok);
    expect(credits.remaining).toBeGreaterThanOrEqual(0);
  });
});

describe('GET /api/billing/status', () => {
  it("answers the newer documentation page's shape (subscriptions, pool pledges, creditBalance) with the sandbox's own fields beside it", async () => {
    const token = await sb.newUser();
    await sb.topUp(token, 12);
    await sb.creditKey(token, 'k');
    const pool = await sb.subscription(token, 'pro', ['asia', 'americas']);
    const reply = await sb.call('GET', '/api/billing/status', { token });
    expect(reply.status).toBe(200);
    expect(reply.body.success).toBe(true);
    expect(reply.body.data).toMatchObject({
      // Every sandbox subscription reserves time blocks: a pool pledge (flat plans are retired on the page).
      subscriptions: [],
      poolPledges: [{ id: pool.id, poolSlug: 'asia+americas', status: 'active', currentPeriodEnd: pool.subscriptionExpiresAt, cancelAtPeriodEnd: true, hasKey: true }],
      plan: null,
      creditBalance: 12,
      legacySubscriptionKeys: [],
      userId: expect.any(String),
      balance: { totalTopUp: 12, spend: 0, remaining: 12 },
      creditKeys: { total: 1, active: 1, keys: [expect.objectContaining({ name: 'k', spend: 0, isActive: true })] },
      pendingTopUps: [],
      recentTopUps: [expect.objectContaining({ method: 'usdc', amount: 12, txHash: expect.any(String) })],
    });
  });
});
