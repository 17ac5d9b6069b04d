/**
 * The commands against a local server answering with the real service's documented example
 * bodies (test/api/docs-examples.ts), as a new user would try them: both generations read, the
 * status summarised (or shown as a tree when its shape is unknown), key values in a list never
 * printed (`--json` included) and said once on stderr, and the card method names taken from the
 * profile's `topUpMethods` (a refusal names that setting).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, newer, newerKeyList, newerStatus, older, olderKeyList, olderStatus } from '../api/docs-examples.js';
import { json, startHostileServer, type HostileServer, type SeenRequest } from '../api/hostile-server.js';
import { scripted, type Scripted } from './scripted.js';

const TOKEN = 'session-token-of-the-dashboard';
let server: HostileServer;
let cli: Scripted;
/** Which generation of the pages the server answers with, and its status body. */
let generation: 'older' | 'newer' = 'older';
let status: unknown = olderStatus;

function answer(req: SeenRequest): unknown {
  const g = generation === 'older' ? older : newer;
  switch (req.path) {
    case '/api/keys':
      return generation === 'older' ? olderKeyList : newerKeyList;
    case '/api/billing/credits':
      return g.credits;
    case '/api/billing/status':
      return status;
    case '/api/billing/verify-topup':
      return g.verified;
    default: {
      const { method } = JSON.parse(req.body) as { method: string };
      if (method === 'usdc') return generation === 'older' ? { ...older.usdc, address: ADDRESS } : { success: true, data: { ...newer.usdc.data, address: ADDRESS } };
      return method === 'stripe' ? g.checkout : undefined;
    }
  }
}

beforeAll(async () => {
  server = await startHostileServer((req, res) => {
    // Not a sandbox: keydeck's probe for a sandbox chain (a loopback service) is 404 here.
    if (req.path === '/sandbox/chain') return json(res, 404, { error: { code: 'not_found', message: 'no such route' } });
    // The pages' error shape: one sentence.
    if (req.path === '/api/keys/credit') return json(res, 400, { error: 'Credit balance must be greater than 0 to create a credit key' });
    const body = answer(req);
    if (body === undefined) json(res, 400, { error: { code: 'invalid_request', message: 'method: unknown top-up method', field: 'method' } });
    else json(res, 200, body);
  });
  cli = scripted(server.url);
});
afterAll(async () => {
  cli?.home.remove();
  await server?.close();
});
afterEach(() => {
  generation = 'older';
  status = olderStatus;
});

describe('keydeck against the documented answers of the real service', () => {
  it('reads both generations: keys list (lastUsedAt where sent) and billing credits (money as strings or numbers)', async () => {
    for (const g of ['older', 'newer'] as const) {
      generation = g;
      const keys = await cli.run(TOKEN, ['keys', 'list']);
      expect(keys.code, keys.stderr).toBe(0);
      expect(keys.stdout).toContain('prod-key');
      expect(keys.stdout.includes('lastUsedAt')).toBe(g === 'newer');
      const credits = await cli.run(TOKEN, ['billing', 'credits']);
      expect(credits.code, credits.stderr).toBe(0);
      expect(credits.stdout).toMatch(/remaining\s+74\.50 USD/);
      expect(credits.stdout).toMatch(/totalTopUp\s+100\.00 USD/);
    }
  });

  it('never prints the key values a list carries, --json included, and says so once on stderr', async () => {
    generation = 'newer';
    for (const args of [
      ['keys', 'list'],
      ['keys', 'list', '--json'],
    ]) {
      const r = await cli.run(TOKEN, args);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain('apiKey');
      expect(r.stdout).not.toContain('sk-...');
      expect(r.stderr.match(/keydeck hid them/g)).toHaveLength(1);
    }
  });

  it('a refusal in the pages’ shape ({ error: "<sentence>" }) reaches the user in the service’s own words', async () => {
    const r = await cli.run(TOKEN, ['keys', 'create', 'ci']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'keydeck: invalid_request: the service refused the request to create the credit key as invalid: “Credit balance must be greater than 0 to create a credit key”; correct it and try again.\n',
    );
  });

  it('summarises the documented billing status, and shows any other shape as a tree', async () => {
    let r = await cli.run(TOKEN, ['billing', 'status']);
    expect(r.stdout).toContain(
      [
        'subscriptions (1)',
        '  pro',
        '    status: active',
        '    period ends: 2026-03-05 10:00 UTC',
        '    cancel at period end: no',
        '    keys: prod-api (2 in all)',
        'pool pledges: none',
        'credit balance: 25.00 USD',
      ].join('\n'),
    );
    status = newerStatus;
    r = await cli.run(TOKEN, ['billing', 'status']);
    expect(r.stdout).toContain(
      [
        'subscriptions: none',
        'pool pledges (1)',
        '  kimi26',
        '    id: pledge_uuid',
        '    status: active',
        '    period ends: 2026-05-23 15:55 UTC',
        '    cancel at period end: yes',
        '    has a key: yes',
      ].join('\n'),
    );
    expect(JSON.parse((await cli.run(TOKEN, ['billing', 'status', '--json'])).stdout)).toMatchObject({ stripeCustomerId: 'cus_xxx', plan: null });
    status = { plan: 'enterprise', limits: { rpm: 600 } };
    r = await cli.run(TOKEN, ['billing', 'status']);
    expect(r.stdout).toMatch(/^plan\s+enterprise$/m);
    expect(r.stdout).toMatch(/^limits\.rpm\s+600$/m);
  });

  it('says when the USDC instruction asks for another amount, and verifies that amount', async () => {
    const r = await cli.run(TOKEN, ['billing', 'topup', '--amount', '50', '--method', 'usdc']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain("The service's instruction asks for 25 USDC, not the 50.00 USD requested: send exactly 25 USDC");
    expect(r.stdout).toContain('keydeck billing verify --tx HASH --amount 25');
    const json = await cli.run(TOKEN, ['billing', 'topup', '--amount', '50', '--method', 'usdc', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ amount: '25' });
    expect(json.stderr).toContain('asks for 25 USDC, not the 50.00 USD requested');
    const verified = await cli.run(TOKEN, ['billing', 'verify', '--tx', `0x${'ab'.repeat(32)}`, '--amount', '25']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(server.requests.at(-1)?.body).toBe(JSON.stringify({ txHash: `0x${'ab'.repeat(32)}`, amount: 25 }));
    // A service on this machine that is not a sandbox with a chain: the chain is not read, and the
    // probe that found out carried no credential.
    expect(verified.stderr).not.toMatch(/chain/);
    const probes = server.requests.filter((r) => r.path === '/sandbox/chain');
    expect(probes.length).toBeGreaterThan(0);
    for (const probe of probes) expect(probe.headers.authorization).toBeUndefined();
  });

  it("sends the profile's card method names; a refusal of the seed's name names the setting", async () => {
    const refused = await cli.run(TOKEN, ['billing', 'topup', '--amount', '50', '--method', 'card_checkout']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/"card_checkout"[\s\S]*topUpMethods\.card_checkout/);
    expect((await cli.run(TOKEN, ['billing', 'topup', '--amount', '50', '--method', 'stripe'])).code).toBe(0);

    mkdirSync(cli.home.configDir, { recursive: true });
    writeFileSync(path.join(cli.home.configDir, 'config.json'), JSON.stringify({ version: 1, profiles: { default: { topUpMethods: { card_checkout: 'stripe', card_direct: 'stripe_direct' } } } }), {
      mode: 0o600,
    });
    const named = await cli.run(TOKEN, ['billing', 'topup', '--amount', '50', '--method', 'card_checkout']);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain('checkout.stripe.com');
    expect(JSON.parse(server.requests.at(-1)!.body)).toEqual({ amount: 50, method: 'stripe' });
  });
});
