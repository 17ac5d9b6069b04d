/**
 * The last line of a read-only profile (src/config/profileMarks.ts, src/api/core.ts): a client
 * built `readOnly` refuses every POST, PUT and DELETE before sending (`read_only`, one sentence
 * naming why), and sends its reads as usual. Against a local server that records each request and
 * would accept anything.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import { json, startHostileServer, type HostileServer } from './hostile-server.js';

const servers: HostileServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('a client built read-only', () => {
  it('sends no POST, PUT or DELETE (each refused with read_only, naming why), and reads as usual', async () => {
    const server = await startHostileServer((req, res) => json(res, 200, req.method === 'GET' ? [] : { success: true }));
    servers.push(server);
    const reason = 'the profile "prod" is read-only (readOnly in /home/me/.config/keydeck/config.json)';
    const client = new KeydeckClient({ baseUrl: server.url, token: 'mk_abcdefgh12345678', retries: 0, timeoutMs: 2000, readOnly: reason });
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['delete the consumption key', () => client.keys.delete('k_1')],
      ['update the key', () => client.keys.update('k_1', { isActive: false })],
      ['create the credit key', () => client.keys.createCredit({ name: 'x' })],
      ['create the management key', () => client.managementKeys.create({ name: 'x' })],
      ['delete the management key', () => client.managementKeys.delete('m_1')],
      ['request the top-up', () => client.billing.topUp({ amount: 10, method: 'card_direct' })],
      ['verify the top-up', () => client.billing.verifyTopUp({ txHash: `0x${'ab'.repeat(32)}`, amount: 10 })],
      ['cancel the subscription', () => client.billing.cancel('sub_1')],
    ];
    for (const [, call] of changes) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(KeydeckApiError);
      expect((error as KeydeckApiError).code).toBe('read_only');
      expect((error as KeydeckApiError).message).toMatch(new RegExp(`^Did not .+: ${reason.replace(/[()/.]/g, '\\$&')}; nothing was sent\\.$`));
    }
    expect(server.requests).toEqual([]);
    // Reads are sent.
    expect(await client.keys.list()).toEqual([]);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/keys']);
    client.close();
  });
});
