/**
 * The sandbox's dialects (src/sandbox/dialect.ts) answer in the shapes of the real service's
 * documentation pages (test/api/docs-examples.ts), with the same behaviour behind them: the
 * older pages' bare bodies, money strings, `creditKeyId` and a USDC instruction for half the
 * requested amount; the newer pages' envelope on every `/api/*` answer and the extra list fields
 * (a key value among them); both pages' method names accepted in every dialect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { older, olderKeyList, newerKeyList } from '../api/docs-examples.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';

const sandboxes: TestSandbox[] = [];
let v1: TestSandbox;
let v2: TestSandbox;
beforeAll(async () => {
  v1 = await startTestSandbox({ dialect: 'docs-v1' });
  v2 = await startTestSandbox({ dialect: 'docs-v2' });
  sandboxes.push(v1, v2);
});
afterAll(async () => {
  for (const s of sandboxes) await s.close();
});

/** The keys of an object, sorted (to compare shapes with the pages' examples). */
const shape = (o: object) => Object.keys(o).sort();

describe('docs-v1 (the older pages)', () => {
  it('answers credits bare, money as decimal strings, creditKeyId instead of creditKeyCount and no userId', async () => {
    const credits = await v1.call('GET', '/api/billing/credits', { token: v1.token });
    expect(credits.status).toBe(200);
    expect(shape(credits.body)).toEqual(shape(older.credits));
    // The demo account: $125 topped up, $40.80 spent, its first active credit key's id.
    expect(credits.body).toMatchObject({ totalTopUp: '125.00', remaining: '84.20', hasCreditKey: true, creditKeyId: expect.any(String) });
  });

  it('answers the key list bare, as the older keys page', async () => {
    const keys = await v1.call('GET', '/api/keys', { token: v1.token });
    expect(Array.isArray(keys.body)).toBe(true);
    expect(shape(keys.body[0])).toEqual(shape(olderKeyList[0]!));
  });

  it('instructs half the requested USDC amount as a number, and credits and verifies that amount', async () => {
    const token = await v1.newUser();
    const instruction = await v1.call('POST', '/api/billing/topup', { token, body: { amount: 50, method: 'usdc' } });
    expect(instruction.body).toEqual({ address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), chain: 'base', amount: 25 });
    const transfer = await v1.call('POST', '/sandbox/chain/transfers', { body: { to: instruction.body.address, amount: '25' } });
    const verified = await v1.call('POST', '/api/billing/verify-topup', { token, body: { txHash: transfer.body.txHash, amount: 25 } });
    expect(verified.body).toEqual({ credited: 25, balance: '25.00' });
  });

  it('accepts stripe and card_checkout alike, and names its own methods in a refusal (in the error envelope)', async () => {
    const token = await v1.newUser();
    for (const method of ['stripe', 'card_checkout']) {
      const r = await v1.call('POST', '/api/billing/topup', { token, body: { amount: 10, method } });
      expect(shape(r.body)).toEqual(shape(older.checkout));
    }
    const refused = await v1.call('POST', '/api/billing/topup', { token, body: { amount: 10, method: 'paypal' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'invalid_request', field: 'method' } });
    expect(refused.body.error.message).toContain('use stripe, stripe_direct or usdc');
  });
});

describe('docs-v2 (the newer pages)', () => {
  it('envelopes the key list and gives each entry the newer fields, a key value among them', async () => {
    const keys = await v2.call('GET', '/api/keys', { token: v2.token });
    expect(keys.body.success).toBe(true);
    const [entry] = keys.body.data;
    expect(shape(entry)).toEqual(shape(newerKeyList.data[0]!));
    expect(entry).toMatchObject({ keyPlan: 'standard', apiKey: expect.stringMatching(/^sk_/), lastUsedAt: null, subscriptionId: expect.any(String) });
  });

  it('envelopes the management keys and the delete answers too', async () => {
    const list = await v2.call('GET', '/api/keys/management', { token: v2.token });
    expect(list.body).toMatchObject({ success: true, data: [expect.objectContaining({ name: 'ci-deploy' }), expect.objectContaining({ name: 'old-laptop' })] });
    const token = await v2.fundedUser(10);
    const created = await v2.call('POST', '/api/keys/credit', { token, body: { name: 'k' } });
    expect(created.body).toMatchObject({ success: true, data: { name: 'k', apiKey: expect.stringMatching(/^sk_/) } });
    const gone = await v2.call('DELETE', `/api/keys/${created.body.data.id}`, { token });
    expect(gone.body).toEqual({ success: true, data: { deleted: true } });
  });

  it('sets lastUsedAt once a key has served a request', async () => {
    const token = await v2.fundedUser(10);
    const created = await v2.call('POST', '/api/keys/credit', { token, body: { name: 'busy' } });
    expect((await v2.infer(created.body.data.apiKey)).status).toBe(200);
    const keys = await v2.call('GET', '/api/keys', { token });
    expect(keys.body.data[0].lastUsedAt).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT/));
  });
});
