/**
 * Bad input never gets a 5xx and never changes state: malformed JSON, wrong types, missing,
 * unknown and oversized fields, bodies over the limit, wrong content types, unknown routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/sandbox/index.js';
import { call, startTestSandbox, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
let keyId: string;
let sk: string;
let mkId: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  const key = await sb.creditKey(sb.token, 'target');
  keyId = key.id;
  sk = key.apiKey;
  mkId = (await sb.call('POST', '/api/keys/management', { token: sb.token, body: { name: 'mk' } })).body.id;
});
afterAll(async () => {
  await sb.close();
});

/** Everything a refusal must leave unchanged. */
async function snapshot(): Promise<string> {
  const token = sb.token;
  const parts = await Promise.all([
    sb.call('GET', '/api/keys', { token }),
    sb.call('GET', '/api/keys/management', { token }),
    sb.call('GET', '/api/billing/credits', { token }),
    sb.call('GET', '/api/billing/status', { token }),
  ]);
  // lastUsedAt of management keys is not touched by session-token requests; a consumption key's
  // is (it was presented, whatever became of the request), so it is left out.
  const [keys, ...rest] = parts.map((p) => p.body);
  const unused = (keys as Array<Record<string, unknown>>).map(({ lastUsedAt: _used, ...key }) => key);
  return JSON.stringify([unused, ...rest]);
}

describe('refusals of bad bodies', () => {
  const endpoints: Array<[string, () => string, 'session' | 'sk' | 'none']> = [
    ['POST', () => '/api/keys/credit', 'session'],
    ['PUT', () => `/api/keys/${keyId}`, 'session'],
    ['POST', () => '/api/keys/management', 'session'],
    ['POST', () => '/api/billing/topup', 'session'],
    ['POST', () => '/api/billing/verify-topup', 'session'],
    ['POST', () => '/sandbox/subscriptions', 'session'],
    ['POST', () => '/sandbox/chain/transfers', 'none'],
    ['POST', () => '/sandbox/clock', 'none'],
    ['POST', () => '/v1/chat/completions', 'sk'],
  ];
  const bodies: Array<{ raw: string; contentType?: string }> = [
    { raw: '{' },
    { raw: '{"name": "x",}' },
    { raw: 'null' },
    { raw: '[]' },
    { raw: '"name"' },
    { raw: '42' },
    { raw: 'true' },
    { raw: '{}' },
    { raw: '{"name": 123, "isActive": "yes", "amount": "ten", "method": 5, "txHash": [], "plan": {}, "blocks": "asia", "to": 1, "advanceSeconds": null, "messages": {}}' },
    { raw: '{"__proto__": {"admin": true}}' },
    { raw: '{"constructor": {"prototype": {"x": 1}}}' },
    { raw: `{"name": "${'n'.repeat(5000)}"}` },
    { raw: '{"name": "a\\u0000b"}' },
    { raw: '{"name": "   "}' },
    { raw: '{"name": "ok", "extra": 1}' },
    { raw: 'name=x', contentType: 'application/x-www-form-urlencoded' },
    { raw: '{"name":"x"}', contentType: 'text/plain' },
    { raw: '<name>x</name>', contentType: 'application/xml' },
  ];

  it('every endpoint answers every bad body with a 4xx DESIGN error body and changes nothing', async () => {
    const before = await snapshot();
    for (const [method, path, auth] of endpoints) {
      for (const body of bodies) {
        const token = auth === 'session' ? sb.token : auth === 'sk' ? sk : undefined;
        const reply = await sb.call(method, path(), { ...(token && { token }), raw: body.raw, ...(body.contentType && { contentType: body.contentType }) });
        const label = `${method} ${path()} ${body.contentType ?? ''} ${body.raw.slice(0, 40)}`;
        expect(reply.status, label).toBeGreaterThanOrEqual(400);
        expect(reply.status, label).toBeLessThan(500);
        if (path().startsWith('/api/billing/')) expect(reply.body.success, label).toBe(false);
        expect(reply.body.error.code, label).toBe('invalid_request');
        expect(reply.body.error.message, label).toEqual(expect.any(String));
      }
    }
    expect(await snapshot()).toBe(before);
  });

  it('names the field at fault', async () => {
    const token = sb.token;
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, 'name', /name is required/],
      [{ name: 123 }, 'name', /name/],
      [{ name: '' }, 'name', /name must not be empty/],
      [{ name: 'x'.repeat(129) }, 'name', /at most 128/],
      [{ name: 'ok', isActive: true }, 'isActive', /unknown field isActive/],
    ];
    for (const [body, field, message] of cases) {
      const reply = await sb.call('POST', '/api/keys/credit', { token, body });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ code: 'invalid_request', field });
      expect(reply.body.error.message).toMatch(message);
    }
    const put = await sb.call('PUT', `/api/keys/${keyId}`, { token, body: { isActive: 'false' } });
    expect(put.body.error).toMatchObject({ code: 'invalid_request', field: 'isActive' });
  });

  it(`refuses a body over ${BODY_LIMIT_BYTES} bytes with 413 invalid_request`, async () => {
    const before = await snapshot();
    const huge = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT_BYTES) });
    const reply = await sb.call('POST', '/api/keys/management', { token: sb.token, raw: huge });
    expect(reply.status).toBe(413);
    expect(reply.body.error).toMatchObject({ code: 'invalid_request', field: 'body' });
    const billing = await sb.call('POST', '/api/billing/topup', { token: sb.token, raw: huge });
    expect(billing.status).toBe(413);
    expect(billing.body.success).toBe(false);
    const inference = await sb.call('POST', '/v1/chat/completions', { token: sk, raw: JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(70_000) }] }) });
    expect(inference.status).toBe(413);
    expect(await snapshot()).toBe(before);
  });

  it('reports the content type: 415 for a type it cannot read', async () => {
    const reply = await sb.call('POST', '/api/keys/credit', { token: sb.token, raw: '<a/>', contentType: 'application/xml' });
    expect(reply.status).toBe(415);
    expect(reply.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/application\/json/) });
  });

  it('accepts a bodiless DELETE even with a JSON content type', async () => {
    const key = await sb.creditKey(sb.token, 'to delete');
    const reply = await sb.call('DELETE', `/api/keys/${key.id}`, { token: sb.token, raw: '' });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ deleted: true });
  });
});

describe('paths', () => {
  it('unknown routes and methods get 404 not_found (enveloped under /api/billing/)', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/api'],
      ['GET', '/api/nope'],
      ['PATCH', '/api/keys'],
      ['GET', '/api/keys/credit'],
      ['POST', '/api/keys'],
      ['PUT', '/api/keys/management/x'],
      ['GET', '/v1/chat/completions'],
      ['GET', '/sandbox/clock'],
    ] as const) {
      const reply = await sb.call(method, path, { token: sb.token });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    }
    const billing = await sb.call('GET', '/api/billing/nope', { token: sb.token });
    expect(billing.status).toBe(404);
    expect(billing.body).toEqual({ success: false, error: { code: 'not_found', message: expect.any(String) } });
  });

  it('a malformed or unknown key id is a 4xx, never a 5xx', async () => {
    for (const id of ['%20', 'a%20b', '%00', '%E0%A4%A', 'x'.repeat(150), encodeURIComponent('../../etc'), "1' OR '1'='1"]) {
      for (const method of ['PUT', 'DELETE']) {
        const reply = await call(sb.url, method, `/api/keys/${id}`, { token: sb.token, body: { name: 'x' } });
        expect(reply.status, `${method} ${id}`).toBeGreaterThanOrEqual(400);
        expect(reply.status, `${method} ${id}`).toBeLessThan(500);
      }
      const mk = await call(sb.url, 'DELETE', `/api/keys/management/${id}`, { token: sb.token });
      expect(mk.status).toBeLessThan(500);
    }
    // The targets are still there.
    expect((await sb.call('GET', '/api/keys', { token: sb.token })).body.some((k: { id: string }) => k.id === keyId)).toBe(true);
    expect((await sb.call('GET', '/api/keys/management', { token: sb.token })).body.some((k: { id: string }) => k.id === mkId)).toBe(true);
  });

  it('query strings are ignored', async () => {
    const reply = await sb.call('GET', '/api/billing/credits?x=1&y', { token: sb.token });
    expect(reply.status).toBe(200);
  });
});

describe('simulated chain transfers', () => {
  it('refuse a bad address or amount', async () => {
    for (const body of [
      { to: '0x123', amount: '10' },
      { to: `0x${'1'.repeat(40)}`, amount: '-1' },
      { to: `0x${'1'.repeat(40)}`, amount: '0' },
      { to: `0x${'1'.repeat(40)}`, amount: '1.0000001' },
      { to: `0x${'1'.repeat(40)}`, amount: 'ten' },
      { to: `0x${'1'.repeat(40)}`, amount: true },
      { to: `0x${'1'.repeat(40)}` },
    ]) {
      const reply = await sb.call('POST', '/sandbox/chain/transfers', { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.code).toBe('invalid_request');
    }
    expect((await sb.call('POST', '/sandbox/chain/transfers', { body: { to: `0x${'1'.repeat(40)}`, amount: 12.5 } })).status).toBe(200);
  });
});
