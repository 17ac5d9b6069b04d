/**
 * The TUI with a top-up record that cannot be trusted (src/billing/journal.ts, "Fail closed"): the
 * Billing pane says so in one line, `t` starts no top-up, and nothing is charged; a record damaged
 * while the app runs is caught before the next charge is sent.
 */
import { truncateSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TopUpJournal } from '../../../src/billing/journal.js';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { KEYS, openBilling, recordingDeps, tempJournal } from './billingHarness.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

describe('a top-up record that cannot be trusted', () => {
  it('one line on the Billing pane; t starts nothing, and nothing is charged', async () => {
    const { file, cleanup } = tempJournal();
    const before = new TopUpJournal({ path: file });
    await before.add({ amount: 30, method: 'card_direct', state: 'verifying', host: 'example.com', profile: 'other' });
    before.close();
    truncateSync(file, 0);
    const token = await sandbox.newUser();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(new TopUpJournal({ path: file })) });
    const { tui } = screen;
    try {
      const frame = await tui.waitFor('top-up record damaged');
      expect(frame).toContain('✕ top-up record damaged: no top-up or verify (billing history --accept-loss)');
      await tui.press('t');
      await new Promise((r) => setTimeout(r, 300));
      expect(tui.lastFrame()).not.toContain('1/3 amount');
      expect((await sandbox.client(token).billing.credits()).totalTopUp).toBe(0);
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('damaged while the app runs: the charge is refused before it is sent', async () => {
    const { journal, file, cleanup } = tempJournal();
    const earlier = await journal.add({ amount: 20, method: 'usdc', state: 'awaiting_payment', host: 'example.com', profile: 'other' });
    const token = await sandbox.newUser();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await tui.press('t');
      await tui.waitFor('1/3 amount');
      await tui.type('15');
      await tui.press(KEYS.enter);
      await tui.waitFor('2/3 method');
      // Another program edits a row (SQLite's own view of the file stays whole: its header and
      // pages may sit in the WAL the app keeps open, so a damaged header would not be seen yet).
      const db = new DatabaseSync(file);
      db.prepare('UPDATE topups SET entry = substr(entry, 2) WHERE id = ?').run(earlier.id);
      db.close();
      await tui.press('d', KEYS.enter);
      await tui.waitFor('to the card on file?');
      await tui.press(KEYS.tab, KEYS.enter);
      const frame = await tui.waitFor('Nothing was requested', 10_000);
      const text = frame.replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');
      expect(text).toMatch(/the top-up record \S+topups\.db cannot be trusted \(its top-up #1 \(awaiting payment\) is not as keydeck wrote it/);
      expect((await sandbox.client(token).billing.credits()).totalTopUp).toBe(0);
    } finally {
      screen.close();
      cleanup();
    }
  });
});
