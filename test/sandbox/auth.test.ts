/**
 * The service's authentication authentication: session tokens and mk_ keys on every /api/* endpoint, sk_ keys only for
 * inference; the docs/sandbox-service.md codes 401 unauthorized and 403 forbidden.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
let sk: string;
let mk: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  sk = (await sb.creditKey(sb.token)).apiKey;
  mk = (await sb.call('POST', '/api/keys/management', { token: sb.token, body: { name: 'auth test' } })).body.apiKey;
});
afterAll(async () => {
  await sb.close();
});

/** Every /api/* endpoint of the service's endpoints with a body that would be valid. */
const API_ENDPOINTS: Array<{ method: string; path: string; body?: unknown }> = [
  { method: 'GET', path: '/api/keys' },
  { method: 'POST', path: '/api/keys/credit', body: { name: 'x' } },
  { method: 'PUT', path: '/api/keys/00000000-0000-4000-8000-000000000000', body: { name: 'x' } },
  { method: 'DELETE', path: '/api/keys/00000000-0000-4000-8000-000000000000' },
  { method: 'GET', path: '/api/keys/management' },
  { method: 'POST', path: '/api/keys/management', body: { name: 'x' } },
  { method: 'DELETE', path: '/api/keys/management/00000000-0000-4000-8000-000000000000' },
  { method: 'POST', path: '/api/billing/topup', body: { amount: 10, method: 'usdc' } },
  { method: 'POST', path: '/api/billing/verify-topup', body: { txHash: `0x${'a'.repeat(64)}`, amount: 10 } },
  { method: 'GET', path: '/api/billing/credits' },
  { method: 'GET', path: '/api/billing/status' },
];

function isBilling(path: string): boolean {
  return path.startsWith('/api/billing/');
}

describe('/api/* endpoints', () => {
  it.each(API_ENDPOINTS)('$method $path: 401 without credentials, with an unknown token and with a non-Bearer scheme', async ({ method, path, body }) => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer sess_unknown' }, { authorization: `Bearer mk_${'x'.repeat(40)}` }, { authorization: `Basic ${sb.token}` }];
    for (const headers of attempts) {
      const reply = await sb.call(method, path, { headers, ...(body !== undefined && { body }) });
      expect(reply.status).toBe(401);
      if (isBilling(path)) expect(reply.body.success).toBe(false);
      expect(reply.body.error.code).toBe('unauthorized');
      expect(reply.body.error.message).toEqual(expect.any(String));
    }
  });

  it.each(API_ENDPOINTS)('$method $path: 403 forbidden for a consumption key (sk_)', async ({ method, path, body }) => {
    const reply = await sb.call(method, path, { token: sk, ...(body !== undefined && { body }) });
    expect(reply.status).toBe(403);
    if (isBilling(path)) expect(reply.body.success).toBe(false);
    expect(reply.body.error.code).toBe('forbidden');
    expect(reply.body.error.message).not.toContain(sk);
  });

  it.each(API_ENDPOINTS)('$method $path: accepted with a session token and with a management key', async ({ method, path, body }) => {
    for (const token of [sb.token, mk]) {
      const reply = await sb.call(method, path, { token, ...(body !== undefined && { body }) });
      // Accepted = past authentication: success, or a refusal about the request itself.
      expect([200, 404]).toContain(reply.status);
      if (reply.status === 404) expect(reply.body.error.code).toBe('not_found');
    }
  });

  it('keeps the billing envelope on billing refusals', async () => {
    const reply = await sb.call('GET', '/api/billing/credits');
    expect(reply.body).toEqual({ success: false, error: { code: 'unauthorized', message: expect.any(String) } });
    const keys = await sb.call('GET', '/api/keys');
    expect(keys.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });
});

describe('POST /v1/chat/completions', () => {
  const body = { messages: [{ role: 'user', content: 'hi' }] };

  it('is refused with 403 forbidden for a management key and for a session token', async () => {
    for (const token of [mk, sb.token]) {
      const reply = await sb.call('POST', '/v1/chat/completions', { token, body });
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe('forbidden');
    }
    const reply = await sb.call('POST', '/v1/chat/completions', { token: mk, body });
    expect(reply.body.error.message).toMatch(/management key/);
  });

  it('is refused with 401 without credentials or with an unknown sk_ key', async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: `Bearer sk_${'Z'.repeat(40)}` }, { authorization: 'Bearer' }];
    for (const headers of attempts) {
      const reply = await sb.call('POST', '/v1/chat/completions', { headers, body });
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('unauthorized');
    }
  });

  it('answers a consumption key', async () => {
    const reply = await sb.call('POST', '/v1/chat/completions', { token: sk, body });
    expect(reply.status).toBe(200);
    expect(reply.body.choices[0].message.content).toEqual(expect.any(String));
  });
});

describe('simulation endpoints', () => {
  it('POST /sandbox/subscriptions needs a session token or management key', async () => {
    const body = { plan: 'standard', blocks: ['asia'] };
    expect((await sb.call('POST', '/sandbox/subscriptions', { body })).status).toBe(401);
    expect((await sb.call('POST', '/sandbox/subscriptions', { token: sk, body })).status).toBe(403);
    expect((await sb.call('POST', '/sandbox/subscriptions', { token: mk, body })).status).toBe(200);
  });
});
