/**
 * `client.pools` and `client.keys.createSubscription` over HTTP: against the sandbox
 * in the docs-v2 dialect (the pages' shapes), and against a hostile server for odd shapes (kept
 * and shown as a tree, never a failed call), a subscription id refused before sending, and a POST
 * that is never retried. Also the top-up method names by origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMethodNames, KeydeckClient, REAL_SERVICE_ORIGIN } from '../../src/api/client.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import { reservedHoursText } from '../../src/api/poolBlocks.js';
import { summarizeBillingStatus } from '../../src/api/reader.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { json, startHostileServer, type HostileServer } from './hostile-server.js';

const TOKEN = 'sess_Zq8XvT3kLm9Pw2Rn7Yb4';
let sb: TestSandbox;
const clients: KeydeckClient[] = [];
const clientOf = (baseUrl: string, extra: Partial<ConstructorParameters<typeof KeydeckClient>[0]> = {}) => {
  const c = new KeydeckClient({ baseUrl, token: TOKEN, ...extra });
  clients.push(c);
  return c;
};

beforeAll(async () => {
  sb = await startTestSandbox({ dialect: 'docs-v2' });
});
afterAll(async () => {
  for (const c of clients) c.close();
  await sb?.close();
});

async function failure(p: Promise<unknown>): Promise<KeydeckApiError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof KeydeckApiError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('against the sandbox (docs-v2)', () => {
  it('lists the pools and reads one pool’s blocks: seats, availability and monthly prices', async () => {
    const c = clientOf(sb.url, { token: sb.token });
    const { pools, unread } = await c.pools.list();
    expect(unread).toEqual([]);
    expect(pools[0]).toMatchObject({ slug: 'kimi26', modelName: 'Kimi K2.6', status: 'active', totalSlots: 10, minMonthlyUsd: 39, annualDiscount: 0.15, problems: [] });
    const answer = await c.pools.get('kimi26');
    expect('pool' in answer).toBe(true);
    if (!('pool' in answer)) return;
    expect(answer.pool.hourSlots).toHaveLength(240);
    // The demo pledge holds one seat of every block.
    expect(answer.pool.blocks).toEqual([
      { name: 'asia', seats: 10, availableSeats: 9, monthlyUsd: 39 },
      { name: 'europe', seats: 10, availableSeats: 9, monthlyUsd: 49 },
      { name: 'americas', seats: 10, availableSeats: 9, monthlyUsd: 45 },
    ]);
    expect((await failure(c.pools.get('no-such-pool'))).code).toBe('not_found');
  });

  it('mints the key of a pledge without one, shown once; a second attempt is refused by the service', async () => {
    const token = await sb.newUser();
    const pledge = await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['europe'] } });
    const c = clientOf(sb.url, { token });
    const before = summarizeBillingStatus(await c.billing.status());
    expect(before?.poolPledges).toEqual([expect.objectContaining({ id: pledge.body.id, pool: 'kimi26', hasKey: false, blocks: ['europe'] })]);
    const created = await c.keys.createSubscription({ name: ' edge ', subscriptionId: pledge.body.id });
    expect(created).toMatchObject({ name: 'edge', keyPlan: 'pool', subscriptionId: pledge.body.id, apiKey: expect.stringMatching(/^sk_/) });
    const listed = await c.keys.list();
    expect(JSON.stringify(listed)).not.toContain(created.apiKey);
    expect(listed.find((k) => k.id === created.id)).toMatchObject({ subscriptionId: pledge.body.id });
    const again = await failure(c.keys.createSubscription({ name: 'again', subscriptionId: pledge.body.id }));
    expect([again.code, again.status, again.field]).toEqual(['invalid_request', 409, 'subscriptionId']);
    expect(summarizeBillingStatus(await c.billing.status())?.poolPledges[0]?.hasKey).toBe(true);
  });
});

describe('against a hostile server', () => {
  let server: HostileServer;
  let answer: (path: string) => [number, unknown] = () => [200, {}];
  beforeAll(async () => {
    server = await startHostileServer((req, res) => {
      const [status, body] = answer(req.path);
      json(res, status, body);
    });
  });
  afterAll(async () => server?.close());

  it('keeps what it cannot read: entries and wrong fields shown, never a failed call; key values dropped', async () => {
    answer = () => [
      200,
      {
        success: true,
        data: [{ id: 'p1', slug: 'ok', modelId: 'M', status: 'brand-new', totalSlots: 'ten', minPricePerDay: '27.00', apiKey: 'sk_live_abcdefghijklmnopqrstuvwxyz' }, 42, { modelId: 'no id' }],
      },
    ];
    const c = clientOf(server.url);
    const list = await c.pools.list();
    expect(list.pools).toHaveLength(1);
    expect(list.pools[0]).toMatchObject({ id: 'p1', status: 'brand-new', minMonthlyUsd: 27, problems: ['totalSlots'] });
    expect(JSON.stringify(list)).not.toContain('sk_live');
    expect(list.unread.map((u) => [u.index, u.problem])).toEqual([
      [1, 'not an object'],
      [2, 'it has no id or slug'],
    ]);
    answer = () => [200, { pools: 'none today' }];
    expect((await c.pools.list()).unread).toEqual([{ problem: 'the answer is not a list of pools', value: { pools: 'none today' } }]);
    answer = () => [200, 'nothing'];
    expect(await c.pools.get('x')).toMatchObject({ unread: { problem: 'not an object', value: 'nothing' } });
    answer = () => [200, { id: 'p', hourSlots: [{ hour: 99 }, { hour: 9, slotIndex: 0, status: 'available', pricePerDay: 'x' }] }];
    const odd = await c.pools.get('p');
    expect(odd).toMatchObject({ pool: { problems: ['hourSlots'], blocks: [{ name: 'europe', seats: 1, availableSeats: 0 }] } });
  });

  it('refuses a bad subscription id before sending, and sends the POST once (outcome unknown on a 503)', async () => {
    const c = clientOf(server.url);
    const sent = server.requests.length;
    const bad = await failure(c.keys.createSubscription({ name: 'k', subscriptionId: 'a b/c' }));
    expect([bad.code, bad.field]).toEqual(['invalid_request', 'subscriptionId']);
    expect(server.requests.length).toBe(sent);
    answer = () => [503, { error: { code: 'server_error', message: 'down' } }];
    const down = await failure(c.keys.createSubscription({ name: 'k', subscriptionId: 'pledge_1' }));
    expect(down.outcomeUnknown).toBe(true);
    expect(server.requests.filter((r) => r.path === '/api/keys/subscription')).toHaveLength(1);
    expect(JSON.parse(server.requests.at(-1)!.body)).toEqual({ name: 'k', subscriptionId: 'pledge_1' });
  });
});

describe('method names by origin', () => {
  it('defaults to the real service’s documented names for its origin, the seed’s elsewhere; the profile’s win', () => {
    expect(defaultMethodNames(`${REAL_SERVICE_ORIGIN}/`)).toEqual({ card_checkout: 'stripe', card_direct: 'stripe_direct', usdc: 'usdc' });
    expect(clientOf(REAL_SERVICE_ORIGIN).billing.methodNames.card_checkout).toBe('stripe');
    expect(clientOf('http://127.0.0.1:9').billing.methodNames.card_checkout).toBe('card_checkout');
    expect(clientOf(REAL_SERVICE_ORIGIN, { methodNames: { card_checkout: 'checkout_v3' } }).billing.methodNames).toEqual({ card_checkout: 'checkout_v3', card_direct: 'stripe_direct', usdc: 'usdc' });
  });
});

describe('reserved hours', () => {
  it('says where a key stands in its blocks, and nothing when they are unknown', () => {
    const at = (iso: string) => Date.parse(iso);
    expect(reservedHoursText(['europe'], at('2026-11-25T13:00:00Z'))).toBe('in block europe, 3 h left');
    expect(reservedHoursText(['asia'], at('2026-11-25T19:00:00Z'))).toBe('outside its blocks: next asia in 5 h');
    expect(reservedHoursText(['europe', 'americas'], at('2026-11-25T10:00:00Z'))).toBe('in block europe, 14 h left');
    expect(reservedHoursText(['americas', 'asia'], at('2026-11-25T23:30:00Z'))).toBe('in block americas, 8 h left');
    expect(reservedHoursText(['asia', 'europe', 'americas'], at('2026-11-25T23:30:00Z'))).toBe('in its blocks around the clock');
    expect(reservedHoursText(['mars'], at('2026-11-25T10:00:00Z'))).toBeUndefined();
    expect(reservedHoursText(undefined, at('2026-11-25T10:00:00Z'))).toBeUndefined();
  });
});
