/**
 * The low-balance alert and the status tree on the Billing pane, against the sandbox: the bell
 * rings once per downward crossing (not on every poll) and re-arms after a top-up; the balance
 * carries the word LOW (not only a colour) in the pane and the header; `s` shows
 * `GET /api/billing/status` as a key/value tree.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { openBilling, recordingDeps, spend, tempJournal } from './billingHarness.js';

// Integration shims (no-ops once keymap.ts and panes/index.ts carry the billing lines).
vi.mock('../../../src/tui/keymap.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../../src/tui/keymap.js')>();
  const { BILLING_KEY_ACTIONS } = await import('../../../src/tui/panes/billing/keyActions.js');
  return mod.KEY_ACTIONS.some((a) => a.id === 'billing.topup') ? mod : { ...mod, KEY_ACTIONS: [...mod.KEY_ACTIONS, ...BILLING_KEY_ACTIONS] };
});
vi.mock('../../../src/tui/panes/index.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../../src/tui/panes/index.js')>();
  const { BillingPane } = await import('../../../src/tui/panes/billing/BillingPane.js');
  return { ...mod, PANES: mod.PANES.map((p) => (p.id === 'billing' ? { ...p, Component: BillingPane } : p)) };
});

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

describe('low-balance alert', () => {
  it('rings once per crossing below the threshold and again only after the balance went back above it', async () => {
    const token = await sandbox.fundedUser(25);
    const { journal, cleanup } = tempJournal();
    const deps = recordingDeps(journal);
    const screen = openBilling(sandbox, token, { deps, alertBelowUsd: 20 });
    const { tui } = screen;
    const refresh = async (expected: string) => {
      await tui.press('r');
      return tui.waitFor(expected);
    };
    try {
      await tui.waitFor('remaining $25.00');
      expect(deps.bells.count).toBe(0);

      await spend(sandbox, token, 10);
      let frame = await refresh('remaining $15.00');
      expect(frame).toContain('LOW: below $20.00');
      expect(frame).toContain('$15.00 left (low)');
      expect(deps.bells.count).toBe(1);

      // More polls and more spending below the threshold: no more rings.
      await spend(sandbox, token, 1);
      await refresh('remaining $14.00');
      await refresh('remaining $14.00');
      expect(deps.bells.count).toBe(1);

      // A top-up above the threshold re-arms it; the next crossing rings again.
      const c = sandbox.client(token);
      await c.topUp({ amount: 10, method: 'card_direct' });
      c.close();
      frame = await refresh('remaining $24.00');
      expect(frame).not.toContain('LOW');
      expect(deps.bells.count).toBe(1);
      await spend(sandbox, token, 5);
      await refresh('remaining $19.00');
      expect(deps.bells.count).toBe(2);
    } finally {
      screen.close();
      cleanup();
    }
  });
});

describe('billing status', () => {
  it('s shows whatever GET /api/billing/status returns as a key/value tree', async () => {
    const token = await sandbox.fundedUser(25);
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), rows: 40 });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $25.00');
      await tui.press('s');
      const frame = await tui.waitFor('totalTopUp: 25');
      expect(frame).toContain('billing status');
      expect(frame).toMatch(/balance\n\s+totalTopUp: 25/);
      expect(frame).toContain('recentTopUps');
      await tui.press('s');
      await tui.waitFor((f) => !f.includes('totalTopUp: 25'));
    } finally {
      screen.close();
      cleanup();
    }
  });
});
