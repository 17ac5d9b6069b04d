/**
 * Every wait and every answer is bounded. A 429 with a Retry-After past Node's timer
 * limit (24.8 days) is waited as one hour, and said so, in the client and in the TUI (request
 * count over 10 s); a body past 32 MiB is refused as `invalid_response` whether its length is
 * declared or not; `keys list` prints 150,000 keys.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { MAX_RESPONSE_BYTES } from '../../src/api/http.js';
import { MAX_RETRY_AFTER_MS, parseRetryAfterMs } from '../../src/api/retry.js';
import { makeTempHome, runCli } from '../credentials/harness.js';
import { noKeychainStore, readySession, renderApp, testServices } from '../tui/harness.js';
import { json, useHostileServers } from './hostile-server.js';

const TOKEN = 'mk_boundstest0123456789';
// The tests run concurrently (the TUI's waits beside the large bodies), each with its own server.
const serve = useHostileServers();

describe.concurrent('Retry-After', () => {
  it('is at most an hour, however long the service asks', () => {
    expect(parseRetryAfterMs('2592000')).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfterMs('99999999999999999999')).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfterMs(new Date(Date.now() + 40 * 86_400_000).toUTCString())).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfterMs('120')).toBe(120_000);
  });

  it('a 30-day Retry-After: the client says it waits the longest it waits, and does not retry at once', async () => {
    const server = await serve((_req, res) => json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '2592000' }));
    // A wait past any deadline is said at once, whatever the deadline: a generous one, so that a
    // busy machine's slow loopback answer is not taken for the service not answering.
    const client = new KeydeckClient({ baseUrl: server.url, token: TOKEN, timeoutMs: 15_000 });
    const error = await client.billing.credits().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: MAX_RETRY_AFTER_MS });
    expect((error as Error).message).toContain('60 min (the longest keydeck waits)');
    expect(server.requests).toHaveLength(1);
  });

  it('the TUI sends its first reads against a 30-day Retry-After, then nothing for 5 s at a 2 s poll', async () => {
    const limiting = await serve((_req, res) => json(res, 429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'retry-after': '2592000' }));
    const s = noKeychainStore();
    const ui = renderApp(testServices({ store: s.store, baseUrl: limiting.url, target: 'live', pollIntervalSeconds: 2 }), {
      session: readySession(limiting.url, TOKEN),
      columns: 100,
      rows: 30,
    });
    await ui.waitFor(/retrying|too many requests|rate/i);
    // The first wave (both lists, plans, status, the balance) has gone out; then, against a
    // 30-day Retry-After, nothing more: a 2 s poll that ignored it would have asked twice by 5 s.
    await vi.waitFor(() => expect(limiting.requests.map((q) => q.path)).toContain('/api/billing/credits'), { timeout: 5000 });
    await new Promise((r) => setTimeout(r, 1000));
    const firstWave = limiting.requests.length;
    await new Promise((r) => setTimeout(r, 5000));
    expect(limiting.requests.length).toBe(firstWave);
    // One read of each list and of the balance, perhaps one reload after the first failure: never a storm.
    expect(limiting.requests.length).toBeLessThanOrEqual(8);
    ui.unmount();
  }, 30_000);
});

/** 33 MiB of spaces, gzipped (~33 KB), made once for both transports (compressing it takes ~0.5 s). */
let bomb: Buffer | undefined;
const gzipBomb = (): Buffer => (bomb ??= gzipSync(Buffer.alloc(MAX_RESPONSE_BYTES + 1024 * 1024, 0x20)));

// Over both transports of the client (src/api/http.ts, got; src/api/nodeHttp.ts, Node's own).
describe.concurrent.each(['got', 'node:http'] as const)('response size (over %s)', (transport) => {
  for (const declared of [true, false]) {
    // A few ms of its own, but on the thread its concurrent neighbours keep busy (150,000 keys
    // printed, 33 MiB decoded, got loaded): 5 s at load 14, past vitest's 20 s in a loaded full run.
    // The client's deadline stays under the test's, so a slow answer is said as the client's.
    it(`refuses a body past ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB (${declared ? 'declared' : 'chunked'}) as invalid_response`, { timeout: 60_000 }, async () => {
      const server = await serve((_req, res) => {
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        const total = 40;
        res.writeHead(200, { 'content-type': 'application/json', ...(declared && { 'content-length': String(total * chunk.length) }) });
        let sent = 0;
        const more = (): void => {
          while (sent < total) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        res.on('error', () => undefined);
        more();
      });
      const client = new KeydeckClient({ baseUrl: server.url, token: TOKEN, timeoutMs: 55_000, retries: 0, transport });
      const error = await client.keys.list().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'invalid_response' });
      expect((error as Error).message).toContain('larger than 32 MB');
    });
  }

  it(`refuses a gzip answer that decodes past ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB as invalid_response`, { timeout: 60_000 }, async () => {
    // 33 MiB of spaces in about 33 KB on the wire: the cap counts what the answer decodes to.
    const bomb = gzipBomb();
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    });
    // Decoding 32 MiB takes a second here, many under a load of 30: the deadline is not what is tested.
    const client = new KeydeckClient({ baseUrl: server.url, token: TOKEN, timeoutMs: 55_000, retries: 0, transport });
    const error = await client.keys.list().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect((error as Error).message).toContain('larger than 32 MB');
  });
});

describe.concurrent('many keys', () => {
  it('keys list prints 150,000 keys (no stack overflow)', async () => {
    const keys = Array.from({ length: 150_000 }, (_, i) => ({
      id: `k_${i}`,
      name: `key-${i}`,
      keyPlan: 'credits',
      keyType: 'credit',
      isActive: true,
      createdAt: '2026-01-01T00:00:00Z',
    }));
    const body = JSON.stringify(keys);
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    const home = makeTempHome();
    try {
      // A generous limit: 150,000 rows take a few seconds, more on a loaded machine.
      const r = await runCli(['keys', 'list'], {
        env: home.env({ KEYDECK_BASE_URL: server.url, KEYDECK_TOKEN: TOKEN, KEYDECK_TIMEOUT_MS: '60000' }),
        timeoutMs: 90_000,
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(150_001);
      expect(lines.at(-1)).toMatch(/^k_149999 +key-149999 +credit/);
    } finally {
      home.remove();
    }
  }, 120_000);
});
