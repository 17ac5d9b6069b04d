/**
 * `keydeck exporter --enforce` against the sandbox (docs/guardrails.md): after its usage read, a
 * key past its budget is disabled once, with a log line, `--on-guardrail` run once per threshold
 * and the guardrail's gauges (its ratio, limit, reset time, worst case; the key disabled; the
 * actions counted); the polls after it do nothing more. Without the flag no key is touched and no
 * guardrail series is served.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TempHome } from '../credentials/harness.js';
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

/** A home whose profile `prod` (at the sandbox) has the guardrail: every key, $5 a day, disable. */
function homeWithRules(): TempHome {
  const h = exporterHome();
  homes.push(h);
  mkdirSync(h.configDir, { recursive: true, mode: 0o700 });
  chmodSync(h.configDir, 0o700);
  const guardrails = { appliedAt: new Date().toISOString(), rules: [{ match: '*', budget: { limitUsd: 5, period: 'day', action: 'disable' } }] };
  writeFileSync(path.join(h.configDir, 'config.json'), JSON.stringify({ version: 1, profiles: { prod: { baseUrl: sb.url, guardrails } } }), { mode: 0o600 });
  return h;
}

describe.concurrent('keydeck exporter --enforce', () => {
  it('disables a key past its budget after its usage read, once, says it, runs the hook once per threshold, and serves the figures', { timeout: 60_000 }, async () => {
    const h = homeWithRules();
    const prod = await managementKey(sb, 25);
    const key = await sb.creditKey(prod.session, 'web');
    expect((await sb.infer(key.apiKey, { sandbox_cost_usd: 6 })).status).toBe(200);
    const hookLog = path.join(h.home, 'hook.log');
    const exporter = await startExporter(
      h,
      ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2', '--enforce', '--on-guardrail', `echo "$KEYDECK_GUARDRAIL $KEYDECK_THRESHOLD $KEYDECK_KEY_NAME" >> ${hookLog}`],
      { KEYDECK_TOKEN_PROD: prod.token },
    );
    const line = await exporter.waitForLog(/event=guardrail .*action=disabled/);
    expect(line).toMatch(/key_name=web msg="disabled \\"web\\": it spent \$6\.00 of its \$5\.00 budget today/);
    const keyLabels = { profile: 'prod', key_id: key.id, key_name: 'web' };
    const text = await until(async () => {
      const t = await exporter.scrape();
      return sample(t, 'keydeck_key_guardrail_disabled', keyLabels) === 1 ? t : undefined;
    }, 'the key disabled in the metrics');
    expect(sample(text, 'keydeck_key_budget_used_ratio', { ...keyLabels, period: 'day' })).toBeCloseTo(1.2);
    expect(sample(text, 'keydeck_key_budget_limit_usd', { ...keyLabels, period: 'day' })).toBe(5);
    const reset = sample(text, 'keydeck_key_budget_reset_timestamp_seconds', { ...keyLabels, period: 'day' })!;
    expect(reset % 86_400).toBe(0);
    expect(sample(text, 'keydeck_key_guardrail_action_total', { profile: 'prod', action: 'disabled' })).toBe(1);
    expect(sample(text, 'keydeck_key_guardrail_action_total', { profile: 'prod', action: 'threshold' })).toBe(2);
    expect((await sb.call('GET', '/api/keys', { token: prod.session })).body.find((k: { id: string }) => k.id === key.id).isActive).toBe(false);
    // Two or three more polls (2 s apart): nothing more said or done.
    await new Promise((r) => setTimeout(r, 5000));
    await until(() => existsSync(hookLog) && readFileSync(hookLog, 'utf8').split('\n').filter(Boolean).length >= 3, 'the hook');
    expect(readFileSync(hookLog, 'utf8')).toBe('threshold 0.8 web\nthreshold 0.95 web\ndisabled  web\n');
    expect(exporter.stderr().match(/event=guardrail /g)).toHaveLength(3);
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
  });

  it('without --enforce touches no key and serves no guardrail series', { timeout: 60_000 }, async () => {
    const h = homeWithRules();
    const prod = await managementKey(sb, 25);
    const key = await sb.creditKey(prod.session, 'web');
    await sb.infer(key.apiKey, { sandbox_cost_usd: 6 });
    const exporter = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_PROD: prod.token });
    const text = await until(async () => {
      const t = await exporter.scrape();
      return /keydeck_key_spend_usd\{[^}]*key_name="web"/.test(t) ? t : undefined;
    }, 'the usage read');
    expect(text).not.toMatch(/keydeck_key_budget_|keydeck_key_guardrail_/);
    expect((await sb.call('GET', '/api/keys', { token: prod.session })).body.find((k: { id: string }) => k.id === key.id).isActive).toBe(true);
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
  });
});
