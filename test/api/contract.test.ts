/**
 * Contract tests of the API client over real HTTP against the sandbox on loopback, in each of
 * its dialects (seed, and the two generations of the real service's documentation pages:
 * src/sandbox/dialect.ts): every method of the service's endpoints, and every error code the sandbox can produce.
 * Codes the client's own surface cannot provoke (the client validates input before sending;
 * rate limits and budgets apply only to inference) are checked by feeding the sandbox's real
 * error responses to the client's mapping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import { errorFromResponse, parseBody } from '../../src/api/failures.js';
import { parseRetryAfterMs } from '../../src/api/retry.js';
import { summarizeBillingStatus } from '../../src/api/reader.js';
import { DIALECTS, startSandbox, type Dialect } from '../../src/sandbox/index.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
let client: KeydeckClient;
let clients: KeydeckClient[] = [];
/** What the clients of the current dialect's sandbox said through `onNotice`. */
let notices: string[] = [];

/** A client of the sandbox with `token` (closed after the dialect's suite). */
function clientWith(token: string): KeydeckClient {
  const c = new KeydeckClient({ baseUrl: sandbox.url, token, timeoutMs: 10_000, onNotice: (n) => notices.push(n.kind) });
  clients.push(c);
  return c;
}

/** POSTs JSON to a sandbox simulation endpoint and returns the parsed answer. */
async function simulate<T>(path: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  expect(res.ok, `${path} answered ${res.status}`).toBe(true);
  return (await res.json()) as T;
}

/** A fresh sandbox user with no credit, and a client of it. */
async function newUser(): Promise<KeydeckClient> {
  const { token } = await simulate<{ token: string }>('/sandbox/users', {});
  return clientWith(token);
}

/** Awaits a rejection and returns it as a KeydeckApiError (fails the test otherwise). */
async function failure(promise: Promise<unknown>): Promise<KeydeckApiError> {
  const error: unknown = await promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KeydeckApiError);
  return error as KeydeckApiError;
}

/**
 * Asks for a USDC top-up of `amount` USD and pays what the instruction says (the docs-v1
 * dialect's instruction names another amount, as the older page does); returns the transfer's
 * hash and the USD paid.
 */
async function usdcTransfer(c: KeydeckClient, amount: number): Promise<{ txHash: string; paid: number }> {
  const result = await c.billing.topUp({ amount, method: 'usdc' });
  if (result.method !== 'usdc') throw new Error('expected a usdc instruction');
  const { txHash } = await simulate<{ txHash: string }>('/sandbox/chain/transfers', { to: result.data.address, amount: result.data.amount });
  return { txHash, paid: result.instructedAmount };
}

for (const dialect of DIALECTS) describe(`dialect ${dialect}`, () => contract(dialect));

/** The contract, against a sandbox answering in `dialect`. */
function contract(dialect: Dialect): void {
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, dialect });
    clients = [];
    notices = [];
    client = clientWith(sandbox.token);
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await sandbox?.close();
  });

  describe('keys', () => {
    it('lists the demo subscription key without any key value', async () => {
      const keys = await client.keys.list();
      expect(keys.length).toBeGreaterThanOrEqual(1);
      const sub = keys.find((k) => k.keyType === 'subscription');
      // The demo's key of the seed's model (one per payment); pool keys (`keyPlan: "pool"`) are minted for a pledge.
      expect(sub).toMatchObject({ keyPlan: 'standard', isActive: true, subscriptionStatus: 'active' });
      expect(typeof sub?.subscriptionExpiresAt).toBe('string');
      expect(JSON.stringify(keys)).not.toMatch(/sk_[A-Za-z0-9]{12,}/);
      expect(keys.every((k) => !('apiKey' in k))).toBe(true);
      // docs-v2 sends a key value on every entry: dropped, and said once.
      expect(notices).toEqual(dialect === 'docs-v2' ? ['key_values_hidden'] : []);
      if (dialect === 'docs-v2') expect(sub).toMatchObject({ lastUsedAt: null, subscriptionId: expect.any(String) });
    });

    it('creates, renames, pauses, resumes and deletes a credit key', async () => {
      const created = await client.keys.createCredit({ name: '  ci deploy ' });
      expect(created).toMatchObject({ name: 'ci deploy', keyType: 'credit', isActive: true });
      expect(created.apiKey).toMatch(/^sk_/);

      let listed = (await client.keys.list()).find((k) => k.id === created.id);
      expect(listed).toMatchObject({ name: 'ci deploy', keyType: 'credit', isActive: true });
      expect(listed).not.toHaveProperty('apiKey');
      expect(listed).not.toHaveProperty('subscriptionExpiresAt');

      await client.keys.update(created.id, { name: 'renamed', isActive: false });
      listed = (await client.keys.list()).find((k) => k.id === created.id);
      expect(listed).toMatchObject({ name: 'renamed', isActive: false });
      await client.keys.update(created.id, { isActive: true });
      expect((await client.keys.list()).find((k) => k.id === created.id)?.isActive).toBe(true);

      expect(await client.keys.delete(created.id)).toEqual({ deleted: true });
      expect((await client.keys.list()).some((k) => k.id === created.id)).toBe(false);
    });

    it('maps a missing key to not_found for update and delete', async () => {
      expect((await failure(client.keys.delete('no-such-key'))).code).toBe('not_found');
      const e = await failure(client.keys.update('no-such-key', { name: 'x' }));
      expect(e.code).toBe('not_found');
      expect(e.status).toBe(404);
    });

    it('refuses a credit key with a balance of 0 as insufficient_balance', async () => {
      const fresh = await newUser();
      const e = await failure(fresh.keys.createCredit({ name: 'broke' }));
      expect(e.code).toBe('insufficient_balance');
      expect(e.status).toBe(402);
      expect(await fresh.keys.list()).toEqual([]);
    });
  });

  describe('management keys', () => {
    it('creates a management key that authorizes /api/*, lists it by prefix, deletes it', async () => {
      const created = await client.managementKeys.create({ name: 'laptop' });
      expect(created.apiKey).toMatch(/^mk_[A-Za-z0-9_-]{8,}/);
      expect(created.keyPrefix).toBe(created.apiKey.slice(0, 11));

      const listed = (await client.managementKeys.list()).find((k) => k.id === created.id);
      expect(listed).toMatchObject({ name: 'laptop', keyPrefix: created.keyPrefix, isActive: true });
      expect(JSON.stringify(await client.managementKeys.list())).not.toContain(created.apiKey);

      const viaKey = clientWith(created.apiKey);
      expect((await viaKey.billing.credits()).totalTopUp).toBeGreaterThanOrEqual(25);
      expect(Array.isArray(await viaKey.keys.list())).toBe(true);

      await client.managementKeys.delete(created.id);
      expect((await client.managementKeys.list()).some((k) => k.id === created.id)).toBe(false);
      const revoked = await failure(viaKey.keys.list());
      expect(revoked.code).toBe('unauthorized');
      expect(JSON.stringify(revoked) + revoked.message + String(revoked.stack)).not.toContain(created.apiKey);
      expect((await failure(client.managementKeys.delete(created.id))).code).toBe('not_found');
    });

    it('maps an unknown credential to unauthorized on every endpoint family', async () => {
      const stranger = clientWith('sess_not_a_real_token_123');
      for (const call of [() => stranger.keys.list(), () => stranger.managementKeys.list(), () => stranger.billing.credits(), () => stranger.billing.status()]) {
        const e = await failure(call());
        expect(e.code).toBe('unauthorized');
        expect(e.status).toBe(401);
        expect(e.message).not.toContain('sess_not_a_real_token_123');
      }
    });

    it('maps a consumption key used on /api/* to forbidden', async () => {
      const { apiKey } = await client.keys.createCredit({ name: 'inference only' });
      const e = await failure(clientWith(apiKey).keys.list());
      expect(e.code).toBe('forbidden');
      expect(e.status).toBe(403);
      expect(e.message + JSON.stringify(e)).not.toContain(apiKey);
    });
  });

  describe('billing', () => {
    it('reads the credit balance of the demo account', async () => {
      const credits = await (await newUser()).billing.credits();
      expect(credits).toMatchObject({ totalTopUp: 0, remaining: 0, hasCreditKey: false, creditKeyCount: 0, userId: null });
      const demo = await client.billing.credits();
      expect(demo.totalTopUp).toBeGreaterThanOrEqual(25);
      // The older pages show no userId (read as null) and creditKeyId for the count.
      expect(demo.userId === null).toBe(dialect === 'docs-v1');
    });

    it('reads the billing status in the documented shape: pool pledges, subscriptions, credit balance', async () => {
      const status = await client.billing.status();
      expect(JSON.stringify(status)).not.toContain(sandbox.token);
      const summary = summarizeBillingStatus(status);
      expect(summary?.creditBalance).toBe((await client.billing.credits()).remaining);
      // The demo's two time-block subscriptions: pool pledges on the newer page, subscriptions on the older.
      const pledged = dialect === 'docs-v1' ? summary?.subscriptions : summary?.poolPledges;
      expect(pledged?.slice(0, 2)).toEqual([expect.objectContaining({ status: 'active', cancelAtPeriodEnd: true }), expect.objectContaining({ status: 'active', cancelAtPeriodEnd: true })]);
      // The demo also holds a pool pledge without its key (in every dialect since the pools came).
      if (dialect !== 'docs-v1') expect(pledged?.slice(2)).toEqual([expect.objectContaining({ pool: 'kimi26', hasKey: false, blocks: ['asia', 'europe', 'americas'] })]);
      else expect(pledged).toHaveLength(3);
    });

    it("accepts the pages' method names and the seed's, and sends the profile's names", async () => {
      const c = await newUser();
      expect(await c.billing.topUp({ amount: 10, method: 'stripe' })).toMatchObject({ method: 'card_checkout', wireMethod: 'stripe' });
      const named = new KeydeckClient({ baseUrl: sandbox.url, token: sandbox.token, methodNames: { card_checkout: 'stripe', card_direct: 'stripe_direct' } });
      clients.push(named);
      expect(await named.billing.topUp({ amount: 10, method: 'card_checkout' })).toMatchObject({ method: 'card_checkout', wireMethod: 'stripe' });
      const refused = await failure(c.billing.topUp({ amount: 10, method: 'paypal' }));
      expect([refused.code, refused.field]).toEqual(['invalid_request', 'method']);
      expect(refused.message).toContain('topUpMethods');
    });

    it('tops up by USDC: instruction, on-chain transfer, verification, then the balance grows', async () => {
      const c = await newUser();
      const result = await c.billing.topUp({ amount: 25, method: 'usdc' });
      expect(result.method).toBe('usdc');
      if (result.method !== 'usdc') return;
      // The older page's instruction names another amount than the one requested (25 → 12.50).
      const paid = dialect === 'docs-v1' ? 12.5 : 25;
      expect(result).toMatchObject({ instructedAmount: paid, amountDiffers: dialect === 'docs-v1' });
      expect(result.data).toMatchObject({ chain: 'base', amount: String(paid) });
      expect(result.data.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const { txHash } = await simulate<{ txHash: string }>('/sandbox/chain/transfers', { to: result.data.address, amount: result.data.amount });
      expect(await c.billing.verifyTopUp({ txHash, amount: paid })).toMatchObject({ credited: paid, balance: paid });
      expect(await c.billing.credits()).toMatchObject({ totalTopUp: paid, remaining: paid });
      // Credit keys can now be created.
      expect((await c.keys.createCredit({ name: 'now funded' })).keyType).toBe('credit');
    });

    it('maps a reused transaction to tx_already_used and a wrong amount to amount_mismatch', async () => {
      const c = await newUser();
      const { txHash, paid } = await usdcTransfer(c, 20);
      await c.billing.verifyTopUp({ txHash, amount: paid });
      const reused = await failure(c.billing.verifyTopUp({ txHash, amount: paid }));
      expect(reused.code).toBe('tx_already_used');
      expect(reused.status).toBe(409);

      const other = await usdcTransfer(c, 30);
      const mismatch = await failure(c.billing.verifyTopUp({ txHash: other.txHash, amount: other.paid + 1 }));
      expect(mismatch.code).toBe('amount_mismatch');
      expect(mismatch.status).toBe(422);
      expect((await c.billing.credits()).totalTopUp).toBe(paid);
    });

    it('maps an unknown transaction hash to not_found', async () => {
      const e = await failure(client.billing.verifyTopUp({ txHash: `0x${'0'.repeat(64)}`, amount: 10 }));
      expect(e.code).toBe('not_found');
    });

    it('tops up by card checkout: the hosted page credits the account once paid', async () => {
      const c = await newUser();
      const result = await c.billing.topUp({ amount: 12.5, method: 'card_checkout' });
      expect(result.method).toBe('card_checkout');
      if (result.method !== 'card_checkout') return;
      expect(result.data.sessionId).not.toBe('');
      const page = new URL(result.data.sessionUrl);
      expect(page.pathname).toContain(result.data.sessionId);
      expect((await c.billing.credits()).totalTopUp).toBe(0);
      const paid = await fetch(result.data.sessionUrl, { method: 'POST' });
      expect(paid.status).toBeLessThan(400);
      expect(await c.billing.credits()).toMatchObject({ totalTopUp: 12.5, remaining: 12.5 });
    });

    it('accepts a card_direct top-up whose data the spec does not show', async () => {
      const result = await (await newUser()).billing.topUp({ amount: 10, method: 'card_direct' });
      expect(result.method).toBe('card_direct');
      expect(result.data).toEqual(expect.any(Object));
    });

    it('shows inference spend of a credit key in the shared balance (the budget model)', async () => {
      const c = await newUser();
      const { txHash, paid } = await usdcTransfer(c, 20);
      await c.billing.verifyTopUp({ txHash, amount: paid });
      const { apiKey } = await c.keys.createCredit({ name: 'spender' });
      const res = await fetch(`${sandbox.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content: 'hi' }], sandbox_cost_usd: 2.5 }),
      });
      expect(res.status).toBe(200);
      expect(await c.billing.credits()).toMatchObject({ totalTopUp: paid, remaining: paid - 2.5 });
    });
  });

  if (dialect === 'seed')
    describe("the sandbox's other error responses map to the same codes", () => {
      /** Sends a raw request and maps its real response with the client's own mapping. */
      async function mapped(path: string, init: RequestInit): Promise<KeydeckApiError> {
        const res = await fetch(`${sandbox.url}${path}`, init);
        expect(res.ok).toBe(false);
        const body = parseBody(await res.text());
        const ctx = { op: { name: 'raw', what: 'call the sandbox', changesState: true }, token: sandbox.token, baseUrl: sandbox.url, timeoutMs: 10_000 };
        return errorFromResponse(ctx, res.status, body, parseRetryAfterMs(res.headers.get('retry-after') ?? undefined));
      }

      it('invalid_request (which the client refuses before sending) names the field', async () => {
        const e = await mapped('/api/billing/topup', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${sandbox.token}` },
          body: JSON.stringify({ amount: 5, method: 'usdc' }),
        });
        expect([e.code, e.status, e.field]).toEqual(['invalid_request', 400, 'amount']);
      });

      it('budget_exceeded and rate_limited (inference only) carry their codes and Retry-After', async () => {
        const c = await newUser();
        const funded = await usdcTransfer(c, 10);
        await c.billing.verifyTopUp({ txHash: funded.txHash, amount: funded.paid });
        const { apiKey } = await c.keys.createCredit({ name: 'burner' });
        const infer = (cost: number): RequestInit => ({
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
          body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content: 'hi' }], sandbox_cost_usd: cost }),
        });
        expect((await fetch(`${sandbox.url}/v1/chat/completions`, infer(10))).status).toBe(200);
        const spent = await mapped('/v1/chat/completions', infer(0.01));
        expect([spent.code, spent.status]).toEqual(['budget_exceeded', 402]);

        // A standard subscription key allows 60 requests per minute.
        const { apiKey: subKey } = await simulate<{ apiKey: string }>('/sandbox/subscriptions', { plan: 'standard', blocks: ['asia'] }, sandbox.token);
        const tiny: RequestInit = {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${subKey}` },
          body: JSON.stringify({ model: 'any', messages: [{ role: 'user', content: 'x' }], max_tokens: 1 }),
        };
        let limited: KeydeckApiError | undefined;
        for (let i = 0; i < 70 && !limited; i++) {
          const res = await fetch(`${sandbox.url}/v1/chat/completions`, tiny);
          if (res.status === 429) limited = await mapped('/v1/chat/completions', tiny);
          else await res.arrayBuffer();
        }
        expect(limited?.code).toBe('rate_limited');
        expect(limited?.retryAfterMs).toBeGreaterThan(0);
      });
    });
}
