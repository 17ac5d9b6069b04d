/**
 * One account's metrics as Prometheus reads them when the service fails: an HTTP 5xx is
 * `keydeck_up{reason="server_error"} 0`, not `unreachable` (a refused connection), and an outage
 * keeps its start in `keydeck_down_since_timestamp_seconds` whatever its reasons since, so the
 * ProfileDown rule counts from the outage's start; the client is the real one over HTTP against a
 * hostile server on loopback.
 */
import { describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { AccountMetrics } from '../../src/metrics/account.js';
import { useHostileServers } from '../api/hostile-server.js';
import { sample } from '../exporter/rig.js';

const hostile = useHostileServers();

async function failureOf(client: KeydeckClient): Promise<unknown> {
  try {
    await client.billing.credits();
  } catch (error) {
    return error;
  }
  throw new Error('the read did not fail');
}

describe('keydeck_up reasons and the outage start', () => {
  it('a 500 is server_error, a refused connection unreachable; the outage keeps its start across reasons', async () => {
    const server = await hostile((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"code":"internal","message":"boom"}}'));
    let now = 1_700_000_000_000;
    const account = new AccountMetrics({ profile: 'p', origin: server.url, now: () => now });
    const client = new KeydeckClient({ baseUrl: server.url, token: 'mk_test_0123456789abcdef0123456789abcdef', retries: 0, timeoutMs: 2000 });
    account.failure(await failureOf(client));
    client.close();
    let text = await account.scrape();
    expect(text).toContain(`keydeck_up{profile="p",origin="${server.url}",reason="server_error"} 0`);
    expect(sample(text, 'keydeck_down_since_timestamp_seconds', { reason: 'server_error' })).toBe(1_700_000_000);

    // Five minutes later the port refuses connections: unreachable now, the outage's start kept.
    await server.close();
    now += 300_000;
    const refused = new KeydeckClient({ baseUrl: server.url, token: 'mk_test_0123456789abcdef0123456789abcdef', retries: 0, timeoutMs: 2000 });
    account.failure(await failureOf(refused));
    refused.close();
    text = await account.scrape();
    expect(text).toContain(`keydeck_up{profile="p",origin="${server.url}",reason="unreachable"} 0`);
    expect(text).not.toContain('reason="server_error"');
    expect(sample(text, 'keydeck_down_since_timestamp_seconds', { reason: 'unreachable' })).toBe(1_700_000_000);

    // Read again: up, and no outage start any more.
    account.reading({ remaining: 10, totalTopUp: 20 } as never, now + 60_000);
    text = await account.scrape();
    expect(sample(text, 'keydeck_up', { profile: 'p' })).toBe(1);
    expect(sample(text, 'keydeck_down_since_timestamp_seconds', { profile: 'p' })).toBeUndefined();
  });
});
