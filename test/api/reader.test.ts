/**
 * The tolerant reader's table (src/api/reader.ts), row by row, with the example bodies of the
 * real service's documentation pages (./docs-examples.ts): bare, envelope, money as a string,
 * money as a number, extra fields, key values in a list; then the client over HTTP, fed those
 * bodies by a local server, for the rows a user notices (the notice, the instruction's amount,
 * a refused method name).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KeydeckClient, type ClientNotice } from '../../src/api/client.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import { parseBody } from '../../src/api/failures.js';
import { centsText, formatUsd, groupThousands, parseUsdMicros } from '../../src/api/money.js';
import { readAnswer, summarizeBillingStatus } from '../../src/api/reader.js';
import { ConsumptionKeyListSchema, CreatedConsumptionKeySchema, CreditBalanceSchema, ManagementKeyListSchema, UsdcPaymentInstructionSchema, VerifiedTopUpSchema } from '../../src/api/schemas.js';
import { ADDRESS, newer, newerKeyList, newerStatus, older, olderKeyList, olderStatus } from './docs-examples.js';
import { startHostileServer, type HostileServer } from './hostile-server.js';

/** A body as the client receives it (JSON text parsed once, as on the wire). */
const wire = (value: unknown) => parseBody(JSON.stringify(value));
const FULL_SK = `sk_${'A1b2C3d4'.repeat(5)}`;

describe('reader table: the body of every endpoint, bare or enveloped', () => {
  it('reads the older bare key list and the newer enveloped one alike', () => {
    const bare = readAnswer({ schema: ConsumptionKeyListSchema }, wire(olderKeyList));
    const enveloped = readAnswer({ schema: ConsumptionKeyListSchema }, wire(newerKeyList));
    expect(bare.ok && bare.data.map((k) => k.name)).toEqual(['prod-key', 'mobile-app']);
    expect(enveloped.ok && enveloped.data.map((k) => k.name)).toEqual(['prod-key', 'client_42']);
  });

  it('reads the older bare credits and the seed/newer envelope alike', () => {
    const bare = readAnswer({ schema: CreditBalanceSchema }, wire(older.credits));
    const enveloped = readAnswer({ schema: CreditBalanceSchema }, wire(newer.credits));
    expect(bare.ok && bare.data).toMatchObject({ totalTopUp: 100, remaining: 74.5, creditKeyCount: 1, userId: null });
    expect(enveloped.ok && enveloped.data).toMatchObject({ totalTopUp: 100, remaining: 74.5, creditKeyCount: 2, userId: 'ci_user_xxx' });
  });

  it('names the field inside the envelope when something else is wrong', () => {
    const r = readAnswer({ schema: ConsumptionKeyListSchema }, wire({ success: true, data: [{ ...olderKeyList[0], isActive: 'yes' }] }));
    expect(r).toMatchObject({ ok: false, field: 'data[0].isActive' });
  });
});

describe('reader table: money as a number or a decimal string, exactly', () => {
  it.each([
    ['74.50', 74_500_000],
    [74.5, 74_500_000],
    ['100.00', 100_000_000],
    [0.1, 100_000],
    ['0.000001', 1],
    ['12.3456789', 12_345_678],
    ['-0.0000001', -1],
    [25, 25_000_000],
  ])('%j is %i µUSD', (value, micros) => {
    expect(parseUsdMicros(value)).toBe(micros);
  });

  it.each([['1e3'], [' 5'], ['5 USD'], ['+5'], [''], [true], [null], [Number.NaN], ['9'.repeat(30)]])('%j is not an amount', (value) => {
    expect(parseUsdMicros(value)).toBeUndefined();
  });

  it('shows a balance to the cent and never rounds it up', () => {
    expect(centsText(74.509)).toBe('74.50');
    expect(centsText(0.999999)).toBe('0.99');
    expect(centsText(0.29)).toBe('0.29');
    expect(centsText(-0.001)).toBe('-0.01');
  });

  it('writes dollars as Intl.NumberFormat en-US currency does, cut to the cent, without loading ICU', () => {
    const intl = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
    for (const usd of [0, 0.29, 7, 74.5, 999.99, 1000, 1234.56, 25_000, 1_234_567.89, -0.01, -1234.5]) expect(formatUsd(usd)).toBe(intl.format(usd));
    expect(formatUsd(0.999999)).toBe('$0.99');
    expect(formatUsd(-0.001)).toBe('-$0.01');
    for (const n of [0, 7, 999, 1000, 12_345, 1_000_000, -4200]) expect(groupThousands(n)).toBe(n.toLocaleString('en-US'));
  });

  it('reads the older verify answer (balance as a string) and the newer one (a number)', () => {
    const o = readAnswer({ schema: VerifiedTopUpSchema }, wire(older.verified));
    const n = readAnswer({ schema: VerifiedTopUpSchema }, wire(newer.verified));
    expect(o.ok && o.data).toEqual({ credited: 25, balance: 75 });
    expect(n.ok && n.data).toEqual({ credited: 25, balance: 75 });
  });

  it('ends in invalid_response naming a money field that is neither', () => {
    const r = readAnswer({ schema: CreditBalanceSchema }, wire({ ...older.credits, remaining: '74,50' }));
    expect(r).toMatchObject({ ok: false, field: 'remaining' });
  });

  it('needs creditKeyCount or creditKeyId, and names creditKeyCount when both are missing', () => {
    const { creditKeyId: _, ...without } = older.credits;
    expect(readAnswer({ schema: CreditBalanceSchema }, wire(without))).toMatchObject({ ok: false, field: 'creditKeyCount' });
    const none = readAnswer({ schema: CreditBalanceSchema }, wire({ ...without, creditKeyId: null }));
    expect(none.ok && none.data.creditKeyCount).toBe(0);
  });

  it('reads a USDC instruction amount as a string (kept) or a number (turned into its decimal)', () => {
    const o = readAnswer({ schema: UsdcPaymentInstructionSchema }, wire({ ...older.usdc, address: ADDRESS }));
    const n = readAnswer({ schema: UsdcPaymentInstructionSchema }, wire({ ...newer.usdc, data: { ...newer.usdc.data, address: ADDRESS } }));
    expect(o.ok && o.data.amount).toBe('25');
    expect(n.ok && n.data.amount).toBe('50');
    expect(readAnswer({ schema: UsdcPaymentInstructionSchema }, wire({ address: ADDRESS, chain: 'base', amount: '0' }))).toMatchObject({ ok: false, field: 'amount' });
  });
});

describe('reader table: extra fields', () => {
  it('keeps subscriptionId, lastUsedAt and any keyPlan; keeps creditKeyId beside the count it stands in for', () => {
    const keys = readAnswer({ schema: ConsumptionKeyListSchema }, wire(newerKeyList));
    expect(keys.ok && keys.data[0]).toMatchObject({ keyPlan: 'pool', subscriptionId: 'sub-uuid', lastUsedAt: '2026-01-20T08:00:00.000Z' });
    const credits = readAnswer({ schema: CreditBalanceSchema }, wire(older.credits));
    expect(credits.ok && credits.data).toMatchObject({ creditKeyId: 'clx3ghi...', creditKeyCount: 1 });
  });
});

describe('reader table: key values', () => {
  it('drops apiKey from every list entry and counts them', () => {
    const r = readAnswer({ schema: ConsumptionKeyListSchema }, wire(newerKeyList));
    expect(r.ok && r.hiddenKeyValues).toBe(2);
    expect(JSON.stringify(r.ok && r.data)).not.toContain('apiKey');
  });

  it('drops a full key value under any field of any answer, but not a name or a keyPrefix', () => {
    const list = [{ id: 'm1', name: `sk_${'x'.repeat(20)}`, keyPrefix: 'mk_abcdefgh', isActive: true, createdAt: '2026-01-01T00:00:00Z', note: FULL_SK }];
    const r = readAnswer({ schema: ManagementKeyListSchema }, wire(list));
    expect(r.ok && r.data[0]).toMatchObject({ name: `sk_${'x'.repeat(20)}`, keyPrefix: 'mk_abcdefgh' });
    expect(r.ok && r.data[0]).not.toHaveProperty('note');
    expect(r.ok && r.hiddenKeyValues).toBe(1);
    const status = readAnswer({ schema: null }, wire({ success: true, data: { key: { id: 'k', apiKey: FULL_SK } } }));
    expect(status).toEqual({ ok: true, data: { key: { id: 'k' } }, hiddenKeyValues: 1 });
  });

  it('finds a key value anywhere in a large answer: the last entry, in an array, deep, in a field named like one', () => {
    const entry = (i: number) => ({ id: `k${i}`, name: `key-${i}`, usage: { '24h': { spend: 1, requests: 2 }, total: { spend: 3 } }, tags: ['a'], meta: { deep: { deeper: {} } } });
    const many = () => Array.from({ length: 10_000 }, (_, i) => entry(i));
    const places: Array<[string, (e: ReturnType<typeof entry>) => void]> = [
      ['a string in an array', (e) => e.tags.push(FULL_SK)],
      ['a string three objects deep', (e) => Object.assign(e.meta.deep.deeper, { note: FULL_SK })],
      ['a field named like a key value, any value', (e) => Object.assign(e.usage, { API_KEY: 42 })],
      ['a period figure', (e) => Object.assign(e.usage, { '7d': FULL_SK })],
    ];
    for (const [where, put] of places) {
      const list = many();
      put(list.at(-1)!);
      const r = readAnswer({ schema: null }, wire({ success: true, data: list }));
      expect(r.ok && r.hiddenKeyValues, where).toBe(1);
      expect(JSON.stringify(r.ok && r.data), where).not.toMatch(/sk_A1b2|API_KEY/);
    }
    const clean = many();
    expect(readAnswer({ schema: null }, wire(clean))).toMatchObject({ ok: true, data: clean, hiddenKeyValues: 0 });
    // Deeper than the walk goes: dropped whole and counted.
    let nested: Record<string, unknown> = {};
    const deep = { id: 'k', nested };
    for (let i = 0; i < 40; i++) nested = (nested.next = {}) as Record<string, unknown>;
    const r = readAnswer({ schema: null }, wire([deep]));
    expect(r.ok && r.hiddenKeyValues).toBe(1);
  });

  it('hides a full key value inside a text answer too', () => {
    const r = readAnswer({ schema: null }, parseBody(`updated; your key is ${FULL_SK}`));
    expect(r).toEqual({ ok: true, data: 'updated; your key is [key value hidden]', hiddenKeyValues: 1 });
  });

  it("keeps the creating answer's own apiKey (shown once), bare or enveloped", () => {
    const created = { id: 'k9', name: 'ci', keyType: 'credit', apiKey: FULL_SK, isActive: true, createdAt: '2026-01-01T00:00:00Z' };
    for (const body of [created, { success: true, data: created }]) {
      const r = readAnswer({ schema: CreatedConsumptionKeySchema, creates: true }, wire(body));
      expect(r.ok && r.data.apiKey).toBe(FULL_SK);
      expect(r.ok && r.hiddenKeyValues).toBe(0);
    }
  });
});

describe('reader table: billing status', () => {
  it('summarises the older page: subscriptions with plan, status, period end, cancel flag, keys; balance as a string', () => {
    expect(summarizeBillingStatus(olderStatus)).toEqual({
      subscriptions: [{ id: 'uuid', plan: 'pro', status: 'active', currentPeriodEnd: '2026-03-05T10:00:00.000Z', cancelAtPeriodEnd: false, keyCount: 2, keys: [{ id: 'key_uuid', name: 'prod-api' }] }],
      poolPledges: [],
      creditBalance: 25,
    });
  });

  it('summarises the newer page: pool pledges and a number balance', () => {
    expect(summarizeBillingStatus(newerStatus.data)).toEqual({
      subscriptions: [],
      poolPledges: [{ id: 'pledge_uuid', pool: 'kimi26', poolId: 'pool_uuid', status: 'active', currentPeriodEnd: '2026-05-23T15:55:16.220Z', cancelAtPeriodEnd: true, hasKey: true }],
      creditBalance: 25,
    });
  });

  it('does not recognise other shapes (they stay a tree)', () => {
    for (const other of [{ plan: 'x' }, { subscriptions: 'none' }, { subscriptions: [1] }, { subscriptions: [], creditBalance: 'lots' }, [], 'text']) {
      expect(summarizeBillingStatus(other)).toBeUndefined();
    }
  });
});

describe('the client with the pages’ answers over HTTP', () => {
  let server: HostileServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('reads every older/newer example and says once that key values were hidden', async () => {
    let generation: typeof older | typeof newer = older;
    server = await startHostileServer((req, res) => {
      const send = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      const g = generation;
      if (req.path === '/api/keys') send(g === older ? olderKeyList : newerKeyList);
      else if (req.path === '/api/billing/credits') send(g.credits);
      else if (req.path === '/api/billing/verify-topup') send(g.verified);
      else send(g === older ? { ...older.usdc, address: ADDRESS } : { success: true, data: { ...newer.usdc.data, address: ADDRESS } });
    });
    const notices: ClientNotice[] = [];
    const c = new KeydeckClient({ baseUrl: server.url, token: 'session-token', onNotice: (n) => notices.push(n) });
    for (const g of [older, newer]) {
      generation = g;
      expect((await c.keys.list()).length).toBe(2);
      expect((await c.billing.credits()).remaining).toBe(74.5);
      expect(await c.billing.verifyTopUp({ txHash: `0x${'1'.repeat(64)}`, amount: 25 })).toEqual({ credited: 25, balance: 75 });
    }
    await c.keys.list();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ kind: 'key_values_hidden', operation: 'listKeys', count: 2 });
    expect(notices[0]!.message).toMatch(/hid them/);

    generation = older;
    const asked50 = await c.billing.topUp({ amount: 50, method: 'usdc' });
    expect(asked50).toMatchObject({ method: 'usdc', instructedAmount: 25, amountDiffers: true });
    generation = newer;
    expect(await c.billing.topUp({ amount: 50, method: 'usdc' })).toMatchObject({ method: 'usdc', instructedAmount: 50, amountDiffers: false });
    c.close();
  });

  it('sends the profile’s card method names, any other name as given, and names the setting in a refusal', async () => {
    server = await startHostileServer((req, res) => {
      const { method } = JSON.parse(req.body) as { method: string };
      if (method === 'stripe') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(older.checkout));
      else res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'invalid_request', message: 'unknown method', field: 'method' } }));
    });
    const named = new KeydeckClient({ baseUrl: server.url, token: 'session-token', methodNames: { card_checkout: 'stripe' } });
    expect(await named.billing.topUp({ amount: 50, method: 'card_checkout' })).toMatchObject({ method: 'card_checkout', wireMethod: 'stripe' });
    const seed = new KeydeckClient({ baseUrl: server.url, token: 'session-token' });
    expect(await seed.billing.topUp({ amount: 50, method: 'stripe' })).toMatchObject({ method: 'card_checkout', wireMethod: 'stripe' });
    const refused = await seed.billing.topUp({ amount: 50, method: 'card_checkout' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KeydeckApiError);
    expect((refused as KeydeckApiError).message).toMatch(/"card_checkout".*topUpMethods\.card_checkout/);
    expect(server.requests.map((r) => (JSON.parse(r.body) as { method: string }).method)).toEqual(['stripe', 'stripe', 'card_checkout']);
    named.close();
    seed.close();
  });
});
