/**
 * `keydeck --auto-topup` in the TUI, against the sandbox: with a policy, a balance
 * read below the threshold is charged once; the Billing pane's line says the policy and what it
 * did, a notification tells it, the balance is read again at once, and the charge is a row of the
 * recent top-ups. Three declines: the line says PAUSED. Without the flag, nothing is charged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AutoTopUpPolicy } from '../../../src/config/autoTopUp.js';
import type { NotifyEvent } from '../../../src/terminal/notify.js';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import type { TuiHandle } from '../render.js';
import { openBilling, recordingDeps, sandboxPost, spend, tempJournal } from './billingHarness.js';

let sandbox: TestSandbox;
let dataDir: string;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  dataDir = mkdtempSync(path.join(tmpdir(), 'keydeck-autotopup-tui-'));
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const POLICY: AutoTopUpPolicy = { belowUsd: 20, amountUsd: 30, maxPerDayUsd: 100, maxPerMonthUsd: 300, since: new Date(Date.now() - 60_000).toISOString() };
// No settle wait: one TUI against its own account (the wait is the cross-machine suites').
const autoTopUp = { readPolicy: async () => POLICY, pausePolicy: async () => {}, cardMethodNames: ['card_direct'], settle: { minMs: 0, maxMs: 0 } };
/** How long one run of auto top-up may take on a loaded machine, ms: its reads, the account's lock, the record's writes, the charge. */
const RUN_MS = 20_000;

/** Presses `r` (a reading now) until `done`; again when a press was not acted on (a run under way), within `budgetMs`. */
async function pressUntil(tui: TuiHandle, done: () => boolean, budgetMs = 60_000): Promise<void> {
  const deadline = Date.now() + budgetMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`pressUntil(${String(done)}) timed out`);
    await tui.press('r');
    await tui.waitFor(() => done(), 2_000).catch(() => undefined);
  }
}

describe('auto top-up in the TUI', () => {
  it('charges once below the threshold: the line, a notification, the balance read again, a row of the recent top-ups', async () => {
    const token = await sandbox.fundedUser(25);
    await spend(sandbox, token, 10);
    const { journal, cleanup } = tempJournal();
    const notified: NotifyEvent[] = [];
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), autoTopUp, dataDir, notify: (e) => notified.push(e), columns: 100, rows: 30 });
    try {
      const frame = await screen.tui.waitFor(/auto top-up: below \$20\.00 → \$30\.00 · \d\d:\d\d UTC charged \$30\.00/);
      await screen.tui.waitFor('remaining $45.00');
      expect(notified).toContainEqual(expect.objectContaining({ kind: 'auto_top_up', outcome: 'credited', amount: 30 }));
      expect(frame).not.toMatch(/auto top-up.*failed/);
      await screen.tui.waitFor(/\$30\.00\s+card direct\s+credited/);
      expect((await journal.list()).filter((e) => e.autoTopUp !== undefined)).toEqual([expect.objectContaining({ state: 'credited', amount: 30 })]);
      // More reads above the threshold: no second charge.
      await screen.tui.press('r');
      await screen.tui.waitFor('remaining $45.00');
      expect(await sandbox.credits(token)).toMatchObject({ totalTopUp: 55 });
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('three declined charges: the line says PAUSED and nothing more is sent', async () => {
    const token = await sandbox.fundedUser(25);
    await spend(sandbox, token, 10);
    await sandboxPost(sandbox, '/sandbox/cards/decline', { count: 4 }, token);
    const { journal, cleanup } = tempJournal();
    const notified: NotifyEvent[] = [];
    // Every run of auto top-up reads the policy first, and at most twice more (its quick look, then
    // under the account's lock before a charge): each read is counted.
    let policyReads = 0;
    const counted = { ...autoTopUp, readPolicy: async () => (policyReads++, POLICY) };
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), autoTopUp: counted, dataDir, notify: (e) => notified.push(e), columns: 100, rows: 30 });
    const charges = () => notified.filter((e) => e.kind === 'auto_top_up').length;
    try {
      await screen.tui.waitFor(/charge of \$30\.00 failed/, RUN_MS);
      // A reading that comes while a run is under way is not acted on (src/watcher/autoTopUpRun.ts):
      // each `r` is pressed once the run before it has told its charge, then its own is waited for.
      while (charges() < 3) {
        const told = charges();
        await screen.tui.press('r');
        await screen.tui.waitFor(() => charges() > told, RUN_MS);
      }
      await screen.tui.waitFor('auto top-up PAUSED: the last 3 charges failed · keydeck autotopup resume', RUN_MS);
      // Readings after the pause: pressed until two runs have started since (more than the three
      // policy reads one run makes), so the first of them has ended, whatever it did.
      const paused = policyReads;
      await pressUntil(screen.tui, () => policyReads >= paused + 4);
      expect(notified.filter((e) => e.kind === 'auto_top_up')).toEqual([
        expect.objectContaining({ outcome: 'failed', paused: false }),
        expect.objectContaining({ outcome: 'failed', paused: false }),
        expect.objectContaining({ outcome: 'failed', paused: true }),
      ]);
      // The fourth decline was never used: the service lists three declined charges, no fourth.
      expect((await sandbox.call('GET', '/api/billing/status', { token })).body.data.failedTopUps).toHaveLength(3);
    } finally {
      screen.close();
      cleanup();
    }
  }, 90_000);

  it('without --auto-topup nothing is charged, whatever the policy, and no line is drawn', async () => {
    const token = await sandbox.fundedUser(25);
    await spend(sandbox, token, 10);
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), dataDir, columns: 100, rows: 30 });
    try {
      await screen.tui.waitFor('remaining $15.00');
      await screen.tui.press('r');
      const frame = await screen.tui.waitFor('remaining $15.00');
      expect(frame).not.toContain('auto top-up');
      expect(await sandbox.credits(token)).toMatchObject({ totalTopUp: 25 });
    } finally {
      screen.close();
      cleanup();
    }
  });
});
