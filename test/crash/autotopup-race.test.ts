/**
 * Auto top-up on two machines started at once, again and again (docs/topups.md "Auto top-up",
 * what holds across machines): two data dirs on one account, `autotopup run --once` started in
 * both at the same moment as real processes after each fall of the balance, both drawing their
 * settle wait from one window. Over 20 pairs at most one fall is charged twice, after which one of
 * the two machines is paused and says why (and charges nothing more); no UTC day's cap is passed
 * by more than one charge. The window is short here (0–0.5 s) so that the pairs do collide now and
 * then and the pause is walked; the default (5–30 s) makes a collision rarer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../credentials/harness.js';
import { scripted, type Scripted } from '../commands/scripted.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
const homes: Scripted[] = [];
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  for (const h of homes) h.home.remove();
  await sb?.close();
});

const PAIRS = 20;
const AMOUNT = 30;
const DAY_CAP = 90;
const SETTLE = '0-0.5';

/** The card-on-file charges the sandbox lists (credited), with when each was made (the sandbox clock, ms). */
async function cardCharges(token: string): Promise<Array<{ paymentId: string; at: number }>> {
  const data = (await sb.call('GET', '/api/billing/status', { token })).body.data;
  return data.recentTopUps
    .filter((t: { method: string }) => t.method === 'card_direct')
    .map((t: { paymentId: string; createdAt: string }) => ({ paymentId: t.paymentId, at: Date.parse(t.createdAt) }));
}

describe('auto top-up: two machines started at once, 20 times', () => {
  it('charges at most one fall twice, then one machine is paused and says why; no day cap is passed by more than one charge', { timeout: 240_000 }, async () => {
    const token = await sb.fundedUser(25);
    const machines = [scripted(sb.url), scripted(sb.url)];
    homes.push(...machines);
    for (const m of machines) {
      const set = await m.run(token, ['autotopup', 'set', '--below', '20', '--amount', String(AMOUNT), '--max-per-day', String(DAY_CAP), '--max-per-month', '100000', '--yes']);
      expect(set.code, set.stderr).toBe(0);
    }
    const key = await sb.creditKey(token, 'spender');
    const run = (m: Scripted): Promise<CliResult> =>
      runCli(['autotopup', 'run', '--once'], { env: m.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token, KEYDECK_AUTOTOPUP_SETTLE_SECONDS: SETTLE }), runner: 'process', timeoutMs: 45_000 });
    const log: string[] = [];
    let twice = 0;
    let pausedMachine: number | undefined;
    const seen = new Set<string>();
    for (let pair = 0; pair < PAIRS; pair++) {
      // The balance falls to $15.
      const { remaining } = await sb.credits(token);
      if (remaining > 15) expect((await sb.infer(key.apiKey, { sandbox_cost_usd: Math.round((remaining - 15) * 100) / 100 })).status).toBe(200);
      const runs = await Promise.all(machines.map(run));
      const now = await cardCharges(token);
      const fresh = now.filter((c) => !seen.has(c.paymentId));
      for (const c of fresh) seen.add(c.paymentId);
      log.push(`pair ${pair + 1}: ${fresh.length} charge(s) · ${runs.map((r, i) => `${'ab'[i]} ${r.code}: ${`${r.stdout}${r.stderr}`.trim().slice(0, 90)}`).join(' · ')}`);
      expect(fresh.length, log.join('\n')).toBeLessThanOrEqual(2);
      if (pausedMachine !== undefined) {
        // The paused machine says why, and charges nothing.
        expect(runs[pausedMachine]!.code, log.join('\n')).toBe(3);
        expect(`${runs[pausedMachine]!.stdout}${runs[pausedMachine]!.stderr}`, log.join('\n')).toMatch(
          /^Auto top-up is paused on this machine: .*two machines run auto top-up for this account: keep one\./,
        );
      }
      if (fresh.length === 2) {
        twice++;
        expect(twice, `a second fall charged twice\n${log.join('\n')}`).toBe(1);
        pausedMachine = runs.findIndex((r) => /two machines run auto top-up for this account: keep one/.test(`${r.stdout}${r.stderr}`));
        expect(pausedMachine, log.join('\n')).toBeGreaterThanOrEqual(0);
        expect(
          runs.filter((r) => /two machines run auto top-up/.test(`${r.stdout}${r.stderr}`)),
          log.join('\n'),
        ).toHaveLength(1);
        const status = await machines[pausedMachine]!.run(token, ['autotopup', 'status']);
        expect(status.stdout).toMatch(/^PAUSED on this machine since .*: Another card charge for the same fall of the balance was made before this one \(.*pi_sandbox_/m);
      }
      for (const r of runs) expect([0, 3], `${r.stdout}${r.stderr}`).toContain(r.code);
      // A day's cap reached: both machines said so (or the paused one, its pause); the next day begins.
      const today = new Date((await sb.call('GET', '/sandbox')).headers.get('date')!).toISOString().slice(0, 10);
      const charged = (await cardCharges(token)).filter((c) => new Date(c.at).toISOString().slice(0, 10) === today).length * AMOUNT;
      expect(charged, `the day's cap passed by more than one charge\n${log.join('\n')}`).toBeLessThanOrEqual(DAY_CAP + AMOUNT);
      if (runs.some((r) => /would pass the day's cap/.test(`${r.stdout}${r.stderr}`))) {
        expect(charged, log.join('\n')).toBeGreaterThan(DAY_CAP - AMOUNT);
        await sb.advance(86_400);
      }
    }
    console.log(`auto top-up, ${PAIRS} pairs at once (settle ${SETTLE} s): ${twice} fall(s) charged twice\n${log.join('\n')}`);
  });
});
