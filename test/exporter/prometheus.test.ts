/**
 * A real Prometheus scrapes a real `keydeck exporter`: Prometheus (the Debian package
 * `prometheus`; .ci/run installs it) scrapes the built exporter every second and evaluates the
 * shipped alert rules every second (their `for:` set to 0 here; promtool's unit tests cover the
 * real ones: test/metrics/contrib.test.ts). The exporter watches two profiles against two
 * sandboxes. Through Prometheus' HTTP API: each profile's `keydeck_balance_remaining_usd` equals
 * its sandbox's `remaining`; a key named with quotes, a backslash and non-ASCII has its spend under
 * that very name (escaped in the exposition, parsed back by Prometheus); spending below the threshold in one sandbox fires KeydeckBalanceLow
 * for that profile only; deleting a profile's key makes its `keydeck_up` 0 with
 * `reason="credential_rejected"` and fires KeydeckCredentialRejected for it alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type TempHome } from '../credentials/harness.js';
import { binary, skipUnless } from '../metrics/parts.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { exporterHome, killAll, startExporter, until, writeConfig, type RunningExporter, managementKey } from './rig.js';

const skip = skipUnless('prometheus');
let a: TestSandbox;
let b: TestSandbox;
let home: TempHome;
let prometheus: ChildProcess | undefined;
let exporter: RunningExporter;
let api = '';

/** A free loopback port (Prometheus takes no port 0). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Sample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}
/** An instant query through the HTTP API. */
async function query(promql: string): Promise<Sample[]> {
  const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as { status: string; data: { result: Sample[] } };
  if (body.status !== 'success') throw new Error(`query ${promql}: ${JSON.stringify(body)}`);
  return body.data.result;
}

interface Alert {
  readonly labels: Record<string, string>;
  readonly state: string;
}
async function firing(alertname: string): Promise<string[]> {
  const body = (await (await fetch(`${api}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } };
  return body.data.alerts
    .filter((x) => x.labels.alertname === alertname && x.state === 'firing')
    .map((x) => x.labels.profile!)
    .sort();
}

/** Quotes, a backslash, non-ASCII: escaped in the exposition, read back as they are by Prometheus. */
const HOSTILE = 'quo"te \\ back ünïcødé ✓ {x="y"}';
let alpha: { token: string; id: string; session: string };
let beta: { token: string; id: string; session: string };

beforeAll(async () => {
  if (skip) return;
  [a, b] = await Promise.all([startTestSandbox({ host: '127.0.0.1' }), startTestSandbox({ host: '127.0.0.1' })]);
  [alpha, beta] = await Promise.all([managementKey(a, 25), managementKey(b, 40)]);
  // A key with a hostile name spends $1.25 in beta's account before the exporter's first usage read.
  const hostile = await b.creditKey(beta.session, HOSTILE);
  expect((await b.infer(hostile.apiKey, { sandbox_cost_usd: 1.25 })).status).toBe(200);
  home = exporterHome();
  writeConfig(home, { alpha: { baseUrl: a.url, alertBelowUsd: 20 }, beta: { baseUrl: b.url, alertBelowUsd: 20 } });
  exporter = await startExporter(home, ['--all-profiles', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_ALPHA: alpha.token, KEYDECK_TOKEN_BETA: beta.token });

  // The shipped rules, each with `for: 0s` (and an outage as long as it lasts) so that they fire at their first evaluation.
  const dir = path.join(home.home, 'prometheus');
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  const rules = readFileSync(path.join(ROOT, 'contrib', 'prometheus', 'keydeck.rules.yml'), 'utf8')
    .replace(/^(\s+)for: \S+$/gm, '$1for: 0s')
    .replace(/(keydeck_down_since_timestamp_seconds\{[^}]*\}) > \d+/g, '$1 >= 0');
  writeFileSync(path.join(dir, 'keydeck.rules.yml'), rules);
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'rule_files: [keydeck.rules.yml]',
      'scrape_configs:',
      '  - job_name: keydeck',
      `    static_configs: [{ targets: ['${new URL(exporter.url).host}'] }]`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  let log = '';
  prometheus = spawn(
    binary('prometheus')!,
    [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  prometheus.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  await until(async () => (await fetch(`${api}/-/ready`).catch(() => undefined))?.status === 200 || (prometheus!.exitCode !== null && Promise.reject(new Error(log))), 'Prometheus ready', 30_000);
}, 60_000);

afterAll(async () => {
  if (prometheus?.pid && prometheus.exitCode === null) {
    const ended = new Promise((resolve) => prometheus!.on('close', resolve));
    process.kill(prometheus.pid, 'SIGTERM');
    await Promise.race([ended, new Promise((r) => setTimeout(r, 5000))]);
    if (prometheus.exitCode === null) process.kill(prometheus.pid, 'SIGKILL');
  }
  killAll();
  await Promise.all([a?.close(), b?.close()]);
  home?.remove();
});

describe.skipIf(skip !== undefined)('Prometheus scraping keydeck exporter', () => {
  it('reads each profile’s balance; the low-balance rule fires for one profile only; a deleted key is keydeck_up 0', { timeout: 60_000 }, async () => {
    // Each profile's balance as its sandbox has it.
    const balances = await until(
      async () => {
        const r = await query('keydeck_balance_remaining_usd');
        return r.length === 2 ? Object.fromEntries(r.map((s) => [s.metric.profile!, s])) : undefined;
      },
      'both balances in Prometheus',
      30_000,
    );
    expect(Number(balances.alpha!.value[1])).toBe((await a.credits(alpha.session)).remaining);
    expect(Number(balances.beta!.value[1])).toBe((await b.credits(beta.session)).remaining);
    expect(balances.alpha!.metric).toMatchObject({ job: 'keydeck', origin: new URL(a.url).origin });
    expect(balances.beta!.metric).toMatchObject({ job: 'keydeck', origin: new URL(b.url).origin });
    expect(await firing('KeydeckBalanceLow')).toEqual([]);

    // Per-key spend from the usage figures (one read through the shared budget): the hostile name as it was.
    const spend = await until(
      async () => {
        const r = await query('keydeck_key_spend_usd{profile="beta",period="24h"}');
        return r.length > 0 ? r : undefined;
      },
      'the per-key spend of beta',
      30_000,
    );
    expect(spend.map((s) => [s.metric.key_name, s.value[1]])).toEqual([[HOSTILE, '1.25']]);
    expect(Number((await query('keydeck_usage_reads_left{profile="beta"}'))[0]!.value[1])).toBe(11);

    // $10 spent in alpha's sandbox: $15 left, below its $20 threshold.
    const key = await a.creditKey(alpha.session, 'spender');
    expect((await a.infer(key.apiKey, { sandbox_cost_usd: 10 })).status).toBe(200);
    expect((await a.credits(alpha.session)).remaining).toBe(15);
    expect(await until(async () => ((await firing('KeydeckBalanceLow')).length > 0 ? firing('KeydeckBalanceLow') : undefined), 'KeydeckBalanceLow firing', 30_000)).toEqual(['alpha']);
    expect((await query('keydeck_balance_remaining_usd{profile="alpha"}'))[0]!.value[1]).toBe('15');

    // Beta's key deleted: keydeck_up 0 for beta alone, the reason said, the rule firing for it.
    expect((await b.call('DELETE', `/api/keys/management/${beta.id}`, { token: beta.session })).status).toBe(200);
    const down = await until(
      async () => {
        const r = await query('keydeck_up == 0');
        return r.length > 0 ? r : undefined;
      },
      'keydeck_up == 0',
      30_000,
    );
    expect(down.map((s) => [s.metric.profile, s.metric.reason])).toEqual([['beta', 'credential_rejected']]);
    expect(await until(async () => ((await firing('KeydeckCredentialRejected')).length > 0 ? firing('KeydeckCredentialRejected') : undefined), 'KeydeckCredentialRejected firing', 30_000)).toEqual([
      'beta',
    ]);
    expect((await query('keydeck_up{profile="alpha"}'))[0]!.value[1]).toBe('1');
    expect(await firing('KeydeckBalanceLow')).toEqual(['alpha']);
  });
});
