/**
 * `keydeck exporter --auto-topup` against the sandbox: a profile whose balance falls
 * below its policy's threshold is charged once within two polls, with a log line and
 * `keydeck_autotopup_charges_total`; declined charges pause the policy after three, and then
 * nothing more is sent; a policy paused for two machines shows `keydeck_autotopup_two_machines`;
 * without the flag no charge is ever made and no auto top-up series shown.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type TempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { exporterHome, killAll, managementKey, sample, startExporter, until } from './rig.js';

let sb: TestSandbox;
const homes: TempHome[] = [];
beforeAll(async () => {
  sb = await startTestSandbox({ host: '127.0.0.1' });
});
afterAll(async () => {
  killAll();
  await sb?.close();
  for (const h of homes) h.remove();
});

/** A home whose config has profile `prod` at the sandbox with the policy below 20, 30 a charge, 100 a day (and `extra`; `marks`: the profile's own fields). */
function homeWithPolicy(extra: object = {}, marks: object = {}): TempHome {
  const h = exporterHome();
  homes.push(h);
  mkdirSync(h.configDir, { recursive: true, mode: 0o700 });
  chmodSync(h.configDir, 0o700);
  const policy = { belowUsd: 20, amountUsd: 30, maxPerDayUsd: 100, maxPerMonthUsd: 300, since: new Date(Date.now() - 60_000).toISOString(), ...extra };
  writeFileSync(path.join(h.configDir, 'config.json'), JSON.stringify({ version: 1, profiles: { prod: { baseUrl: sb.url, autoTopUp: policy, ...marks } } }), { mode: 0o600 });
  return h;
}

async function spend(session: string, usd: number): Promise<void> {
  const key = await sb.creditKey(session, `spender-${Math.random().toString(36).slice(2, 8)}`);
  expect((await sb.infer(key.apiKey, { sandbox_cost_usd: usd })).status).toBe(200);
}

const labels = { profile: 'prod' };

describe.concurrent('keydeck exporter --auto-topup', () => {
  it('charges once within two polls of a fall below the threshold, says so, counts it; pauses after three declines', { timeout: 60_000 }, async () => {
    const h = homeWithPolicy();
    const prod = await managementKey(sb, 25);
    const exporter = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2', '--auto-topup'], {
      KEYDECK_TOKEN_PROD: prod.token,
      KEYDECK_AUTOTOPUP_SETTLE_SECONDS: '0',
    });
    await until(async () => sample(await exporter.scrape(), 'keydeck_autotopup_paused', labels) === 0, 'the auto top-up series');
    const first = await exporter.scrape();
    expect(sample(first, 'keydeck_autotopup_cap_remaining_usd', { ...labels, cap: 'day' })).toBe(100);
    expect(sample(first, 'keydeck_autotopup_charges_total', { ...labels, outcome: 'credited' })).toBe(0);
    await spend(prod.session, 10);
    const fell = Date.now();
    const line = await exporter.waitForLog(/event=autotopup_charged/);
    expect(Date.now() - fell).toBeLessThan(2 * 2000 * 1.1 + 1500);
    expect(line).toMatch(/profile=prod .*amount_usd=30 msg="Charged \$30\.00 to the card on file/);
    await until(async () => sample(await exporter.scrape(), 'keydeck_autotopup_charges_total', { ...labels, outcome: 'credited' }) === 1, 'the charge counted');
    expect(sample(await exporter.scrape(), 'keydeck_autotopup_cap_remaining_usd', { ...labels, cap: 'day' })).toBe(70);
    expect(await sb.credits(prod.session)).toMatchObject({ totalTopUp: 55, remaining: 45 });

    // Declines: three failures pause it; the fourth decline is never used.
    expect((await sb.call('POST', '/sandbox/cards/decline', { token: prod.session, body: { count: 4 } })).status).toBe(200);
    await spend(prod.session, 30);
    await until(async () => sample(await exporter.scrape(), 'keydeck_autotopup_paused', labels) === 1, 'the policy paused', 20_000);
    expect(exporter.stderr().match(/event=autotopup_failed/g)).toHaveLength(3);
    expect(exporter.stderr()).toMatch(/event=autotopup_failed .*paused=true .*auto top-up is paused until keydeck autotopup resume/);
    expect(sample(await exporter.scrape(), 'keydeck_autotopup_charges_total', { ...labels, outcome: 'failed' })).toBe(3);
    await exporter.waitForLog(/event=autotopup_skipped .*reason=paused/);
    await new Promise((r) => setTimeout(r, 4500));
    expect((await sb.call('POST', '/sandbox/cards/decline', { token: prod.session, body: { count: 0 } })).status).toBe(200);
    expect(exporter.stderr().match(/event=autotopup_failed/g)).toHaveLength(3);
    expect(exporter.stderr().match(/reason=paused/g)).toHaveLength(1);
    expect(await sb.credits(prod.session)).toMatchObject({ totalTopUp: 55, remaining: 15 });
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
  });

  it('a read-only profile is never charged: said once in the log; --read-only with --auto-topup does not start', { timeout: 30_000 }, async () => {
    const h = homeWithPolicy({}, { readOnly: true });
    const prod = await managementKey(sb, 25);
    await spend(prod.session, 10);
    const exporter = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2', '--auto-topup'], {
      KEYDECK_TOKEN_PROD: prod.token,
      KEYDECK_AUTOTOPUP_SETTLE_SECONDS: '0',
    });
    expect(await exporter.waitForLog(/event=autotopup_skipped .*reason=read_only/)).toMatch(/the profile \\?"prod\\?" is read-only .*so keydeck does not act on auto top-up; nothing was sent/);
    await new Promise((r) => setTimeout(r, 4500));
    expect(exporter.stderr().match(/reason=read_only/g)).toHaveLength(1);
    expect(exporter.stderr()).not.toMatch(/event=autotopup_charged/);
    expect(await sb.credits(prod.session)).toMatchObject({ totalTopUp: 25, remaining: 15 });
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
    const refused = await runCli(['--read-only', 'exporter', '--profile', 'prod', '--listen', '127.0.0.1:0', '--auto-topup'], { env: h.env({ KEYDECK_DATA_DIR: path.join(h.home, 'data') }) });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toBe('keydeck: read_only: --read-only was given, so keydeck does not act on auto top-up (--auto-topup); nothing was sent.\n');
  });

  it('paused on this machine for two machines: keydeck_autotopup_two_machines is 1, the log says why, nothing is charged', { timeout: 30_000 }, async () => {
    const reason =
      'Another card charge for the same fall of the balance was made before this one (a card_direct top-up of $30.00 (pi_other, asked for 2026-11-28 03:12:04 UTC)): two machines run auto top-up for this account: keep one.';
    const h = homeWithPolicy({ paused: { at: new Date().toISOString(), reason, otherCharge: 'pi_other' } });
    const prod = await managementKey(sb, 25);
    await spend(prod.session, 10);
    const exporter = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2', '--auto-topup'], {
      KEYDECK_TOKEN_PROD: prod.token,
      KEYDECK_AUTOTOPUP_SETTLE_SECONDS: '0',
    });
    await until(async () => sample(await exporter.scrape(), 'keydeck_autotopup_two_machines', labels) === 1, 'the two-machines gauge');
    expect(sample(await exporter.scrape(), 'keydeck_autotopup_paused', labels)).toBe(0);
    expect(await exporter.waitForLog(/event=autotopup_skipped .*reason=paused/)).toMatch(/two machines run auto top-up for this account: keep one/);
    expect(await sb.credits(prod.session)).toMatchObject({ totalTopUp: 25, remaining: 15 });
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
  });

  it('without --auto-topup never charges, whatever the policy, and shows no auto top-up series', { timeout: 30_000 }, async () => {
    const h = homeWithPolicy();
    const prod = await managementKey(sb, 25);
    await spend(prod.session, 10);
    const exporter = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_PROD: prod.token });
    await until(async () => sample(await exporter.scrape(), 'keydeck_up', labels) === 1, 'the profile up');
    await new Promise((r) => setTimeout(r, 4500));
    expect(await exporter.scrape()).not.toMatch(/keydeck_autotopup_/);
    expect(await sb.credits(prod.session)).toMatchObject({ totalTopUp: 25, remaining: 15 });
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
  });
});
