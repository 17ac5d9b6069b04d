/**
 * The sandbox refuses names with control, direction or invisible characters (400,
 * field named), keeps its clock offset and account totals bounded (4xx beyond, never a 500, also
 * after a restart), redacts every token shape from its log, and refuses two Authorization headers.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClock, MAX_CLOCK_OFFSET_MS } from '../../src/sandbox/clock.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, startTestSandbox, type TestSandbox } from './helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('names', () => {
  const bad = { C1: 'a\u009bb', bidi: 'invoice\u202eexe.txt', zeroWidth: '\u200b', isolate: 'x\u2066y', lineSeparator: 'a\u2028b', escape: 'x\u001b]0;t\u0007' };
  for (const [what, name] of Object.entries(bad)) {
    it(`refuses a name with ${what} characters: 400 naming the field`, async () => {
      const key = await sb.creditKey(await sb.fundedUser(10), 'ok');
      for (const [method, route, token] of [
        ['POST', '/api/keys/credit', sb.token],
        ['POST', '/api/keys/management', sb.token],
      ] as const) {
        const r = await sb.call(method, route, { token, body: { name } });
        expect(r.status, `${method} ${route}`).toBe(400);
        expect(r.body.error).toMatchObject({ code: 'invalid_request', field: 'name' });
      }
      expect(key.id).toBeTruthy();
    });
  }
  it('still takes ordinary names in any script', async () => {
    const r = await sb.call('POST', '/api/keys/management', { token: sb.token, body: { name: 'clé 日本 ключ 🔑' } });
    expect(r.status).toBe(200);
  });
});

describe('bounded clock and totals', () => {
  it('refuses to move the clock past 100 years ahead, with 400, and keeps answering', async () => {
    const own = await startTestSandbox();
    try {
      const tenYears = 10 * 365 * 24 * 3600;
      for (let i = 0; i < 10; i++) expect((await own.call('POST', '/sandbox/clock', { body: { advanceSeconds: tenYears } })).status).toBe(200);
      const r = await own.call('POST', '/sandbox/clock', { body: { advanceSeconds: tenYears } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_request', field: 'advanceSeconds' });
      expect((await own.call('GET', '/api/billing/credits', { token: own.token })).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('a stored offset beyond the bound (an older database) starts within it', () => {
    expect(createClock(1e20).offsetMs()).toBe(MAX_CLOCK_OFFSET_MS);
    expect(createClock(Number.NaN).offsetMs()).toBe(0);
  });

  it('refuses a top-up that would take an account past the total it may hold, with a 4xx, also after a restart', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-bounds-'));
    const dbPath = path.join(dir, 'sandbox.db');
    try {
      let sandbox = await startSandbox({ port: 0, dbPath });
      const token = (await call<{ token: string }>(sandbox.url, 'POST', '/sandbox/users')).body.token;
      await sandbox.close();
      // An account 5 USD below the most it may hold (the sandbox holds its database exclusively while it runs).
      const db = new DatabaseSync(dbPath);
      db.exec('UPDATE users SET max_budget_micros = 999999995000000');
      db.close();
      sandbox = await startSandbox({ port: 0, dbPath });
      const refused = await call(sandbox.url, 'POST', '/api/billing/topup', { token, body: { amount: 10, method: 'card_direct' } });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      expect(JSON.stringify(refused.body)).toMatch(/"code":"invalid_request".*"field":"amount"/);
      expect((await call(sandbox.url, 'GET', '/api/billing/credits', { token })).status).toBe(200);
      await sandbox.close();
      sandbox = await startSandbox({ port: 0, dbPath });
      expect((await call(sandbox.url, 'GET', '/api/billing/credits', { token })).status).toBe(200);
      await sandbox.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the log and the Authorization header', () => {
  it('redacts every token shape from its log, URL paths included', async () => {
    const lines: string[] = [];
    const sandbox = await startSandbox({ port: 0, log: (line) => lines.push(line) });
    try {
      const secrets = ['mk_AAAAbbbbCCCCdddd1234', 'sk_ZZZZyyyyXXXXwwww9876', 'sess_QQQQrrrrSSSStttt5555', 'cs_sandbox_PPPPoooo1111'];
      for (const secret of secrets) {
        await call(sandbox.url, 'GET', `/api/keys/${secret}`, { token: sandbox.token });
        await call(sandbox.url, 'GET', `/sandbox/checkout/${secret}`);
        await call(sandbox.url, 'GET', `/nowhere/${secret.replace('_', '%5F')}`);
      }
      const log = lines.join('\n');
      expect(lines.length).toBeGreaterThan(5);
      for (const secret of secrets) {
        const body = secret.slice(secret.indexOf('_') + 1);
        expect(log).not.toContain(body);
      }
      expect(log).not.toContain(sandbox.token.slice(5));
    } finally {
      await sandbox.close();
    }
  });

  it('answers two Authorization headers with 400', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${sb.url}/api/keys`, { method: 'GET' }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.setHeader('authorization', [`Bearer ${sb.token}`, 'Bearer mk_SomeoneElse0000000000']);
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'invalid_request', field: 'authorization' } });
  });
});

describe('the Host header (a web page reaching the sandbox by DNS rebinding)', () => {
  /** `method path` with `host` as the Host header, straight to the sandbox at `base`. */
  const send = (base: string, method: string, route: string, host: string, body?: unknown) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${base}${route}`, { method, headers: { host, ...(body !== undefined && { 'content-type': 'application/json' }) } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  it('on loopback, answers only a Host that names this machine: another gets 403 with a sentence, and moves nothing', async () => {
    const port = new URL(sb.url).port;
    const offset = async () => (await call<{ offsetSeconds: number }>(sb.url, 'POST', '/sandbox/clock', { body: { advanceSeconds: 0 } })).body.offsetSeconds;
    const before = await offset();
    for (const host of [`rebind.evil.example:${port}`, `127.0.0.1.evil.example:${port}`, 'evil.example']) {
      const moved = await send(sb.url, 'POST', '/sandbox/clock', host, { advanceSeconds: 86_400 });
      expect(moved.status, host).toBe(403);
      expect(JSON.parse(moved.body)).toEqual({
        error: {
          code: 'forbidden',
          field: 'host',
          message: expect.stringMatching(/^the sandbox listens on this machine only and answers requests addressed to it \(Host: localhost, 127\.0\.0\.1 or \[::1\]\)/),
        },
      });
      expect((await send(sb.url, 'POST', '/sandbox/users', host)).status).toBe(403);
    }
    expect(await offset()).toBe(before);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST`, `[::1]:${port}`, '127.0.0.2']) {
      expect((await send(sb.url, 'GET', '/sandbox', host)).status, host).toBe(200);
    }
  });

  it('listening beyond loopback (--host 0.0.0.0, said on stderr), answers any Host', async () => {
    const open = await startSandbox({ port: 0, host: '0.0.0.0' });
    try {
      const base = `http://127.0.0.1:${new URL(open.url).port}`;
      expect((await send(base, 'GET', '/sandbox', 'build-01.lan:8787')).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
