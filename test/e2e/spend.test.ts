/**
 * End to end, the built app in pseudo-terminals against a sandbox: an account with
 * several keys spending at different rates shows who spends what in the Keys pane, the Billing
 * pane and `keydeck monitor`; a key made to spend 10× faster than its baseline (the sandbox clock
 * moved to give it one) raises the alert, the banner deactivates it, and its requests then fail;
 * two keydeck processes and a command loop together make at most 12 usage calls, counted by the
 * sandbox.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { BalanceHistoryStore, originOf } from '../../src/billing/historyStore.js';
import { KeyHistory } from '../../src/billing/keyHistory.js';
import { credentialIdOf, UsageBudget } from '../../src/billing/usageBudget.js';
import { UsageTracker } from '../../src/billing/usageTracker.js';
import { runCli } from '../credentials/harness.js';
import { startTestSandbox } from '../sandbox/helpers.js';
import { cleanEnv, e2eRig } from './session.js';

const rig = e2eRig();

describe('where the money goes', () => {
  it('shows who spends what, catches a key at 10× its baseline, and the banner deactivates it', { timeout: 120_000 }, async () => {
    const sb = await startTestSandbox();
    try {
      const dir = rig.tempDir('keydeck-e2e-spend-');
      const env = { ...cleanEnv(dir), KEYDECK_BASE_URL: sb.url };
      const token = await sb.fundedUser(400);
      const steady = await sb.creditKey(token, 'steady-batch');
      const web = await sb.creditKey(token, 'web-frontend');
      // A day of usage reads every 2 hours (sandbox clock) into this user's history.db: the baseline.
      const origin = originOf(sb.url);
      const store = BalanceHistoryStore.open({ path: path.join(dir, 'data', 'history.db') });
      const client = new KeydeckClient({ baseUrl: sb.url, token });
      const primer = new UsageTracker({
        client,
        budget: new UsageBudget(store.database),
        credential: credentialIdOf(origin, token),
        origin,
        keyHistory: new KeyHistory(store.database, store.series('default', origin).id),
      });
      for (let i = 0; i < 12; i++) {
        await sb.infer(steady.apiKey, { sandbox_cost_usd: 1 });
        await sb.infer(web.apiKey, { sandbox_cost_usd: 0.25 });
        await client.billing.credits();
        await primer.refresh('auto');
        await sb.advance(2 * 3600);
      }
      client.close();
      store.close();
      // Ten times faster for the next 2 hours.
      await sb.infer(steady.apiKey, { sandbox_cost_usd: 10 });
      await sb.infer(web.apiKey, { sandbox_cost_usd: 0.25 });

      const app = rig.start({ env: { ...env, KEYDECK_TOKEN: token }, columns: 100, rows: 30 });
      await app.waitFor(/"steady-batch" is spending \$(4\.9\d|5\.00)\/h, 10× its usual \$0\.50\/h · D deactivates it/);
      // Who spends what: the Keys pane's columns (100 columns: 24 h and 30 d), sorted by spend.
      for (let i = 0; i < 4; i++) app.write('s');
      await app.waitFor('sorted biggest spend first');
      const keys = app.screenText();
      expect(keys).toMatch(/│ 24 h ↓\s+│ 30 d\s+│/);
      // The last 24 h: eleven reads' $1 and the $10 since; biggest first.
      expect(keys).toMatch(/│ [▶ ] steady-batch\s+│ credit[^\n]*│\s+\$21\.00 │\s+\$22\.00 │\n│ [▶ ] web-frontend/);
      app.write('3');
      await app.waitFor(/top spenders · 24 h · usage just now/);
      expect(app.screenText()).toMatch(/steady-batch\s+\$21\.00\s+8[78]% █/);
      expect(app.screenText()).toMatch(/web-frontend\s+\$3\.00\s+1[23]% █/);

      // The monitor in a tmux-sized pane shows the same, and the alert with the command that acts.
      const monitor = rig.start({ args: ['monitor'], env: { ...env, KEYDECK_TOKEN: token }, columns: 90, rows: 14 });
      await monitor.waitFor(/top spenders · 24 h · usage/);
      await monitor.waitFor(/steady-batch\s+\$21\.00/);
      expect(monitor.screenText()).toMatch(/"steady-batch" is spending .* keydeck keys disable/);
      monitor.write('q');
      await monitor.exited;

      // The banner's D: the confirm dialog, Cancel first; then the key's requests fail.
      app.write('D');
      await app.waitFor('Deactivate "steady-batch"?');
      app.write('\t');
      app.write('\r');
      await app.waitFor('deactivated "steady-batch": its requests now fail');
      const refused = await sb.infer(steady.apiKey);
      expect(refused.status).toBe(403);
      await app.waitFor((s) => !s.includes('D deactivates it'));
      app.write('q');
      await app.exited;
    } finally {
      await sb.close();
    }
  });

  it('two keydeck processes and a command loop make at most 12 usage calls in the sandbox’s 12 hours', { timeout: 120_000 }, async () => {
    const sb = await startTestSandbox();
    try {
      const dir = rig.tempDir('keydeck-e2e-budget-');
      const token = await sb.fundedUser(30);
      await sb.creditKey(token, 'k');
      const env = { ...cleanEnv(dir), KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token };
      const a = rig.start({ env, columns: 80, rows: 24 });
      const b = rig.start({ args: ['monitor', '--interval', '2'], env, columns: 80, rows: 12 });
      const loop = (async () => {
        const results = [];
        for (let i = 0; i < 14; i++) results.push(await runCli(['keys', 'usage', '--refresh'], { env: { ...env, NO_COLOR: '1' } }));
        return results;
      })();
      const results = await loop;
      // Both live processes keep asking their schedule meanwhile; u asks on demand.
      a.write('u');
      b.write('u');
      await a.waitFor(/no read left of 12 per 12 h/);
      const counted = (await sb.call('GET', '/sandbox/usage/calls')).body;
      expect(counted.served).toBeLessThanOrEqual(12);
      expect(counted.refused).toBe(0);
      expect(counted.served).toBe(12);
      // A refresh that found no read left exits 4, with the kept figures; the others 0.
      expect(results.every((r) => r.code === 0 || r.code === 4)).toBe(true);
      expect(results.at(-1)!.code).toBe(4);
      expect(results.at(-1)!.stdout).toMatch(/no read left of 12 per 12 h · next in 1[12] h/);
      a.write('q');
      b.write('q');
      await Promise.all([a.exited, b.exited]);
    } finally {
      await sb.close();
    }
  });
});
