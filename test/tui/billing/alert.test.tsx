/**
 * The low-balance alert and the status tree on the Billing pane, against the sandbox: the bell
 * rings once per downward crossing (not on every poll) and re-arms after a top-up; the balance
 * carries the word LOW (not only a colour) in the pane and the header; `s` shows
 * `GET /api/billing/status` as a summary of the documented shape, or a key/value tree of any other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { openBilling, recordingDeps, sandboxPost, spend, tempJournal } from './billingHarness.js';

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
      await c.billing.topUp({ amount: 10, method: 'card_direct' });
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
  it('s shows the billing status as the pages document it: subscriptions, pool pledges, credit balance', async () => {
    const token = await sandbox.fundedUser(25);
    await sandboxPost(sandbox, '/sandbox/subscriptions', { plan: 'pro', blocks: ['asia', 'europe'] }, token);
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), rows: 40 });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $25.00');
      await tui.press('s');
      const frame = await tui.waitFor('credit balance: 25.00 USD');
      expect(frame).toContain('billing status');
      expect(frame).toContain('subscriptions: none');
      expect(frame).toMatch(/pool pledges \(1\)\n\s+asia\+europe\n\s+id: [\w-]+\n\s+status: active\n\s+period ends: \d{4}-\d\d-\d\d \d\d:\d\d UTC\n\s+cancel at period end: yes\n\s+has a key: yes/);
      await tui.press('s');
      await tui.waitFor((f) => !f.includes('credit balance: 25.00 USD'));
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('s falls back to the key/value tree for a status shape it does not recognise', async () => {
    const token = await sandbox.fundedUser(25);
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, token, {
      deps: recordingDeps(journal),
      rows: 40,
      wrapClient: (client) => ({
        keys: client.keys,
        managementKeys: client.managementKeys,
        billing: {
          methodNames: client.billing.methodNames,
          credits: (o) => client.billing.credits(o),
          topUp: (i, o) => client.billing.topUp(i, o),
          verifyTopUp: (i, o) => client.billing.verifyTopUp(i, o),
          cancel: (id, o) => client.billing.cancel(id, o),
          status: async () => ({ plan: 'enterprise', limits: { rpm: 600 } }),
        },
      }),
    });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $25.00');
      await tui.press('s');
      const frame = await tui.waitFor('rpm: 600');
      expect(frame).toMatch(/plan: enterprise\n\s+limits\n\s+rpm: 600/);
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('s shows the service’s texts through the sanitiser: a newline in a plan’s name starts no forged line', async () => {
    const token = await sandbox.fundedUser(25);
    const { journal, cleanup } = tempJournal();
    const forged = 'credit balance: 1000000.00 USD';
    const screen = openBilling(sandbox, token, {
      deps: recordingDeps(journal),
      rows: 40,
      columns: 120,
      wrapClient: (client) => ({
        keys: client.keys,
        managementKeys: client.managementKeys,
        billing: {
          methodNames: client.billing.methodNames,
          credits: (o) => client.billing.credits(o),
          topUp: (i, o) => client.billing.topUp(i, o),
          verifyTopUp: (i, o) => client.billing.verifyTopUp(i, o),
          cancel: (id, o) => client.billing.cancel(id, o),
          status: async () => ({
            subscriptions: [{ id: 'sub_1', planSlug: `pro\n${forged}`, status: `active\u001b[2J`, keyCount: 1 }],
            creditBalance: 25,
          }),
        },
      }),
    });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $25.00');
      await tui.press('s');
      const frame = await tui.waitFor('credit balance: 25.00 USD');
      expect(frame).toContain(`pro\\u000a${forged}`);
      expect(frame).toContain('status: active\\u001b[2J');
      expect(frame.split('\n').filter((l) => l.trimStart().startsWith('credit balance'))).toEqual([expect.stringMatching(/^\s*credit balance: 25\.00 USD/)]);
    } finally {
      screen.close();
      cleanup();
    }
  });
});
