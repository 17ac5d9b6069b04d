/**
 * The USDC step on a real chain: against a sandbox on anvil, the deposit address is
 * watched and a transfer found there is verified with `f` (no hash typed); a short transfer is
 * said in the chain's words and nothing is sent until `y`; several transfers are listed and `tab`
 * selects the next.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import type { TopUpJournal } from '../../../src/billing/journal.js';
import { openBilling, recordingDeps, shownAddress, startUsdcTopUp, tempJournal, type BillingScreen } from './billingHarness.js';

let sandbox: TestSandbox;
let rpcUrl: string;
beforeAll(async () => {
  sandbox = await startTestSandbox({ chain: {} });
  rpcUrl = (await sandbox.call<{ rpcUrl: string }>('GET', '/sandbox/chain')).body.rpcUrl;
}, 30_000);
afterAll(async () => {
  await sandbox?.close();
});

const totalTopUp = async (token: string) => (await sandbox.credits(token)).totalTopUp;
const chainSettings = async () => ({ enabled: true as const, rpcUrl, source: 'sandbox' as const });

/**
 * A new user's app on the Billing pane (100×30, the chain read at the sandbox's anvil), walked to
 * the USDC step of a top-up of `amount`; `body` gets the screen, the user, the deposit address and
 * the record. Unmounted and removed after.
 */
async function onUsdcStep(amount: string, body: (step: { tui: BillingScreen['tui']; user: string; address: string; journal: TopUpJournal }) => Promise<void>): Promise<void> {
  const { journal, cleanup } = tempJournal();
  const user = await sandbox.newUser();
  // 10 s calls: three apps at once beside a chain, on a busy machine (the 3 s default timed out once in CI).
  const screen = openBilling(sandbox, user, { deps: recordingDeps(journal), columns: 100, rows: 30, chainSettings, timeoutMs: 10_000 });
  try {
    await screen.tui.waitFor('remaining $0.00');
    const address = shownAddress(await startUsdcTopUp(screen.tui, amount))!;
    await body({ tui: screen.tui, user, address, journal });
  } finally {
    screen.close();
    cleanup();
  }
}

// The tests run at once: each mostly waits for the 4 s chain watch, with a user, a deposit address
// and a record of its own (anvil numbers the shared payer's transfers itself).
describe.concurrent('the USDC step on chain', () => {
  it(
    'finds the transfer at the deposit address and f credits it: no hash typed',
    () =>
      onUsdcStep('25', async ({ tui, user, address, journal }) => {
        await tui.waitFor(/On chain +watching for USDC on Base through 127\.0\.0\.1:\d+, every 4 s/);
        const hash = await sandbox.transfer(address, '25');
        const frame = await tui.waitFor('found       25.00 USDC from 0xf39F…2266', 15_000);
        expect(frame).toContain(`${hash.slice(0, 6)}…${hash.slice(-4)}`);
        expect(frame).toContain('f verifies the transfer found on chain');
        await tui.press('f');
        await tui.waitFor('✓ Credited $25.00', 15_000);
        expect(await totalTopUp(user)).toBe(25);
        expect((await journal.withHash(hash, { host: new URL(sandbox.url).host, profile: 'test' }))[0]?.chainEvidence).toMatchObject({
          amount: '25.00',
          from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
        });
      }),
    40_000,
  );

  it(
    'says a short transfer in the chain’s words and sends nothing until y',
    () =>
      onUsdcStep('25', async ({ tui, user, address }) => {
        await sandbox.transfer(address, '24.5');
        await tui.waitFor('found       24.50 USDC', 15_000);
        await tui.press('f');
        await tui.waitFor('The chain: 24.50 USDC arrived, the top-up is for 25.00: verify with 24.50 or top up again.');
        await tui.waitFor('y sends the verify anyway');
        await tui.press('n');
        await tui.waitFor('f verifies the transfer found on chain');
        expect(await totalTopUp(user)).toBe(0);
        await tui.press('f');
        await tui.waitFor('y sends the verify anyway');
        await tui.press('y');
        // The service decides: it refuses the amount, as the chain said.
        await tui.waitFor(/amount/i);
        await tui.waitFor('press e and verify with the amount you actually sent', 15_000);
        expect(await totalTopUp(user)).toBe(0);
      }),
    40_000,
  );

  it(
    'lists several transfers, tab selects the next, and f verifies the selected one',
    () =>
      onUsdcStep('10', async ({ tui, user, address }) => {
        await sandbox.transfer(address, '7');
        await sandbox.transfer(address, '10');
        await tui.waitFor(/› found +7\.00 USDC[\s\S]* {2}found +10\.00 USDC/, 15_000);
        await tui.press('\t');
        await tui.waitFor(/ {2}found +7\.00 USDC[\s\S]*› found +10\.00 USDC/);
        await tui.press('f');
        await tui.waitFor('✓ Credited $10.00', 15_000);
        expect(await totalTopUp(user)).toBe(10);
      }),
    40_000,
  );
});
