/**
 * The service's states and transitions budget example seen on screen, for a fresh user: top-up 50 (USDC walk-through with a
 * simulated transfer), spend 20 through the sandbox's inference endpoint, top-up 25 → remaining
 * 55 (total top-ups 75, spent 20), in the pane and in the header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { KEYS, openBilling, recordingDeps, spend, startUsdcTopUp, tempJournal } from './billingHarness.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the service’s states and transitions budget example on screen', () => {
  it('top-up 50, spend 20, top-up 25 → remaining $55.00', async () => {
    const token = await sandbox.newUser();
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');

      // Top-up 50 by USDC: the walk-through, a simulated transfer, verification.
      await startUsdcTopUp(tui, '50');
      await tui.press('s');
      await tui.waitFor('Simulated transfer');
      await tui.press(KEYS.enter);
      let frame = await tui.waitFor('Credited $50.00');
      expect(frame).toContain('New balance $50.00');
      await tui.press(KEYS.enter);
      await tui.waitFor('remaining $50.00');

      // Spend 20 through inference, then refresh.
      await spend(sandbox, token, 20);
      await tui.press('r');
      frame = await tui.waitFor('remaining $30.00');
      expect(frame).toContain('spent $20.00');

      // Top-up 25.
      await startUsdcTopUp(tui, '25');
      await tui.press('s');
      await tui.waitFor('Simulated transfer');
      await tui.press(KEYS.enter);
      frame = await tui.waitFor('Credited $25.00');
      expect(frame).toContain('New balance $55.00');
      await tui.press(KEYS.enter);
      frame = await tui.waitFor('remaining $55.00');
      expect(frame).toContain('total top-ups $75.00');
      expect(frame).toContain('spent $20.00');
      // The header shows the same figure.
      expect(frame).toContain('$55.00 left');
      // Both top-ups are in the journal list, credited.
      expect(frame.match(/credited/g)?.length ?? 0).toBeGreaterThanOrEqual(2);
    } finally {
      screen.close();
      cleanup();
    }
  });
});
