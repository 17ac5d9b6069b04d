/**
 * `keydeck exporter` as its users run it: the built CLI in a new session with no
 * terminal (setsid, stdin /dev/null), watching profiles of a config file against sandboxes on
 * loopback. It serves each profile's figures with `profile` and `origin` labels (promtool finds
 * nothing), loads no Ink or React, never writes a secret, takes up a SIGHUP (profiles added and
 * removed; a config edited to nonsense refused and the last good one kept), stops cleanly on
 * SIGTERM, exits 2 with one line when its port is taken, keeps a slow service from delaying
 * another profile or a scrape, and shares history.db with another process writing it.
 */
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { BalanceHistoryStore } from '../../src/billing/historyStore.js';
import { KeyHistory } from '../../src/billing/keyHistory.js';
import { credentialIdOf, UsageBudget } from '../../src/billing/usageBudget.js';
import { UsageTracker } from '../../src/billing/usageTracker.js';
import { FULL_KEY, runCli, type TempHome } from '../credentials/harness.js';
import { promtoolCheckMetrics, skipUnless } from '../metrics/parts.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { exporterHome, killAll, sample, startExporter, until, writeConfig, managementKey } from './rig.js';

const hasPromtool = skipUnless('promtool') === undefined;
let a: TestSandbox;
let b: TestSandbox;
const homes: TempHome[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startTestSandbox({ host: '127.0.0.1' }), startTestSandbox({ host: '127.0.0.1' })]);
});
afterAll(async () => {
  killAll();
  await Promise.all([a?.close(), b?.close()]);
  for (const h of homes) h.remove();
});

function home(): TempHome {
  const h = exporterHome();
  homes.push(h);
  return h;
}

// The tests run at once (but the last, which times scrapes): each mostly waits for its exporter's
// 2 s polls, with a home, an account and an exporter of its own. Each wait is for its event (the
// `listening` line, a poll seen in a scrape, a log line, the exit), each with `until`'s 15 s; a
// test's budget covers four of them: under load a test's exporter starts beside five others on two
// cores (the deleted key's and the shared history's, at 30 s, ran past it in a loaded full run).
const WAITS_OF_A_TEST_MS = 60_000;
describe.concurrent('keydeck exporter', () => {
  it('watches profiles with no terminal: figures by profile and origin, no Ink or React, no secret, SIGHUP, SIGTERM', { timeout: 60_000 }, async () => {
    const h = home();
    const prod = await managementKey(a, 25);
    const dev = await managementKey(b, 40);
    await b.creditKey(dev.session, 'worker');
    writeConfig(h, { prod: { baseUrl: a.url, alertBelowUsd: 5 }, dev: { baseUrl: b.url }, nokey: { baseUrl: a.url } });
    const tokenFile = path.join(h.home, 'dev.token');
    writeFileSync(tokenFile, `${dev.token}\n`, { mode: 0o600 });
    // Every module the process loads, listed by a module hook (ESM and require alike).
    const loaded = path.join(h.home, 'loaded.txt');
    const hook = path.join(h.home, 'hook.mjs');
    writeFileSync(
      hook,
      `import { registerHooks } from 'node:module'; import { appendFileSync } from 'node:fs';
registerHooks({ load(url, context, next) { appendFileSync(${JSON.stringify(loaded)}, url + '\\n'); return next(url, context); } });`,
    );
    const exporter = await startExporter(h, ['--all-profiles', '--listen', '127.0.0.1:0', '--interval', '2', '--token-file', `dev=${tokenFile}`], { KEYDECK_TOKEN_PROD: prod.token }, [
      '--import',
      hook,
    ]);

    const origin = (url: string) => new URL(url).origin;
    let text = await until(async () => {
      const t = await exporter.scrape();
      const polled = sample(t, 'keydeck_active_keys', { profile: 'dev', key_type: 'credit' }) === 1 && sample(t, 'keydeck_up', { profile: 'prod' }) === 1;
      // keydeck_up is served from the first scrape ("not_yet_polled"): wait for nokey's own poll.
      return polled && t.includes('keydeck_up{profile="nokey",') && t.includes('reason="credential_missing"') ? t : undefined;
    }, 'both profiles polled');
    expect(sample(text, 'keydeck_balance_remaining_usd', { profile: 'prod', origin: origin(a.url) })).toBe((await a.credits(prod.session)).remaining);
    expect(sample(text, 'keydeck_balance_remaining_usd', { profile: 'dev', origin: origin(b.url) })).toBe(40);
    expect(sample(text, 'keydeck_balance_alert_below_usd', { profile: 'prod' })).toBe(5);
    expect(sample(text, 'keydeck_up', { profile: 'prod' })).toBe(1);
    expect(text).toContain(`keydeck_up{profile="nokey",origin="${origin(a.url)}",reason="credential_missing"} 0`);
    expect(text).toMatch(/^keydeck_build_info\{version="\d+\.\d+\.\d+[^"]*",node_version="v\d+/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    if (hasPromtool) expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
    expect(await (await fetch(exporter.url.replace('/metrics', '/healthz'))).text()).toBe('ok: 3 profiles watched, 2 up or not yet polled\n');
    expect((await fetch(exporter.url.replace('/metrics', '/nothing'))).status).toBe(404);
    expect((await fetch(exporter.url, { method: 'POST' })).status).toBe(405);
    await exporter.waitForLog(/event=profile_down profile=nokey .*reason=credential_missing .*KEYDECK_TOKEN_NOKEY/);

    // No Ink, no React: none of the loaded chunks of the bundle holds them (the one that does is never read).
    const chunks = [
      ...new Set(
        readFileSync(loaded, 'utf8')
          .split('\n')
          .filter((u) => /\/dist\/.*\.js$/.test(u)),
      ),
    ];
    expect(chunks.length).toBeGreaterThan(2);
    for (const url of chunks) {
      const code = readFileSync(new URL(url), 'utf8');
      expect(code, url).not.toContain('react.transitional.element');
      expect(code, url).not.toContain('yoga');
    }

    // SIGHUP with a config edited to nonsense: refused with the reason, the last good one kept.
    writeConfig(h, {}, '{"version": 1, "profiles": {');
    exporter.signal('SIGHUP');
    await exporter.waitForLog(/level=error event=config_rejected msg=".*is not valid JSON.*The last good config stays in use\."/);
    text = await exporter.scrape();
    expect(sample(text, 'keydeck_up', { profile: 'prod' })).toBe(1);
    // A good one again: a profile added, one removed (its series gone), one changed (its threshold).
    writeConfig(h, { prod: { baseUrl: a.url, alertBelowUsd: 7 }, dev: { baseUrl: b.url }, third: { baseUrl: b.url } });
    exporter.signal('SIGHUP');
    await exporter.waitForLog(/event=config_reloaded profiles=3 added=third removed=nokey/);
    text = await until(async () => {
      const t = await exporter.scrape();
      return sample(t, 'keydeck_up', { profile: 'third' }) === 0 ? t : undefined;
    }, 'the added profile polled');
    expect(text).not.toContain('profile="nokey"');
    expect(sample(text, 'keydeck_balance_alert_below_usd', { profile: 'prod' })).toBe(7);

    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
    expect(exporter.stderr()).toMatch(/event=stopped\n$/);
    expect(exporter.stdout()).toBe('');
    for (const secret of [prod.token, dev.token, prod.session, dev.session]) expect(exporter.stderr()).not.toContain(secret);
    expect(exporter.stderr()).not.toMatch(FULL_KEY);
    // Every line is one event in logfmt.
    for (const line of exporter.stderr().trimEnd().split('\n')) expect(line).toMatch(/^time=\S+ level=(info|warn|error) event=[a-z_]+( |$)/);
  });

  it('a deleted key is keydeck_up 0 credential_rejected, said once in JSON lines; a port in use exits 2 with one line', { timeout: WAITS_OF_A_TEST_MS }, async () => {
    const h = home();
    const prod = await managementKey(a, 10);
    writeConfig(h, { prod: { baseUrl: a.url } });
    const exporter = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2', '--log-format', 'json'], { KEYDECK_TOKEN_PROD: prod.token });
    await until(async () => sample(await exporter.scrape(), 'keydeck_up', { profile: 'prod' }) === 1, 'the profile up');
    expect((await a.call('DELETE', `/api/keys/management/${prod.id}`, { token: prod.session })).status).toBe(200);
    await until(async () => (await exporter.scrape()).includes('keydeck_up{profile="prod",origin="' + new URL(a.url).origin + '",reason="credential_rejected"} 0'), 'the profile down');
    const down = JSON.parse(await exporter.waitForLog(/"event":"profile_down"/)) as Record<string, unknown>;
    expect(down).toMatchObject({ level: 'warn', profile: 'prod', reason: 'credential_rejected', code: 'unauthorized' });
    // The same port again: one line, exit 2, nothing else.
    const port = new URL(exporter.url).port;
    const taken = await runCli(['exporter', '--listen', `127.0.0.1:${port}`], { env: h.env({ KEYDECK_DATA_DIR: path.join(h.home, 'data') }) });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(
      new RegExp(`^time=\\S+ level=error event=listen_failed msg="cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use \\(another exporter\\?\\); choose another with --listen HOST:PORT"\n$`),
    );
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
    expect(exporter.stderr().match(/"event":"profile_down"/g)).toHaveLength(1);
    // Bad flags are usage errors before anything runs.
    const bad = await runCli(['exporter', '--token-file', `prod=${prod.token}`], { env: h.env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain(prod.token);
  });

  it('shares history.db with another process writing the same profile (a TUI): seeds its rates from it, both kept', { timeout: WAITS_OF_A_TEST_MS }, async () => {
    const h = home();
    const prod = await managementKey(a, 25);
    writeConfig(h, { prod: { baseUrl: a.url } });
    const origin = new URL(a.url).origin;
    const db = path.join(h.home, 'data', 'history.db');
    // What a TUI left: two hours of readings, $1 an hour spent.
    const store = BalanceHistoryStore.open({ path: db });
    const series = store.series('prod', origin);
    const now = Date.now();
    const past = [];
    for (let t = now - 2 * 3_600_000; t < now - 60_000; t += 60_000) past.push({ t, remaining: 27 - (t - (now - 2 * 3_600_000)) / 3_600_000, totalTopUp: 25 });
    series.appendMany(past);
    const exporter = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_PROD: prod.token });
    // The TUI keeps writing (a reading every 100 ms, of its own) while the exporter polls.
    let tuiWrites = 0;
    const writer = setInterval(() => {
      series.append({ t: Date.now() - 1, remaining: 25.000001, totalTopUp: 25 });
      tuiWrites++;
    }, 100);
    try {
      // Its own first poll (the poll time and balance restored from the history are there at once).
      const text = await until(async () => {
        const t = await exporter.scrape();
        return sample(t, 'keydeck_up', { profile: 'prod' }) === 1 ? t : undefined;
      }, 'the first poll');
      // The rates come from the history on disk at once: $1/h over the last hour.
      expect(sample(text, 'keydeck_burn_rate_usd_per_second', { profile: 'prod', window: '1h' })).toBeCloseTo(1 / 3600, 5);
      const polledAt = Date.now();
      await until(() => series.load(polledAt).some((r) => r.remaining === 25), 'a reading of the exporter on disk');
      // Both writing at once: the TUI's writes go on beside the exporter's (counted, not timed: a
      // first poll early in its jitter left too few of them on a busy machine).
      const exporterWrote = tuiWrites;
      await until(() => tuiWrites > Math.max(5, exporterWrote), 'the TUI writing beside the exporter');
      expect(tuiWrites).toBeGreaterThan(5);
    } finally {
      clearInterval(writer);
    }
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
    expect(exporter.stderr()).not.toContain('history_');
    const kept = series.load(now - 3 * 3_600_000);
    expect(kept.filter((r) => r.remaining === 25.000001).length).toBe(tuiWrites);
    store.close();
  });

  it('spends no usage read a TUI on the same credential needs: takes the answer the TUI kept, leaves its reads', { timeout: WAITS_OF_A_TEST_MS }, async () => {
    const h = home();
    const prod = await managementKey(a, 25);
    const key = await a.creditKey(prod.session, 'worker');
    expect((await a.infer(key.apiKey, { sandbox_cost_usd: 2 })).status).toBe(200);
    writeConfig(h, { prod: { baseUrl: a.url } });
    const origin = new URL(a.url).origin;
    // The TUI of the same user (same data dir, same credential) reads usage first.
    const store = BalanceHistoryStore.open({ path: path.join(h.home, 'data', 'history.db') });
    const client = new KeydeckClient({ baseUrl: a.url, token: prod.token, retries: 0 });
    const credential = credentialIdOf(origin, prod.token);
    const budget = new UsageBudget(store.database);
    const tui = new UsageTracker({ client, budget, credential, origin, keyHistory: new KeyHistory(store.database, store.series('prod', origin).id) });
    const first = await tui.refresh('auto');
    expect(first.snapshot.report?.keys).toHaveLength(1);
    const exporter = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_PROD: prod.token });
    // Its figures are the TUI's answer, with the TUI's read time; it spent no read of its own.
    const text = await until(async () => {
      const t = await exporter.scrape();
      return sample(t, 'keydeck_key_spend_usd', { profile: 'prod', period: '24h' }) !== undefined && sample(t, 'keydeck_up', { profile: 'prod' }) === 1 ? t : undefined;
    }, 'the per-key spend served');
    expect(sample(text, 'keydeck_key_spend_usd', { profile: 'prod', key_name: 'worker', period: '24h' })).toBe(2);
    expect(sample(text, 'keydeck_usage_last_read_timestamp_seconds', { profile: 'prod' })).toBe(Math.floor(first.snapshot.at! / 1000));
    // Another poll of the exporter, which must not read either.
    const polled = sample(text, 'keydeck_last_successful_poll_timestamp_seconds', { profile: 'prod' })!;
    await until(async () => sample(await exporter.scrape(), 'keydeck_last_successful_poll_timestamp_seconds', { profile: 'prod' })! > polled, 'a later poll');
    expect(budget.state(credential, budget.now(origin)).used).toBe(1);
    // The user's own read in the TUI is still granted.
    const demand = await tui.refresh('demand');
    expect(demand.snapshot.error).toBeUndefined();
    expect(budget.state(credential, budget.now(origin)).used).toBe(2);
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
    client.close();
    store.close();
  });

  it('honours a 429: polls the profile again no sooner than its Retry-After asks, and the next reading brings it back up', { timeout: 60_000 }, async () => {
    const h = home();
    // A service that answers every balance read with 429 and Retry-After: 6 until told otherwise.
    // It runs on a thread of its own, which does nothing else: each read is answered and timed
    // when it arrives. Served from the test's thread, beside the other tests of this file, a read
    // could wait there past the exporter's attempt timeout (half its 2 s budget), so the exporter
    // would try the read again, rightly, having never seen the 429, and both reads were timed
    // back to back (1 ms apart once in CI).
    const server = new Worker(
      `const { parentPort } = require('node:worker_threads');
      let limited = true;
      parentPort.on('message', (m) => { if (m === 'serve') limited = false; });
      const server = require('node:http').createServer((req, res) => {
        if (req.url.startsWith('/api/billing/credits')) parentPort.postMessage({ read: performance.timeOrigin + performance.now() });
        if (limited) {
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '6' });
          res.end(JSON.stringify({ success: false, error: 'rate limited' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, data: { remaining: 12, totalTopUp: 20, hasCreditKey: true, creditKeyCount: 1 } }));
      });
      server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));`,
      { eval: true },
    );
    const reads: number[] = [];
    const port = await new Promise<number>((resolve, reject) => {
      server.on('error', reject);
      server.on('message', (m: { read?: number; port?: number }) => {
        if (m.read !== undefined) reads.push(m.read);
        if (m.port !== undefined) resolve(m.port);
      });
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      writeConfig(h, { busy: { baseUrl: url } });
      const exporter = await startExporter(h, ['--profile', 'busy', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_BUSY: 'mk_ratelimited000000000' });
      await until(() => reads.length >= 3 || undefined, 'three balance reads', 30_000);
      // The interval is 2 s; the service asked for 6 s each time: no read came sooner.
      const gaps = reads.slice(1).map((t, i) => t - reads[i]!);
      expect(Math.min(...gaps), `gaps ${gaps.map((g) => Math.round(g)).join(', ')} ms`).toBeGreaterThanOrEqual(5900);
      expect(sample(await exporter.scrape(), 'keydeck_up', { profile: 'busy' })).toBe(0);
      server.postMessage('serve');
      await until(async () => sample(await exporter.scrape(), 'keydeck_up', { profile: 'busy' }) === 1 || undefined, 'up again', 25_000);
      exporter.signal('SIGTERM');
      expect(await exporter.exited).toBe(0);
    } finally {
      await server.terminate();
    }
  });

  // Last and alone, once the others have ended: it times scrapes, which the others' exporters
  // starting beside it would slow (1.4 s once in CI).
  it('a service that never answers delays no other profile and no scrape', { timeout: 30_000, concurrent: false }, async () => {
    const h = home();
    const sockets: import('node:net').Socket[] = [];
    const silent: NetServer = createNetServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const prod = await managementKey(a, 25);
      writeConfig(h, { fast: { baseUrl: a.url }, slow: { baseUrl: silentUrl } });
      const exporter = await startExporter(h, ['--all-profiles', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_FAST: prod.token, KEYDECK_TOKEN_SLOW: 'mk_neveranswered0000000' });
      const polls = new Set<number>();
      const scrapeMs: number[] = [];
      await until(
        async () => {
          const t0 = performance.now();
          const text = await exporter.scrape();
          scrapeMs.push(performance.now() - t0);
          const at = sample(text, 'keydeck_last_successful_poll_timestamp_seconds', { profile: 'fast' });
          if (at !== undefined) polls.add(at);
          return polls.size >= 3;
        },
        'three polls of the fast profile',
        20_000,
      );
      expect(Math.max(...scrapeMs)).toBeLessThan(1000);
      const text = await exporter.scrape();
      expect(text).toContain('keydeck_up{profile="slow",origin="' + silentUrl + '",reason="unreachable"} 0');
      expect(sample(text, 'keydeck_up', { profile: 'fast' })).toBe(1);
      exporter.signal('SIGTERM');
      // Stops at once although a poll of the silent service is under way.
      expect(await exporter.exited).toBe(0);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});
