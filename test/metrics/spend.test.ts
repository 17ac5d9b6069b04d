/**
 * The per-key metrics: spend gauges by key id and name, the label set bounded (the 50
 * biggest spenders over the share period, the rest summed as `other`), the usage figures' age,
 * the reads left, and the keys in a runaway episode; promtool-style names in base units.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { UsagePeriod } from '../../src/api/usageSchemas.js';
import type { Episode } from '../../src/billing/keyHistory.js';
import { spendRows } from '../../src/billing/spend.js';
import { budgetState } from '../../src/billing/usageBudget.js';
import { AccountMetrics } from '../../src/metrics/account.js';
import { Exposition } from '../../src/metrics/exposition.js';
import { registerSpendMetrics } from '../../src/metrics/spend.js';
import { promtoolCheckMetrics, skipUnless } from './parts.js';

const T = Date.UTC(2026, 2, 2, 12, 0, 0);

describe('spend metrics', () => {
  it('exports the top 50 keys by id and name, the rest as other, and stays bounded for 1,000 keys', async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => ({
      id: `k${i}`,
      name: `key ${i}\u001b[31m`,
      periods: { '24h': { spend: i / 100 }, total: { spend: i } } as Partial<Record<UsagePeriod, { spend: number }>>,
    }));
    const rows = spendRows({ keys, periods: ['24h', 'total'], raw: null });
    const episodes = new Map<string, Episode>([['k999', { keyId: 'k999', kind: 'runaway', startedAt: T, lastAt: T, usdPerHour: 12.5, baselineUsdPerHour: 1 }]]);
    const registry = new Registry();
    registry.setDefaultLabels({ profile: 'p', origin: 'https://api.example.com' });
    registerSpendMetrics(registry, () => ({ rows, period: '24h', at: T - 90_000, budget: budgetState([T - 100_000, T - 90_000], undefined, T), now: T, episodes }));
    const text = await registry.metrics();
    const spendLines = text.split('\n').filter((l) => l.startsWith('keydeck_key_spend_usd{'));
    expect(spendLines).toHaveLength(51 * 2);
    expect(text).toContain('keydeck_key_spend_usd{key_id="k999",key_name="key 999\\\\u001b[31m",period="24h",profile="p",origin="https://api.example.com"} 9.99');
    const other = spendLines.filter((l) => l.includes('key_id="other"'));
    expect(other).toHaveLength(2);
    // 0 + 1 + … + 949 (the keys below the top 50), as all-time spend.
    expect(other.find((l) => l.includes('period="total"'))).toMatch(/ 450775$/);
    expect(text).toMatch(new RegExp(`^keydeck_usage_last_read_timestamp_seconds\\{profile="p",origin="https://api\\.example\\.com"\\} ${Math.floor((T - 90_000) / 1000)}$`, 'm'));
    expect(text).toMatch(/^keydeck_usage_reads_left\{[^}]*\} 10$/m);
    expect(text).toMatch(/^keydeck_key_runaway_usd_per_second\{key_id="k999",key_name="key 999[^"]*",kind="runaway",[^}]*\} 0\.00347\d*$/m);
    expect(text).not.toContain('\u001b');
  });

  it('exports nothing before the first usage figures (not a 0 that alert rules would read)', async () => {
    const registry = new Registry();
    registry.setDefaultLabels({ profile: 'p', origin: 'o' });
    registerSpendMetrics(registry, () => undefined);
    const text = await registry.metrics();
    expect(text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))).toEqual([]);
  });
});

describe.skipIf(skipUnless('promtool') !== undefined)('promtool check metrics', () => {
  it('finds nothing in the spend metrics on an account’s registry, hostile key names escaped', async () => {
    const account = new AccountMetrics({ profile: 'p', origin: 'https://api.example.com' });
    const names = ['plain', 'quo"te', 'back\\slash', 'new\nline', 'ünïcødé ✓'];
    const keys = names.map((name, i) => ({ id: `k${i}`, name, periods: { '24h': { spend: i + 0.5 }, '30d': { spend: 10 * i } } as Partial<Record<UsagePeriod, { spend: number }>> }));
    const rows = spendRows({ keys, periods: ['24h', '30d'], raw: null });
    const episodes = new Map<string, Episode>([['k1', { keyId: 'k1', kind: 'dormant', startedAt: T, lastAt: T, usdPerHour: 3 }]]);
    registerSpendMetrics(account.registry, () => ({ rows, period: '24h', at: T, budget: budgetState([T], undefined, T), now: T, episodes }));
    const text = await new Exposition().text(undefined, [account]);
    expect(text).toContain('keydeck_key_spend_usd{key_id="k1",key_name="quo\\"te",period="24h",profile="p",origin="https://api.example.com"} 1.5');
    expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
  });
});
