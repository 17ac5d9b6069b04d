/**
 * The usage read budget: the pure rules (12 per 12 hours, the schedule's spacing and
 * reserve, a 429's wait), the shared record across connections (claims on the service's clock,
 * answers kept with their time, the token never stored), reads through it against the sandbox
 * (a failure keeps the last figures, a 429 is honoured), and real processes at once against a
 * sandbox that counts: never more than 12.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleFixture } from './fixtures/bundle.js';
import { KeydeckClient } from '../../src/api/client.js';
import { BalanceHistoryStore, originOf } from '../../src/billing/historyStore.js';
import { AUTO_SPACING_MS, budgetState, credentialIdOf, UsageBudget, WINDOW_MS } from '../../src/billing/usageBudget.js';
import { keptUsageList, LIST_AS_READ, readUsageList } from '../../src/billing/usageReads.js';
import { UsageTracker } from '../../src/billing/usageTracker.js';
import { startTestSandbox } from '../sandbox/helpers.js';
import { json, startHostileServer } from '../api/hostile-server.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-budget-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the rules', () => {
  it('allows 12 reads in any 12 hours, the next when the oldest leaves the window', () => {
    const calls = Array.from({ length: 12 }, (_, i) => T0 + i * MIN);
    const s = budgetState(calls, undefined, T0 + 20 * MIN);
    expect(s).toMatchObject({ used: 12, left: 0, nextAt: T0 + WINDOW_MS, lastAt: T0 + 11 * MIN });
    expect(budgetState(calls, undefined, T0 + WINDOW_MS + 1)).toMatchObject({ used: 11, left: 1 });
  });

  it('spaces the schedule’s reads 72 minutes apart and keeps two reads for the user', () => {
    expect(AUTO_SPACING_MS).toBe(72 * MIN);
    const one = budgetState([T0], undefined, T0 + 10 * MIN);
    expect(one).toMatchObject({ left: 11, nextAt: T0 + 10 * MIN, nextAutoAt: T0 + 72 * MIN });
    const ten = Array.from({ length: 10 }, (_, i) => T0 + i * 72 * MIN);
    const s = budgetState(ten, undefined, T0 + 700 * MIN);
    expect(s.left).toBe(2);
    expect(s.nextAt).toBe(s.now);
    expect(s.nextAutoAt).toBe(T0 + WINDOW_MS);
  });

  it('waits out a 429 and forgets calls from a clock that went back', () => {
    expect(budgetState([], T0 + HOUR, T0)).toMatchObject({ left: 12, nextAt: T0 + HOUR, nextAutoAt: T0 + HOUR, blockedUntil: T0 + HOUR });
    expect(budgetState([T0 + 5 * HOUR], undefined, T0)).toMatchObject({ used: 0 });
  });
});

describe('the shared record', () => {
  it('claims on the service’s clock, records before the call, and keeps answers with their time; never the token', () => {
    let local = T0;
    const file = path.join(dir, 'history.db');
    const a = BalanceHistoryStore.open({ path: file });
    const b = BalanceHistoryStore.open({ path: file });
    const one = new UsageBudget(a.database, { clock: () => local });
    const two = new UsageBudget(b.database, { clock: () => local });
    const token = 'mk_SECRETSECRETSECRET0123456789';
    const cred = credentialIdOf('https://api.example.com', token);
    // The service runs 2 h ahead; the second process learns it from the record.
    expect(one.now('https://api.example.com', 2 * HOUR)).toBe(T0 + 2 * HOUR);
    expect(two.now('https://api.example.com')).toBe(T0 + 2 * HOUR);
    const now = T0 + 2 * HOUR;
    expect(one.claim(cred, 'auto', 'list', now)).toMatchObject({ granted: true, state: { used: 1 } });
    expect(two.claim(cred, 'auto', 'list', now + MIN)).toMatchObject({ granted: false, reason: 'recent' });
    for (let i = 0; i < 11; i++) expect(two.claim(cred, 'demand', 'list', now + MIN).granted).toBe(true);
    expect(one.claim(cred, 'demand', 'list', now + 2 * MIN)).toMatchObject({ granted: false, reason: 'exhausted', state: { left: 0, nextAt: now + WINDOW_MS } });
    one.keep(cred, 'list', now, [{ id: 'k', usage: { '24h': 1 } }]);
    expect(two.kept(cred, 'list')).toEqual({ t: now, body: [{ id: 'k', usage: { '24h': 1 } }] });
    two.keep(cred, 'list', now - HOUR, []);
    expect(one.kept(cred, 'list')?.t).toBe(now);
    expect(one.rateLimited(cred, 'https://api.example.com', 30 * MIN, now)).toMatchObject({ blockedUntil: now + 30 * MIN });
    local += 1;
    a.close();
    b.close();
    expect(readFileSync(file).includes(token)).toBe(false);
  });
});

describe('the limit learnt to be the account’s', () => {
  const origin = 'https://api.example.com';
  const credA = credentialIdOf(origin, 'mk_AAAAAAAAAAAAAAAAAAAAAAAA');
  const credB = credentialIdOf(origin, 'mk_BBBBBBBBBBBBBBBBBBBBBBBB');
  const credC = credentialIdOf(origin, 'mk_CCCCCCCCCCCCCCCCCCCCCCCC');

  it('counts every linked credential’s reads together once a 429 taught it, and their 429 waits too', () => {
    const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
    try {
      const budget = new UsageBudget(store.database, { clock: () => T0 });
      for (let i = 0; i < 5; i++) expect(budget.claim(credA, 'demand', 'list', T0 + i * MIN).granted).toBe(true);
      for (let i = 0; i < 4; i++) expect(budget.claim(credB, 'demand', 'list', T0 + i * MIN).granted).toBe(true);
      // Per credential until learnt: 7 and 8 left.
      expect(budget.state(credA, T0 + 10 * MIN)).toMatchObject({ used: 5, left: 7 });
      expect(budget.state(credA, T0 + 10 * MIN).shared).toBeUndefined();
      expect(budget.learnShared(credA, origin, T0 + 10 * MIN)).toBe(false); // not linked: nothing learnt
      budget.link(credA, origin, 'user-1', T0 + 10 * MIN);
      budget.link(credB, origin, 'user-1', T0 + 10 * MIN);
      expect(budget.sharedAt(origin)).toBe(false);
      expect(budget.learnShared(credA, origin, T0 + 10 * MIN)).toBe(true);
      expect(budget.sharedAt(origin)).toBe(true);
      expect(budget.state(credA, T0 + 10 * MIN)).toMatchObject({ used: 9, left: 3, shared: true });
      expect(budget.state(credB, T0 + 10 * MIN)).toMatchObject({ used: 9, left: 3, shared: true });
      // A read of one is a read of the other; so is a 429's wait.
      expect(budget.claim(credB, 'demand', 'list', T0 + 11 * MIN).granted).toBe(true);
      expect(budget.state(credA, T0 + 11 * MIN)).toMatchObject({ used: 10 });
      budget.rateLimited(credA, origin, 20 * MIN, T0 + 12 * MIN);
      expect(budget.claim(credB, 'demand', 'list', T0 + 13 * MIN)).toMatchObject({ granted: false, reason: 'blocked' });
      // A credential of the account linked later joins with its own reads of the window.
      budget.claim(credC, 'demand', 'list', T0 + 5 * MIN);
      expect(budget.state(credC, T0 + 40 * MIN)).toMatchObject({ used: 1, left: 11 });
      budget.link(credC, origin, 'user-1', T0 + 40 * MIN);
      expect(budget.state(credC, T0 + 40 * MIN)).toMatchObject({ used: 11, left: 1, shared: true });
      // Another account at the same origin keeps its own.
      const other = credentialIdOf(origin, 'mk_DDDDDDDDDDDDDDDDDDDDDDDD');
      budget.link(other, origin, 'user-2', T0);
      expect(budget.state(other, T0 + 40 * MIN)).toMatchObject({ used: 0, left: 12 });
    } finally {
      store.close();
    }
  });

  it('an unmetered read (key-info’s GET /v1/usage) counts nothing, and waits only for the service’s own 429', () => {
    const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
    try {
      const budget = new UsageBudget(store.database);
      for (let i = 0; i < 20; i++) expect(budget.claim(credA, 'demand', 'self', T0 + i, false).granted).toBe(true);
      expect(budget.state(credA, T0 + MIN)).toMatchObject({ used: 0, left: 12 });
      expect(budget.rateLimited(credA, origin, undefined, T0 + MIN, false)).toMatchObject({ blockedUntil: T0 + 2 * MIN });
      expect(budget.claim(credA, 'demand', 'self', T0 + MIN + 1, false)).toMatchObject({ granted: false, reason: 'blocked' });
      expect(budget.rateLimited(credA, origin, 5_000, T0 + 2 * MIN, false)).toMatchObject({ blockedUntil: T0 + 2 * MIN + 5_000 });
      expect(budget.claim(credA, 'demand', 'self', T0 + 2 * MIN + 5_000, false).granted).toBe(true);
    } finally {
      store.close();
    }
  });

  it('learns it from the service: a 429 to the first read; another credential of the account then sends no read until the wait is over', async () => {
    let usageReads = 0;
    const server = await startHostileServer((req, res) => {
      if (req.path === '/api/billing/credits') return json(res, 200, { success: true, data: { totalTopUp: 10, remaining: 10, hasCreditKey: true, creditKeyCount: 1, userId: 'user-1' } });
      if (req.path.startsWith('/api/usage')) {
        usageReads++;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '600' }).end(JSON.stringify({ error: 'Rate limited to 12 requests per 12 hours' }));
        return;
      }
      json(res, 404, { error: 'not found' });
    });
    const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
    const a = new KeydeckClient({ baseUrl: server.url, token: 'mk_AAAAAAAAAAAAAAAAAAAAAAAA' });
    const b = new KeydeckClient({ baseUrl: server.url, token: 'mk_BBBBBBBBBBBBBBBBBBBBBBBB' });
    try {
      const o = originOf(server.url);
      const budget = new UsageBudget(store.database);
      const first = await readUsageList(a, { budget, credential: credentialIdOf(o, 'mk_AAAAAAAAAAAAAAAAAAAAAAAA'), origin: o, mode: 'demand' });
      expect(first).toMatchObject({ fresh: false, error: { code: 'rate_limited' }, budget: { shared: true } });
      expect(first.budget.blockedUntil! - first.budget.now).toBeGreaterThan(9 * MIN);
      const second = await readUsageList(b, { budget, credential: credentialIdOf(o, 'mk_BBBBBBBBBBBBBBBBBBBBBBBB'), origin: o, mode: 'demand' });
      expect(second).toMatchObject({ fresh: false, declined: 'blocked', budget: { shared: true } });
      expect(usageReads).toBe(1);
      // B asked the balance record once to know its account.
      expect(server.requests.filter((r) => r.path === '/api/billing/credits' && r.headers.authorization === 'Bearer mk_BBBBBBBBBBBBBBBBBBBBBBBB')).toHaveLength(1);
    } finally {
      a.close();
      b.close();
      store.close();
      await server.close();
    }
  });
});

describe('reads through the budget, against the sandbox', () => {
  it('spends a read, keeps the figures; declines past the budget with the kept figures and their age; honours a 429', async () => {
    const sb = await startTestSandbox();
    const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
    try {
      const token = await sb.fundedUser(20);
      const key = await sb.creditKey(token, 'k');
      await sb.infer(key.apiKey, { sandbox_cost_usd: 1.5 });
      const client = new KeydeckClient({ baseUrl: sb.url, token });
      const origin = originOf(sb.url);
      const credential = credentialIdOf(origin, token);
      const budget = new UsageBudget(store.database);
      const first = await readUsageList(client, { budget, credential, origin, mode: 'auto' });
      expect(first).toMatchObject({ fresh: true, budget: { used: 1, left: 11 } });
      expect(first.data!.keys[0]!.periods['24h']!.spend).toBe(1.5);
      const second = await readUsageList(client, { budget, credential, origin, mode: 'auto' });
      expect(second).toMatchObject({ fresh: false, declined: 'recent', at: first.at });
      expect(second.data!.keys[0]!.periods['24h']!.spend).toBe(1.5);
      // Another client (a browser, another machine) spends the rest behind keydeck's back.
      for (let i = 0; i < 11; i++) await sb.call('GET', '/api/usage', { token });
      const refused = await readUsageList(client, { budget, credential, origin, mode: 'demand' });
      expect(refused).toMatchObject({ fresh: false, error: { code: 'rate_limited' }, at: first.at });
      // The sandbox asks for almost 12 h; the client bounds any Retry-After at one hour
      // (src/api/retry.ts), so the record's own window (its last read + 12 h) decides.
      expect(refused.budget.blockedUntil).toBeGreaterThan(refused.budget.now + 11 * HOUR);
      const after = await readUsageList(client, { budget, credential, origin, mode: 'demand' });
      expect(after).toMatchObject({ fresh: false, declined: 'blocked' });
      expect((await sb.call('GET', '/sandbox/usage/calls')).body).toMatchObject({ served: 12, refused: 1 });
      client.close();
    } finally {
      store.close();
      await sb.close();
    }
  });
});

describe('the last answer kept, and the same figures as read beside it', () => {
  it('reads back the figures as read (the service’s answer, kept as before, read in full only when they are not of its read)', async () => {
    const sb = await startTestSandbox();
    const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
    try {
      const token = await sb.fundedUser(20);
      const big = await sb.creditKey(token, 'batch-jobs');
      const small = await sb.creditKey(token, 'web');
      await sb.infer(big.apiKey, { sandbox_cost_usd: 3 });
      await sb.infer(small.apiKey, { sandbox_cost_usd: 0.5 });
      const client = new KeydeckClient({ baseUrl: sb.url, token });
      const origin = originOf(sb.url);
      const credential = credentialIdOf(origin, token);
      const budget = new UsageBudget(store.database);
      const read = await readUsageList(client, { budget, credential, origin, mode: 'demand' });
      client.close();
      expect(read.fresh).toBe(true);
      // The service's answer is kept as it was (what every keydeck reads), and the figures as read beside it, of the same read.
      expect(budget.kept(credential, 'list')).toEqual({ t: read.at, body: read.data!.raw });
      expect(budget.keptAt(credential, LIST_AS_READ)).toBe(read.at);
      const { raw: _raw, ...figures } = read.data!;
      expect(keptUsageList(budget, credential)).toEqual({ at: read.at, data: { ...figures, raw: undefined } });
      // A tracker starts from them: the same figures, no read spent.
      const tracker = new UsageTracker({
        client: { usage: { list: () => Promise.reject(new Error('no read')), get: () => Promise.reject(new Error('no read')), keyInfo: () => Promise.reject(new Error('no read')) } },
        budget,
        credential,
        origin,
      });
      expect(tracker.load()).toMatchObject({ at: read.at, report: { keys: figures.keys, periods: figures.periods } });
      // They are what is read back: with the service's answer of that read made unreadable, the figures still come from them.
      const setBody = store.database.prepare('UPDATE usage_answers SET body = ? WHERE credential = ? AND kind = ?');
      const listBody = (store.database.prepare('SELECT body FROM usage_answers WHERE credential = ? AND kind = ?').get(credential, 'list') as { body: string }).body;
      setBody.run('"damaged"', credential, 'list');
      expect(
        keptUsageList(budget, credential)
          ?.data.keys.map((k) => k.periods['24h']?.spend)
          .sort(),
      ).toEqual([0.5, 3]);
      setBody.run(listBody, credential, 'list');
      // Figures as read that cannot be read: the service's answer, read in full.
      setBody.run('{"id":[1]}', credential, LIST_AS_READ);
      expect(keptUsageList(budget, credential)).toEqual({ at: read.at, data: read.data });
      // A later answer kept by a keydeck that keeps only the service's answer: that one, read in full.
      const later = (read.data!.raw as Array<Record<string, unknown>>).map((k) => (k.id === big.id ? { ...k, usage: { '24h': { spend: 7 } } } : k));
      budget.keep(credential, 'list', read.at! + 60_000, later);
      const taken = keptUsageList(budget, credential);
      expect(taken?.at).toBe(read.at! + 60_000);
      expect(taken?.data.keys.find((k) => k.id === big.id)?.periods['24h']?.spend).toBe(7);
      expect(taken?.data.raw).toEqual(later);
    } finally {
      store.close();
      await sb.close();
    }
  });

  it('another process that knows only the service’s answer reads what this one kept, and this one reads what it kept', { timeout: 60_000 }, async () => {
    const script = await bundleFixture(new URL('./fixtures/usage-kept.ts', import.meta.url), dir);
    const run = promisify(execFile);
    const other = async (...args: string[]) => (await run(process.execPath, [script, file, credential, ...args], { timeout: 30_000 })).stdout;
    const sb = await startTestSandbox();
    const file = path.join(dir, 'history.db');
    const store = BalanceHistoryStore.open({ path: file });
    const token = await sb.fundedUser(20);
    const origin = originOf(sb.url);
    const credential = credentialIdOf(origin, token);
    try {
      const key = await sb.creditKey(token, 'batch-jobs');
      await sb.infer(key.apiKey, { sandbox_cost_usd: 2.25 });
      const client = new KeydeckClient({ baseUrl: sb.url, token });
      const budget = new UsageBudget(store.database);
      const read = await readUsageList(client, { budget, credential, origin, mode: 'demand' });
      client.close();
      expect(read.fresh).toBe(true);
      // The other process reads the answer this one kept, as it always has.
      expect(JSON.parse(await other('read'))).toEqual({ at: read.at, spend: Object.fromEntries(read.data!.keys.map((k) => [k.id, k.periods['24h']?.spend])) });
      // It keeps a later answer (only in the service's form): this process takes that one up.
      const later = (read.data!.raw as Array<Record<string, unknown>>).map((k) => (k.id === key.id ? { ...k, usage: { '24h': { spend: 4.5 } } } : k));
      await other('keep', String(read.at! + 60_000), JSON.stringify(later));
      const taken = keptUsageList(budget, credential);
      expect(taken?.at).toBe(read.at! + 60_000);
      expect(taken?.data.keys.find((k) => k.id === key.id)?.periods['24h']?.spend).toBe(4.5);
    } finally {
      store.close();
      await sb.close();
    }
  });
});

describe('real processes at once', () => {
  it('three processes asking for 10 reads each make 12 calls in all, counted by the sandbox', { timeout: 60_000 }, async () => {
    const script = await bundleFixture(new URL('./fixtures/usage-reader.ts', import.meta.url), dir);
    const sb = await startTestSandbox();
    try {
      const token = await sb.newUser();
      const file = path.join(dir, 'history.db');
      const startAt = String(Date.now() + 1500);
      const run = promisify(execFile);
      const results = await Promise.all(
        ['demand', 'demand', 'auto'].map((mode) =>
          run(process.execPath, [script, file, sb.url, token, mode, '10', startAt], { timeout: 50_000, cwd: fileURLToPath(new URL('../..', import.meta.url)) }),
        ),
      );
      const tallies = results.map((r) => JSON.parse(r.stdout) as { fresh: number; declined: number; failed: number });
      expect(tallies.reduce((n, t) => n + t.fresh, 0)).toBe(12);
      expect(tallies.reduce((n, t) => n + t.failed, 0)).toBe(0);
      expect((await sb.call('GET', '/sandbox/usage/calls')).body).toMatchObject({ served: 12, refused: 0 });
    } finally {
      await sb.close();
    }
  });
});
