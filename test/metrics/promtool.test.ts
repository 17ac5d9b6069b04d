/**
 * `promtool check metrics` finds nothing in keydeck's metrics: the output of
 * `keydeck monitor --metrics` against a sandbox, and of many accounts merged into one exposition
 * (what the exporter serves), hostile names included: quotes, backslashes, newlines and non-ASCII
 * in label values come out escaped as the text format requires, and Prometheus' parser reads
 * them back (promtool parses every line).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monitorCommand } from '../../src/commands/monitor.js';
import { AccountMetrics } from '../../src/metrics/account.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { processRegistry } from '../../src/metrics/process.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { promtoolCheckMetrics, skipUnless } from './parts.js';

const skip = skipUnless('promtool');
let sandbox: TestSandbox;
let dir: string;

beforeAll(async () => {
  if (skip) return;
  sandbox = await startTestSandbox({ host: '127.0.0.1' });
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-promtool-'));
});
afterAll(async () => {
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip !== undefined)('promtool check metrics', () => {
  it('finds nothing in `keydeck monitor --metrics`', async () => {
    const token = await sandbox.fundedUser(25);
    await sandbox.creditKey(token, 'ci');
    await sandbox.subscription(token, 'standard');
    let scraped = '';
    const code = await monitorCommand(
      { baseUrl: sandbox.url },
      { interval: '5', metrics: '127.0.0.1:0', alertBelow: '5' },
      {
        isTerminal: true,
        version: '0.0.0-test',
        session: { env: { KEYDECK_TOKEN: token, KEYDECK_CONFIG_DIR: dir, KEYDECK_DATA_DIR: dir } },
        render: async ({ watcher, metricsUrl }) => {
          // The watcher's first reading.
          for (let i = 0; i < 100 && watcher.snapshot.poll.data === undefined; i++) await new Promise((r) => setTimeout(r, 50));
          for (let i = 0; i < 100 && !scraped.includes('keydeck_subscription_expiry_timestamp_seconds{'); i++) {
            scraped = await (await fetch(metricsUrl!)).text();
            await new Promise((r) => setTimeout(r, 50));
          }
          return 0;
        },
      },
    );
    expect(code).toBe(0);
    expect(scraped).toMatch(/^keydeck_subscription_expiry_timestamp_seconds\{[^}]*\} \d{10}$/m);
    expect(scraped).toMatch(/^keydeck_balance_alert_below_usd\{[^}]*\} 5$/m);
    expect(promtoolCheckMetrics(scraped)).toEqual({ status: 0, output: '' });
  });

  it('finds nothing in many accounts merged, hostile names escaped, with the process metrics', async () => {
    const hostile = ['plain', 'quo"te', 'back\\slash', 'new\nline', 'ünïcødé ✓', '\u202eright-to-left', 'tab\there'];
    const accounts = hostile.map((profile, i) => new AccountMetrics({ profile, origin: `https://api${i}.example.com`, alertBelowUsd: i }));
    const t = Date.now();
    for (const [i, a] of accounts.entries()) {
      a.reading({ remaining: 10 + i, totalTopUp: 50, hasCreditKey: true, creditKeyCount: 1, userId: null } as never, t - 720_000);
      a.reading({ remaining: 9.5 + i, totalTopUp: 50, hasCreditKey: true, creditKeyCount: 1, userId: null } as never, t - 360_000);
      a.reading({ remaining: 9 + i, totalTopUp: 50, hasCreditKey: true, creditKeyCount: 1, userId: null } as never, t);
      a.keys([], t);
    }
    accounts[1]!.failure(new KeydeckApiError('unauthorized', 'the key was refused', { status: 401 }));
    accounts[2]!.failure(new KeydeckApiError('network_error', 'no answer'), false);
    const text = await new Exposition().text(processRegistry({ version: '1.2.3', defaults: true }), accounts);
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
    // $1 spent in the 12 minutes the readings span (more than three quarters of the 15-minute window): $1/720 s.
    // Each metric once, every account's series under it; label values escaped (\\, \", \n), UTF-8 as is.
    expect(text.match(/^# TYPE keydeck_up gauge$/gm)).toHaveLength(1);
    expect(text).toContain('keydeck_up{profile="quo\\"te",origin="https://api1.example.com",reason="credential_rejected"} 0');
    expect(text).toContain('profile="back\\\\slash"');
    expect(text).toContain('profile="new\\nline"');
    expect(text).toContain('profile="ünïcødé ✓"');
    expect(text).toMatch(/^keydeck_burn_rate_usd_per_second\{profile="plain",origin="[^"]+",window="15m"\} 0\.00138/m);
    expect(text).toContain('keydeck_build_info{version="1.2.3"');
    expect(text).toContain('# TYPE process_resident_memory_bytes gauge');
  });
});
