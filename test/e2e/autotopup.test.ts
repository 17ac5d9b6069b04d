/**
 * `keydeck monitor --auto-topup` in a pseudo-terminal, as an operator leaves it in a
 * tmux pane: a policy set with `keydeck autotopup set`, the balance falls below it, the monitor's
 * next read charges the card once, its line says so, and `--on-auto-topup` runs with the figures.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../credentials/harness.js';
import { startTestSandbox } from '../sandbox/helpers.js';
import { cleanEnv, e2eRig } from './session.js';

const rig = e2eRig();

describe('keydeck monitor --auto-topup', () => {
  it('charges once when the balance falls below the policy, says so in its line, and runs --on-auto-topup', { timeout: 60_000 }, async () => {
    const sb = await startTestSandbox();
    try {
      const dir = rig.tempDir('keydeck-e2e-autotopup-');
      const token = await sb.fundedUser(25);
      const env = { ...cleanEnv(dir), KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token, KEYDECK_AUTOTOPUP_SETTLE_SECONDS: '0-1' };
      const set = await runCli(['autotopup', 'set', '--below', '20', '--amount', '30', '--max-per-day', '100', '--yes'], { env });
      expect(set.code, set.stderr).toBe(0);
      const hook = path.join(dir, 'hook.env');
      const monitor = rig.start({ args: ['monitor', '--interval', '2', '--auto-topup', '--on-auto-topup', `env | grep ^KEYDECK_ | sort > ${hook}`], env, columns: 90, rows: 14 });
      await monitor.waitFor(/auto top-up: below \$20\.00 → \$30\.00 · \$100\.00 of today's cap left/);
      const key = await sb.creditKey(token, 'spender');
      expect((await sb.infer(key.apiKey, { sandbox_cost_usd: 10 })).status).toBe(200);
      await monitor.waitFor(/auto top-up: below \$20\.00 → \$30\.00 · \d\d:\d\d UTC charged \$30\.00/, 15_000);
      await monitor.waitFor(/remaining \$45\.00/, 15_000);
      for (let i = 0; i < 50 && !existsSync(hook); i++) await new Promise((r) => setTimeout(r, 100));
      const figures = readFileSync(hook, 'utf8');
      expect(figures).toMatch(/^KEYDECK_AUTOTOPUP_AMOUNT_USD=30\.00$/m);
      expect(figures).toMatch(/^KEYDECK_AUTOTOPUP_OUTCOME=credited$/m);
      expect(figures).toMatch(/^KEYDECK_AUTOTOPUP_PAUSED=0$/m);
      expect(figures).toMatch(/^KEYDECK_EVENT=auto_top_up$/m);
      expect(figures).not.toMatch(/^KEYDECK_TOKEN=/m);
      monitor.write('q');
      await monitor.exited;
      expect(await sb.credits(token)).toMatchObject({ totalTopUp: 55 });
    } finally {
      await sb.close();
    }
  });
});
