/**
 * `keydeck autotopup` as the built CLI against the sandbox: a policy charges the card on
 * file once for one fall of the balance, whatever the number of runs at once or machines; a cap
 * stops a charge and says which and when it resets; three declines pause the policy and a fourth
 * run sends nothing; a policy that cannot work is refused before anything is stored.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../resilience/fault-proxy.js';
import type { TestSandbox } from '../sandbox/helpers.js';
import { ROOT } from '../credentials/harness.js';
import { promtoolCheckMetrics, skipUnless, textfileAlerts } from '../metrics/parts.js';
import { scripted, type Scripted, useScriptedSandbox } from './scripted.js';

const RULES = ['keydeck.rules.yml', 'keydeck-cron.rules.yml'].map((f) => path.join(ROOT, 'contrib', 'prometheus', f));
const noPromtool = skipUnless('promtool');

let sb: TestSandbox;
useScriptedSandbox((s) => (sb = s));

const homes: Scripted[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.home.remove();
});

/** A CLI with a home of its own (its own config and data dir: another machine). */
function machine(url = sb.url): Scripted {
  const cli = scripted(url);
  homes.push(cli);
  // No settle wait: these are one machine's runs (two machines at once: ./autotopup-machines.test.ts).
  return { ...cli, run: (token, args, extra) => cli.run(token, args, { KEYDECK_AUTOTOPUP_SETTLE_SECONDS: '0', ...extra }) };
}

/** Spends `usd` of the account through a credit key. */
async function spend(token: string, usd: number): Promise<void> {
  const key = await sb.creditKey(token, `spender-${Math.random().toString(36).slice(2, 8)}`);
  expect((await sb.infer(key.apiKey, { sandbox_cost_usd: usd })).status).toBe(200);
}

const SET = ['autotopup', 'set', '--below', '20', '--amount', '30', '--max-per-day', '100', '--yes'];

describe('keydeck autotopup', () => {
  it('charges once when the balance falls below the threshold, and says what it did each run', async () => {
    const cli = machine();
    const token = await sb.fundedUser(25);
    expect((await cli.run(token, SET)).code).toBe(0);
    // Quiet as cron wants it: nothing when nothing happened, one line when something did.
    const idle = await cli.run(token, ['autotopup', 'run', '--once']);
    expect([idle.code, idle.stdout, idle.stderr]).toEqual([0, '', '']);
    const said = await cli.run(token, ['autotopup', 'run', '--once', '--json']);
    expect(JSON.parse(said.stdout)).toMatchObject({ outcome: 'skipped', decision: 'not_needed', sentence: 'Nothing to do: the balance $25.00 is not below $20.00.' });
    await spend(token, 10);
    const charged = await cli.run(token, ['autotopup', 'run', '--once']);
    expect(charged.code, charged.stderr).toBe(0);
    expect(charged.stdout).toMatch(/^Charged \$30\.00 to the card on file: the auto top-up charge of \$30\.00 \(balance \$15\.00, below \$20\.00\) was credited; the balance is \$45\.00\.\n$/);
    expect(charged.stderr).toBe('');
    expect((await cli.run(token, ['autotopup', 'run', '--once'])).stdout).toBe('');
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 55, remaining: 45 });
    const status = JSON.parse((await cli.run(token, ['autotopup', 'status', '--json'])).stdout);
    expect(status).toMatchObject({
      paused: false,
      failuresInARow: 0,
      lastCharge: { amount: 30, state: 'credited', method: 'card_direct', autoTopUp: { remaining: 15, belowUsd: 20 } },
      lastFailure: null,
    });
  });

  it('two runs at once, and a second machine 3 s later, still charge once for one fall', async () => {
    // Both runs read the billing status slowly, so without the account's lock both would decide
    // before either charged.
    const proxy = await startFaultProxy(sb.url);
    try {
      const first = machine(proxy.url);
      const second = machine();
      const token = await sb.fundedUser(25);
      for (const cli of [first, second]) expect((await cli.run(token, SET)).code).toBe(0);
      await spend(token, 10);
      proxy.set({ kind: 'delay', ms: 800, count: 2, only: { method: 'GET', path: '/api/billing/status' } });
      const runs = await Promise.all([first.run(token, ['autotopup', 'run', '--once']), first.run(token, ['autotopup', 'run', '--once'])]);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      expect(runs.filter((r) => r.stdout.startsWith('Charged $30.00'))).toHaveLength(1);
      expect(runs.filter((r) => r.stdout === '' && r.stderr === '')).toHaveLength(1);
      expect(proxy.seen.filter((r) => r.method === 'POST' && r.path === '/api/billing/topup')).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 3000));
      const later = await second.run(token, ['autotopup', 'run', '--once']);
      expect([later.code, later.stdout]).toEqual([0, '']);
      expect(await sb.credits(token)).toMatchObject({ totalTopUp: 55 });
    } finally {
      await proxy.close();
    }
  });

  it('a cap stops a charge: it names the cap and when it resets, and exits 3', async () => {
    const cli = machine();
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-textfile-'));
    const prom = path.join(dir, 'keydeck-autotopup.prom');
    const origin = new URL(sb.url).origin;
    const token = await sb.fundedUser(25);
    expect((await cli.run(token, ['autotopup', 'set', '--below', '20', '--amount', '30', '--max-per-day', '40', '--yes'])).code).toBe(0);
    await spend(token, 10);
    expect((await cli.run(token, ['autotopup', 'run', '--once'])).stdout).toMatch(/^Charged \$30\.00/);
    await spend(token, 30);
    const capped = await cli.run(token, ['autotopup', 'run', '--once', '--metrics-textfile', prom]);
    expect(capped.code).toBe(3);
    // The run as node_exporter's textfile collector reads it: clean, readable by another user, and
    // the cap alert (and no failure alert: exit 3 has its own) fires on it under contrib's rules.
    const text = readFileSync(prom, 'utf8');
    expect(statSync(prom).mode & 0o777).toBe(0o644);
    expect(text).toContain(`keydeck_autotopup_capped{command="autotopup run",profile="default",origin="${origin}",cap="day"} 1`);
    expect(text).toContain(`keydeck_cron_last_run_exit_code{command="autotopup run",profile="default",origin="${origin}"} 3`);
    expect(text).toContain(`keydeck_autotopup_last_run{command="autotopup run",profile="default",origin="${origin}",outcome="skipped",decision="capped"} 1`);
    expect(text).toContain(`keydeck_autotopup_cap_remaining_usd{command="autotopup run",profile="default",origin="${origin}",cap="day"} 10`);
    if (!noPromtool) {
      expect(promtoolCheckMetrics(text)).toEqual({ status: 0, output: '' });
      const fired = textfileAlerts(
        text,
        RULES,
        'KeydeckAutoTopUpCapReached',
        [{ alertname: 'KeydeckAutoTopUpCapReached', severity: 'warning', command: 'autotopup run', profile: 'default', origin, cap: 'day' }],
        dir,
      );
      expect(fired.output).toContain('SUCCESS');
      expect(textfileAlerts(text, RULES, 'KeydeckCronJobFailed', [], dir).output).toContain('SUCCESS');
    }
    rmSync(dir, { recursive: true, force: true });
    expect(capped.stdout).toBe('');
    expect(capped.stderr).toMatch(/^Nothing charged: \$30\.00 would pass the day's cap \(\$30\.00 of \$40\.00 charged this UTC day\); it resets at \d{4}-\d\d-\d\dT00:00:00Z \(in \d+ (h|min)/);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 55, remaining: 15 });
  });

  it('three declines pause the policy, a fourth run sends nothing, and resume charges again', async () => {
    const cli = machine();
    const token = await sb.fundedUser(25);
    expect((await cli.run(token, SET)).code).toBe(0);
    expect((await sb.call('POST', '/sandbox/cards/decline', { token, body: { count: 4 } })).status).toBe(200);
    await spend(token, 10);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await cli.run(token, ['autotopup', 'run', '--once']));
    expect(runs.map((r) => r.code)).toEqual([1, 1, 1]);
    expect(runs[0]!.stderr).toMatch(/The auto top-up charge of \$30\.00 .* failed: .*card was declined.*The next run tries again\./);
    expect(runs[2]!.stderr).toMatch(/failed: .*That is 3 failures in a row: auto top-up is paused until keydeck autotopup resume\./);
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-textfile-'));
    const prom = path.join(dir, 'keydeck-autotopup.prom');
    const fourth = await cli.run(token, ['autotopup', 'run', '--once', '--metrics-textfile', prom]);
    const text = readFileSync(prom, 'utf8');
    const origin = new URL(sb.url).origin;
    expect(text).toContain(`keydeck_autotopup_paused{command="autotopup run",profile="default",origin="${origin}"} 1`);
    expect(text).toContain(`keydeck_autotopup_recorded_charges{command="autotopup run",profile="default",origin="${origin}",outcome="failed"} 3`);
    if (!noPromtool) {
      const fired = textfileAlerts(text, RULES, 'KeydeckAutoTopUpPaused', [{ alertname: 'KeydeckAutoTopUpPaused', severity: 'critical', command: 'autotopup run', profile: 'default', origin }], dir);
      expect(fired.output).toContain('SUCCESS');
    }
    rmSync(dir, { recursive: true, force: true });
    expect([fourth.code, fourth.stderr]).toEqual([3, expect.stringMatching(/Auto top-up is paused: the last 3 charges failed\. Nothing was charged/)]);
    // The fourth decline is still there: the fourth run sent no charge.
    expect((await sb.call('POST', '/sandbox/cards/decline', { token, body: { count: 0 } })).status).toBe(200);
    expect((await cli.run(token, ['autotopup', 'status'])).stdout).toMatch(/^PAUSED: the last 3 charges failed/m);
    expect((await cli.run(token, ['autotopup', 'resume'])).code).toBe(0);
    expect((await cli.run(token, ['autotopup', 'run', '--once'])).stdout).toMatch(/^Charged \$30\.00/);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 55 });
  });

  it('refuses a policy that cannot work, with the reason, before anything is stored', async () => {
    const cli = machine();
    const token = await sb.newUser();
    const cases: Array<[string[], RegExp]> = [
      [['--below', '40', '--amount', '30'], /--below 40 is not below --amount 30: a charge from an empty balance would not reach the threshold/],
      [['--below', '5', '--amount', '9.99'], /--amount must be at least 10 USD, the service's smallest top-up/],
      [['--below', '20', '--amount', '30', '--max-per-day', '25'], /--max-per-day 25 is below the smallest charge this policy makes \(30 USD\)/],
      [['--below', '20', '--amount', '30', '--max-per-month', '50', '--max-per-day', '60'], /--max-per-month 50 is below --max-per-day 60/],
      [['--below', '20', '--amount', '30', '--method', 'usdc'], /--method usdc is not a card-on-file method here/],
      [['--below', '20', '--amount', '30.001'], /--amount is a USD amount such as 20 or 12\.50/],
      [['--below', '20', '--amount', '30', '--to', '50'], /give either --amount USD \(a fixed charge\) or --to USD/],
    ];
    for (const [flags, reason] of cases) {
      const r = await cli.run(token, ['autotopup', 'set', ...flags, '--yes']);
      expect([r.code, r.stderr], flags.join(' ')).toEqual([2, expect.stringMatching(reason)]);
    }
    expect(() => readFileSync(path.join(cli.home.configDir, 'config.json'))).toThrow();
    const noTty = await cli.run(token, ['autotopup', 'set', '--below', '20', '--amount', '30']);
    expect([noTty.code, noTty.stderr]).toEqual([2, expect.stringMatching(/confirmation_required: .*autotopup set --below 20 --amount 30 --yes/)]);
    const none = await cli.run(token, ['autotopup', 'run', '--once']);
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/no auto top-up policy is set for profile "default"/)]);
  });
});
