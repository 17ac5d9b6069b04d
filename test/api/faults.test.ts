/**
 * Fault tests of the API client against hostile local node:http servers: retries, deadlines,
 * unknown outcomes, broken bodies, error mapping by status and body, and secret redaction.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { inspect } from 'node:util';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { describeApiError } from '../../src/api/describe.js';
import { isAbortError, KeydeckApiError } from '../../src/api/errors.js';
import type { TransportName } from '../../src/api/http.js';
import { consumptionKey, creditsEnvelope, json, raw, refusedUrl, reset, type HostileServer, type Script, useHostileServers } from './hostile-server.js';

const TOKEN = 'sess_Zq8XvT3kLm9Pw2Rn7Yb4';
const TX = `0x${'ab'.repeat(32)}`;

// The tests run concurrently (they mostly wait on deadlines and Retry-After): each keeps its own
// server and client, closed when the file is done.
const startServer = useHostileServers();
const clients: KeydeckClient[] = [];
afterAll(() => {
  for (const c of clients) c.close();
});

/** The client's options the tests vary. */
type ClientOptions = { timeoutMs?: number; retries?: number };

/**
 * Both transports of the client (src/api/http.ts, got; src/api/nodeHttp.ts, Node's own): each
 * suite that sends runs once over each, with the same assertions.
 */
const TRANSPORTS = ['got', 'node:http'] as const satisfies readonly TransportName[];

/** `clientOf` (a client of `options` at `baseUrl`, closed when the file is done) and `serve` over `transport`. */
function over(transport: TransportName) {
  const clientOf = (baseUrl: string, options: ClientOptions = {}): KeydeckClient => {
    const client = new KeydeckClient({ baseUrl, token: TOKEN, transport, ...options });
    clients.push(client);
    return client;
  };
  const serve = async (script: Script, options: ClientOptions = {}): Promise<{ s: HostileServer; c: KeydeckClient }> => {
    const server = await startServer(script);
    return { s: server, c: clientOf(server.url, options) };
  };
  return { clientOf, serve };
}
/** Over got, for the suites that send nothing. */
const { serve } = over('got');

/** Awaits a rejection and returns it as a KeydeckApiError (fails the test otherwise). */
/**
 * Starts measuring how long this thread's event loop was held up (ms, the time its timers fired
 * late, summed): on a loaded machine the client's own deadline and backoff timers fire that much
 * late, so an upper bound on a call's wall time allows for it. The bound is about the client's
 * deadline, not the machine's load. `stop()` gives the figure so far.
 */
function loopLag(): { stop(): number } {
  const resolution = 10;
  const h = monitorEventLoopDelay({ resolution });
  h.enable();
  return {
    stop() {
      h.disable();
      return h.count === 0 ? 0 : Math.max(0, h.count * (h.mean / 1e6 - resolution));
    },
  };
}

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

/** Every text an error could leak through. */
function allTextOf(error: unknown): string {
  return `${String((error as Error).message)}\n${String((error as Error).stack)}\n${JSON.stringify(error)}\n${inspect(error, { depth: 5 })}\n${describeApiError(error)}`;
}

describe.concurrent.each(TRANSPORTS)('retries of GET (over %s)', (transport) => {
  const { clientOf, serve } = over(transport);
  it('retries 5xx and succeeds, counting the attempts', async () => {
    const { s, c } = await serve((_req, res, n) => (n < 2 ? json(res, n === 0 ? 500 : 503, { oops: true }) : json(res, 200, [consumptionKey('k1')])));
    const keys = await c.keys.list();
    expect(keys.map((k) => k.id)).toEqual(['k1']);
    expect(s.requests).toHaveLength(3);
    expect(s.requests.every((r) => r.method === 'GET' && r.path === '/api/keys')).toBe(true);
  });

  it('gives up after `retries` and reports server_error', async () => {
    const { s, c } = await serve((_req, res) => raw(res, 502, '<html>Bad gateway</html>'), { retries: 1 });
    const e = await failure(c.billing.credits());
    expect(e.code).toBe('server_error');
    expect(e.status).toBe(502);
    expect(s.requests).toHaveLength(2);
  });

  it('retries a reset socket and succeeds', async () => {
    const { s, c } = await serve((_req, res, n) => (n === 0 ? reset(res) : json(res, 200, creditsEnvelope({ remaining: 12.5 }))));
    expect((await c.billing.credits()).remaining).toBe(12.5);
    expect(s.requests).toHaveLength(2);
  });

  it('waits a short Retry-After (seconds) and then succeeds', async () => {
    const { s, c } = await serve((_req, res, n) => (n === 0 ? json(res, 429, { error: { code: 'rate_limited' } }, { 'retry-after': '1' }) : json(res, 200, [])), {
      timeoutMs: 8_000,
    });
    const started = Date.now();
    expect(await c.managementKeys.list()).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(s.requests).toHaveLength(2);
  });

  it('waits a short Retry-After given as an HTTP date', async () => {
    const { s, c } = await serve(
      (_req, res, n) => (n === 0 ? json(res, 503, {}, { 'retry-after': new Date(Date.now() + 2_000).toUTCString() }) : json(res, 200, { success: true, data: { plan: 'x' } })),
      { timeoutMs: 8_000 },
    );
    const started = Date.now();
    expect(await c.billing.status()).toEqual({ plan: 'x' });
    // The date has one-second resolution: the wait is between 1 and 2 seconds.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(s.requests).toHaveLength(2);
  });

  it('surfaces a Retry-After longer than the deadline at once as rate_limited with retryAfterMs', async () => {
    const { s, c } = await serve((_req, res) => json(res, 429, { message: 'slow down' }, { 'retry-after': '120' }));
    const started = Date.now();
    const lag = loopLag();
    const e = await failure(c.keys.list());
    expect(Date.now() - started).toBeLessThan(3_000 + lag.stop());
    expect(e.code).toBe('rate_limited');
    expect(e.retryAfterMs).toBe(120_000);
    expect(e.message).toMatch(/2 min/);
    expect(s.requests).toHaveLength(1);
  });

  it('keeps the whole call, retries included, within timeoutMs', async () => {
    const { s, c } = await serve((_req, res) => json(res, 503, {}), { timeoutMs: 1_500, retries: 10 });
    const started = Date.now();
    const lag = loopLag();
    const e = await failure(c.keys.list());
    const elapsed = Date.now() - started;
    expect(e.code).toBe('server_error');
    expect(elapsed).toBeLessThan(1_500 + 1_000 + lag.stop());
    expect(s.requests.length).toBeGreaterThanOrEqual(2);
    expect(s.requests.length).toBeLessThan(11);
  });

  it('reports timeout when the service is slower than the deadline', async () => {
    const { s, c } = await serve(
      () => {
        /* never answers */
      },
      { timeoutMs: 800 },
    );
    const started = Date.now();
    const lag = loopLag();
    const e = await failure(c.keys.list());
    const elapsed = Date.now() - started;
    const late = lag.stop();
    expect(e.code).toBe('timeout');
    expect(e.outcomeUnknown).toBeUndefined();
    // Not at once: the first attempt has half the deadline (src/api/core.ts); a busy machine's late
    // timer may leave no room for a second one, and the call then ends before the deadline.
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(800 + 2_000 + late);
    expect(s.requests.length).toBeGreaterThanOrEqual(1);
  });

  it('reports network_error for a refused connection', async () => {
    const client = clientOf(await refusedUrl(), { timeoutMs: 3_000 });
    const e = await failure(client.keys.list());
    expect(e.code).toBe('network_error');
    expect(e.message).toContain('ECONNREFUSED');
    expect(e.outcomeUnknown).toBeUndefined();
  });

  it('reuses one keep-alive socket for a series of calls', async () => {
    const { s, c } = await serve((_req, res) => json(res, 200, creditsEnvelope()));
    for (let i = 0; i < 5; i++) await c.billing.credits();
    expect(s.requests).toHaveLength(5);
    expect(s.connections).toBe(1);
  });
});

describe.concurrent.each(TRANSPORTS)('state-changing calls are sent once (over %s)', (transport) => {
  const { clientOf, serve } = over(transport);
  it('does not retry a POST answered 500 and says its outcome is unknown', async () => {
    const { s, c } = await serve((_req, res) => json(res, 500, { error: { code: 'server_error', message: 'boom' } }));
    const e = await failure(c.billing.verifyTopUp({ txHash: TX, amount: 25 }));
    expect(e.code).toBe('server_error');
    expect(e.outcomeUnknown).toBe(true);
    expect(e.message).toMatch(/unknown.*check the balance/);
    expect(s.requests).toHaveLength(1);
    expect(JSON.parse(s.requests[0]!.body)).toEqual({ txHash: TX, amount: 25 });
  });

  it('does not retry PUT or DELETE answered 503 or 429', async () => {
    const { s, c } = await serve((req, res) => json(res, req.method === 'PUT' ? 503 : 429, {}, { 'retry-after': '0' }));
    expect((await failure(c.keys.update('k1', { isActive: false }))).code).toBe('server_error');
    const limited = await failure(c.keys.delete('k1'));
    expect(limited.code).toBe('rate_limited');
    expect(limited.retryAfterMs).toBe(0);
    expect(s.requests.map((r) => r.method)).toEqual(['PUT', 'DELETE']);
  });

  it('reports a reset after sending a POST as outcome unknown, sent once', async () => {
    const { s, c } = await serve((_req, res) => reset(res));
    const e = await failure(c.keys.createCredit({ name: 'ci' }));
    expect(e.code).toBe('network_error');
    expect(e.outcomeUnknown).toBe(true);
    expect(e.message).toMatch(/whether it took effect is unknown: list the keys before trying again/);
    expect(s.requests).toHaveLength(1);
  });

  it('reports a POST slower than the deadline as timeout with outcome unknown, sent once', async () => {
    const { s, c } = await serve(
      () => {
        /* never answers */
      },
      { timeoutMs: 800 },
    );
    const e = await failure(c.billing.topUp({ amount: 10, method: 'usdc' }));
    expect(e.code).toBe('timeout');
    expect(e.outcomeUnknown).toBe(true);
    expect(e.message).toMatch(/unknown: check the balance/);
    expect(s.requests).toHaveLength(1);
  });

  it('says nothing was sent when the connection is refused', async () => {
    const client = clientOf(await refusedUrl());
    const e = await failure(client.billing.verifyTopUp({ txHash: TX, amount: 10 }));
    expect(e.code).toBe('network_error');
    expect(e.outcomeUnknown).toBeUndefined();
    expect(e.message).toContain('nothing was sent');
  });
});

describe.concurrent.each(TRANSPORTS)('response bodies (over %s)', (transport) => {
  const { serve } = over(transport);
  it('asks for compressed answers and reads gzip, deflate and br alike', async () => {
    const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync } as const;
    const { s, c } = await serve((req, res, n) => {
      const encoding = (['gzip', 'deflate', 'br'] as const)[n % 3]!;
      const body = encoders[encoding](JSON.stringify([consumptionKey(`k-${encoding}`)]));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': body.length });
      res.end(body);
    });
    for (const encoding of ['gzip', 'deflate', 'br']) expect((await c.keys.list()).map((k) => k.id)).toEqual([`k-${encoding}`]);
    expect(s.requests.every((r) => /gzip/.test(String(r.headers['accept-encoding'])))).toBe(true);
  });

  it('reports malformed JSON as invalid_response', async () => {
    const { c } = await serve((_req, res) => raw(res, 200, '[{"id": "k1",'));
    const e = await failure(c.keys.list());
    expect(e.code).toBe('invalid_response');
    expect(e.message).toContain('not JSON');
  });

  it('names the missing field of a list item', async () => {
    const { c } = await serve((_req, res) => {
      const broken = consumptionKey('x');
      delete broken.id;
      json(res, 200, [consumptionKey('a'), consumptionKey('b'), broken]);
    });
    const e = await failure(c.keys.list());
    expect(e.code).toBe('invalid_response');
    expect(e.field).toBe('[2].id');
    expect(e.message).toContain('[2].id');
  });

  it('names the mistyped field inside the billing envelope', async () => {
    const { c } = await serve((_req, res) => json(res, 200, creditsEnvelope({ remaining: '25 USD' })));
    const e = await failure(c.billing.credits());
    expect(e.field).toBe('data.remaining');
  });

  it('keeps unknown extra fields', async () => {
    const { c } = await serve((req, res) =>
      req.path === '/api/keys' ? json(res, 200, [consumptionKey('k1', { spend: 1.25, labels: { team: 'ml' } })]) : json(res, 200, { ...creditsEnvelope({ currency: 'USD' }), requestId: 'r1' }),
    );
    const [key] = await c.keys.list();
    expect(key).toMatchObject({ id: 'k1', spend: 1.25, labels: { team: 'ml' } });
    expect(await c.billing.credits()).toMatchObject({ remaining: 25, currency: 'USD' });
  });

  it('treats success: false with status 200 as an error, by its code when it has one', async () => {
    const { c } = await serve((_req, res, n) => (n === 0 ? json(res, 200, { success: false, error: { code: 'insufficient_balance', message: 'no money' } }) : json(res, 200, { success: false })));
    const coded = await failure(c.billing.credits());
    expect(coded.code).toBe('insufficient_balance');
    expect(coded.message).toContain('no money');
    const bare = await failure(c.billing.credits());
    expect(bare.code).toBe('server_error');
    expect(bare.status).toBe(200);
  });

  it('accepts 204 and empty bodies where the spec shows none', async () => {
    const { c } = await serve((req, res) => {
      if (req.method === 'PUT') res.writeHead(204).end();
      else if (req.method === 'DELETE') raw(res, 200, '');
      else res.writeHead(204).end();
    });
    expect(await c.keys.update('k1', { name: 'renamed' })).toBeUndefined();
    expect(await c.managementKeys.delete('m1')).toBeUndefined();
    expect(await c.billing.status()).toBeUndefined();
  });

  it('returns unshown bodies as they arrive (JSON, text, envelope data)', async () => {
    const { c } = await serve((req, res) => {
      if (req.method === 'PUT') json(res, 200, { id: 'k1', name: 'renamed', whatever: [1] });
      else if (req.method === 'DELETE') raw(res, 200, 'OK');
      else if (req.path === '/api/billing/topup') json(res, 200, { success: true, data: { chargeId: 'ch_1' } });
      else json(res, 200, { status: 'active' });
    });
    expect(await c.keys.update('k1', { name: 'renamed' })).toEqual({ id: 'k1', name: 'renamed', whatever: [1] });
    expect(await c.managementKeys.delete('m1')).toBe('OK');
    expect(await c.billing.topUp({ amount: 10, method: 'card_direct' })).toEqual({ method: 'card_direct', data: { chargeId: 'ch_1' }, wireMethod: 'card_direct' });
    expect(await c.billing.status()).toEqual({ status: 'active' });
  });

  it('reports an empty body where one is documented as invalid_response', async () => {
    const { s, c } = await serve((_req, res) => res.writeHead(204).end());
    const e = await failure(c.keys.delete('k1'));
    expect(e.code).toBe('invalid_response');
    expect(e.message).toMatch(/probably took effect: list the keys/);
    expect(s.requests).toHaveLength(1);
  });

  it('tags top-up results with their method and checks their shape', async () => {
    const { c } = await serve((req, res) => {
      const { method } = JSON.parse(req.body) as { method: string };
      if (method === 'card_checkout') json(res, 200, { success: true, data: { sessionUrl: 'https://pay.example/s/1', sessionId: 's1' } });
      else json(res, 200, { success: true, data: { address: `0x${'1'.repeat(40)}`, chain: 'base', amount: true } });
    });
    expect(await c.billing.topUp({ amount: 12.5, method: 'card_checkout' })).toEqual({
      method: 'card_checkout',
      data: { sessionUrl: 'https://pay.example/s/1', sessionId: 's1' },
      wireMethod: 'card_checkout',
    });
    const e = await failure(c.billing.topUp({ amount: 25, method: 'usdc' }));
    expect(e.field).toBe('data.amount');
  });

  it('does not follow redirects (the credential would go along)', async () => {
    const { s, c } = await serve((_req, res) => res.writeHead(301, { location: 'http://elsewhere.example/api/keys' }).end());
    const e = await failure(c.keys.list());
    expect(e.code).toBe('invalid_response');
    expect(e.message).toContain('http://elsewhere.example/api/keys');
    expect(s.requests).toHaveLength(1);
  });
});

describe.concurrent.each(TRANSPORTS)('error mapping (over %s)', (transport) => {
  const { serve } = over(transport);
  const byStatus: Array<[number, string]> = [
    [400, 'invalid_request'],
    [401, 'unauthorized'],
    [402, 'insufficient_balance'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [409, 'tx_already_used'],
    [422, 'invalid_request'],
    [500, 'server_error'],
  ];

  it('degrades to the status when the body is not one of our shapes', async () => {
    let status = 0;
    const { c } = await serve((_req, res, n) => (n % 2 === 0 ? raw(res, status, '<html>nope</html>') : json(res, status, { error: { code: 'weird_thing' } })));
    for (const [s, code] of byStatus) {
      status = s;
      for (let i = 0; i < 2; i++) {
        const e = await failure(c.billing.verifyTopUp({ txHash: TX, amount: 10 }));
        expect([s, e.code]).toEqual([s, code]);
        expect(e.status).toBe(s);
      }
    }
  });

  it("uses the service's own code from the body, bare or in the envelope", async () => {
    const answers: Array<[number, unknown, string]> = [
      [422, { error: { code: 'amount_mismatch', message: 'amount differs' } }, 'amount_mismatch'],
      [402, { success: false, error: { code: 'budget_exceeded', message: 'spent' } }, 'budget_exceeded'],
      [409, { success: false, error: { code: 'tx_already_used' } }, 'tx_already_used'],
      [400, { error: { code: 'invalid_request', message: 'amount must be at least 10', field: 'amount' } }, 'invalid_request'],
      [404, { error: 'not_found' }, 'not_found'],
    ];
    const { c } = await serve((_req, res, n) => json(res, answers[n]![0], answers[n]![1]));
    for (const [status, , code] of answers) {
      const e = await failure(c.billing.verifyTopUp({ txHash: TX, amount: 10 }));
      expect([status, e.code]).toEqual([status, code]);
    }
  });

  it('carries the field the service names for invalid_request', async () => {
    const { c } = await serve((_req, res) => json(res, 400, { error: { code: 'invalid_request', message: 'too long', field: 'name' } }));
    const e = await failure(c.managementKeys.create({ name: 'ok' }));
    expect(e.field).toBe('name');
    expect(e.message).toContain('too long');
  });

  it('strips control characters (terminal escapes) from service messages', async () => {
    const { c } = await serve((_req, res) => json(res, 403, { error: { code: 'forbidden', message: 'no \u001b[2J\u001b[31mway\u0007' } }));
    const e = await failure(c.keys.list());
    expect(e.code).toBe('forbidden');
    expect(e.message).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe.concurrent.each(TRANSPORTS)('secrets never leak (over %s)', (transport) => {
  const { clientOf, serve } = over(transport);
  it('redacts the token and a full mk_ key echoed by a 401 body', async () => {
    const fullKey = `mk_Ab12Cd34${'Qw9'.repeat(10)}`;
    const { c } = await serve((_req, res) =>
      json(res, 401, {
        error: { code: 'unauthorized', message: `token ${TOKEN} rejected; did you mean ${fullKey}? (Authorization: Bearer ${TOKEN})`, field: TOKEN },
      }),
    );
    const e = await failure(c.keys.list());
    expect(e.code).toBe('unauthorized');
    const text = allTextOf(e);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(fullKey);
    expect(text).toContain('mk_Ab12Cd34…');
  });

  it('keeps the token out of every transport error', async () => {
    const client = clientOf(await refusedUrl(), { retries: 0 });
    const e = await failure(client.keys.createCredit({ name: TOKEN }));
    expect(allTextOf(e)).not.toContain(TOKEN);
    expect(allTextOf(client)).not.toContain(TOKEN);
  });

  it('sends the token as a Bearer credential on every request', async () => {
    const { s, c } = await serve((req, res) => (req.method === 'GET' ? json(res, 200, []) : json(res, 200, { deleted: true })));
    await c.keys.list();
    await c.keys.delete('k1');
    expect(s.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    expect(s.requests[0]!.headers['user-agent']).toBe('keydeck');
  });
});

describe.concurrent('input is validated before anything is sent', () => {
  it('refuses invalid input with invalid_request naming the field, and sends nothing', async () => {
    const { s, c } = await serve((_req, res) => json(res, 200, {}));
    const cases: Array<[Promise<unknown>, string | undefined]> = [
      [c.keys.createCredit({ name: '   ' }), 'name'],
      [c.managementKeys.create({ name: 'x'.repeat(500) }), 'name'],
      [c.keys.update('', { name: 'a' }), 'id'],
      [c.keys.update('k1', {}), undefined],
      [c.keys.update('k1', { name: 'bell\u0007' }), 'name'],
      [c.keys.delete('../billing'), 'id'],
      [c.managementKeys.delete('..'), 'id'],
      [c.keys.update('.', { isActive: true }), 'id'],
      [c.managementKeys.delete(''), 'id'],
      [c.billing.topUp({ amount: 9.99, method: 'usdc' }), 'amount'],
      [c.billing.topUp({ amount: 10.005, method: 'card_checkout' }), 'amount'],
      [c.billing.topUp({ amount: Number.NaN, method: 'card_checkout' }), 'amount'],
      [c.billing.topUp({ amount: 10, method: 'pay pal' }), 'method'],
      [c.billing.verifyTopUp({ txHash: '0x1234', amount: 10 }), 'txHash'],
      [c.billing.verifyTopUp({ txHash: TX, amount: 5 }), 'amount'],
    ];
    for (const [promise, field] of cases) {
      const e = await failure(promise);
      expect(e.code).toBe('invalid_request');
      expect(e.message).toMatch(/^Nothing was sent/);
      if (field !== undefined) expect(e.field).toBe(field);
    }
    expect(s.requests).toHaveLength(0);
  });

  it('refuses unusable client options', () => {
    expect(() => new KeydeckClient({ baseUrl: 'ftp://x', token: TOKEN })).toThrow(KeydeckApiError);
    expect(() => new KeydeckClient({ baseUrl: 'http://x', token: 'two words' })).toThrow(/token/);
    expect(() => new KeydeckClient({ baseUrl: 'http://x', token: TOKEN, retries: -1 })).toThrow(/retries/);
    expect(new KeydeckClient({ baseUrl: 'http://127.0.0.1:9/prefix//', token: TOKEN }).baseUrl).toBe('http://127.0.0.1:9/prefix');
  });
});

describe.concurrent.each(TRANSPORTS)('cancellation (over %s)', (transport) => {
  const { serve } = over(transport);
  it('rejects with a plain AbortError and stops waiting', async () => {
    const controller = new AbortController();
    // Never answers; the caller cancels once the request has arrived.
    const { s, c } = await serve(() => controller.abort());
    const pending = c.billing.credits({ signal: controller.signal });
    const error: unknown = await pending.catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(error).not.toBeInstanceOf(KeydeckApiError);
    expect(describeApiError(error)).toBe('The request was cancelled.');
    expect(s.requests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { s, c } = await serve((_req, res) => json(res, 200, []));
    const error: unknown = await c.keys.list({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(s.requests).toHaveLength(0);
  });

  it('stops a retry backoff when aborted', async () => {
    const controller = new AbortController();
    const { s, c } = await serve(
      (_req, res) => {
        json(res, 503, {}, { 'retry-after': '5' });
        setTimeout(() => controller.abort(), 200); // while the client waits out the 5 s
      },
      { timeoutMs: 9_000 },
    );
    const started = Date.now();
    const lag = loopLag();
    const pending = c.keys.list({ signal: controller.signal });
    expect(isAbortError(await pending.catch((e: unknown) => e))).toBe(true);
    // Not the 5 s asked for (nor a second request, below), however late this thread's timers fired.
    expect(Date.now() - started).toBeLessThan(3_000 + lag.stop());
    expect(s.requests).toHaveLength(1);
  });
});

describe.concurrent('describeApiError', () => {
  it('gives one sentence for any error, without secrets', () => {
    expect(describeApiError(new KeydeckApiError('timeout', 'The service did not answer within 10 s.'))).toBe('The service did not answer within 10 s.');
    expect(describeApiError(new Error(`boom sk_${'a'.repeat(30)}`))).toBe(`Unexpected error: boom sk_${'a'.repeat(8)}….`);
    expect(describeApiError(undefined)).toMatch(/^Unexpected error/);
    class StoreError extends Error {
      override readonly name = 'StoreError';
      readonly code = 'keychain_unavailable';
    }
    expect(describeApiError(new StoreError('The keychain is locked: unlock it and try again'))).toBe('The keychain is locked: unlock it and try again.');
  });
});
