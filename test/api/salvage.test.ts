/**
 * A creating answer keydeck cannot fully read still holds the key (src/api/salvage.ts):
 * the client's `invalid_response` error carries the value found in any field — an `sk-…` value, a
 * value under another name, in the `{ success, data }` envelope — with the id and name when sent;
 * and the error's message, JSON and inspection never show it. A list answer's key values stay
 * dropped (only a creating answer carries one).
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import { salvagedKeyOf } from '../../src/api/salvage.js';
import { json, useHostileServers } from './hostile-server.js';

const start = useHostileServers();
const VALUE = 'sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD';

/** The rejection of `createCredit` against a server that answers `body` (200). */
async function createAgainst(body: unknown): Promise<unknown> {
  const server = await start((_req, res) => json(res, 200, body));
  const client = new KeydeckClient({ baseUrl: server.url, token: 'mk_testtesttest', retries: 0 });
  return client.keys.createCredit({ name: 'web' }).then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe.concurrent('a creating answer that cannot be fully read', () => {
  it('carries an sk- value, its id and name, when keyType, isActive and createdAt are missing', async () => {
    const err = await createAgainst({ success: true, data: { id: 'k1', name: 'web', apiKey: VALUE } });
    expect(err).toBeInstanceOf(KeydeckApiError);
    expect((err as KeydeckApiError).code).toBe('invalid_response');
    expect(salvagedKeyOf(err)).toEqual({ apiKey: VALUE, field: 'data.apiKey', id: 'k1', name: 'web' });
    expect((err as Error).message).not.toContain(VALUE);
    expect(JSON.stringify(err)).not.toContain(VALUE);
    expect(inspect(err, { depth: 5 })).not.toContain(VALUE);
  });

  it('finds the value under another field name, and carries nothing when the answer holds none', async () => {
    const renamed = await createAgainst({ id: 'k2', secret: { value: VALUE.replace('sk-', 'sk_') } });
    expect(salvagedKeyOf(renamed)).toMatchObject({ apiKey: VALUE.replace('sk-', 'sk_'), field: 'secret.value', id: 'k2' });
    const none = await createAgainst({ id: 'k3', name: 'web' });
    expect((none as KeydeckApiError).code).toBe('invalid_response');
    expect(salvagedKeyOf(none)).toBeUndefined();
  });
});
