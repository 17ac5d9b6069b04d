/**
 * The Billing pane with a balance history on disk: a restarted keydeck shows the
 * burn rates and the run-out projection in its first frames, from the history, and keeps every
 * new reading; a history that cannot be opened is said once and the pane works from memory.
 */
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BalanceHistoryStore, originOf } from '../../../src/billing/historyStore.js';
import type { BalanceSample } from '../../../src/billing/history.js';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { openBilling, recordingDeps, tempJournal } from './billingHarness.js';

let sandbox: TestSandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-history-tui-'));
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const HOUR = 3_600_000;

/** Eight days of readings every 15 s until `end`: $1 spent per hour, $25 + $500 topped up. */
function eightDays(end: number): BalanceSample[] {
  const out: BalanceSample[] = [];
  const start = end - 8 * 24 * HOUR;
  for (let t = start; t <= end; t += 15_000) {
    const spent = Math.round(((t - start) / HOUR) * 1e6) / 1e6;
    out.push({ t, remaining: Math.round((525 - spent) * 1e6) / 1e6, totalTopUp: 525 });
  }
  return out;
}

describe('the Billing pane with a history on disk', () => {
  it('shows the 15 min, 1 h, 24 h and 7 d burn rates and the run-out at once, and keeps the new reading', async () => {
    const token = await sandbox.fundedUser(25);
    const file = path.join(dir, 'history.db');
    const seed = BalanceHistoryStore.open({ path: file });
    seed.series('test', originOf(sandbox.url)).appendMany(eightDays(Date.now() - 1000));
    seed.close();
    const store = BalanceHistoryStore.open({ path: file });
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), openHistory: (baseUrl) => store.series('test', originOf(baseUrl)) });
    try {
      const frame = await screen.tui.waitFor('remaining');
      // About $1/h in every window (a little less when the test is slow: the last reading comes later).
      expect(frame).toMatch(/burn 15 min \$(0\.9\d|1\.00)\/h · 1 h \$(0\.9\d|1\.00)\/h · 24 h \$(0\.9\d|1\.00)\/h · 7 d \$(0\.9\d|1\.00)\/h/);
      expect(frame).not.toContain('collecting');
      expect(frame).toMatch(/runs out in 2\d h/);
      // The first poll's reading is on disk.
      const readings = store.series('test', originOf(sandbox.url)).load(Date.now() - 60_000);
      expect(readings.at(-1)).toMatchObject({ remaining: 25, totalTopUp: 25 });
    } finally {
      screen.close();
      store.close();
      cleanup();
    }
  });

  it('says once that the history cannot be kept, and still shows the balance', async () => {
    const token = await sandbox.fundedUser(25);
    const notAFile = path.join(dir, 'a-directory.db');
    mkdirSync(notAFile);
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), openHistory: () => BalanceHistoryStore.open({ path: notAFile }).series('test', 'x') });
    try {
      const frame = await screen.tui.waitFor('balance history not kept');
      // The status area wraps: the whole sentence, path included, is on screen.
      expect(frame.replace(/\s+/g, ' ')).toContain(`⚠ balance history not kept: the balance history ${notAFile} is not a regular file`);
      await screen.tui.waitFor('remaining $25.00');
    } finally {
      screen.close();
      cleanup();
    }
  });
});

describe('the balance chart on the Billing pane', () => {
  it('draws the history at 80×24 with axes and a marked top-up, and w cycles the window', async () => {
    const token = await sandbox.fundedUser(25);
    const file = path.join(dir, 'chart.db');
    const store = BalanceHistoryStore.open({ path: file });
    // A day of readings: $100 topped up, $2/h spent, a $25 top-up 6 h ago, then this account's $25.
    const series = store.series('test', originOf(sandbox.url));
    const now = Date.now();
    const readings: BalanceSample[] = [];
    for (let t = now - 24 * HOUR; t < now - 60_000; t += 60_000) {
      const totalTopUp = t > now - 6 * HOUR ? 125 : 100;
      readings.push({ t, remaining: Math.round((totalTopUp - ((t - (now - 24 * HOUR)) / HOUR) * 2) * 100) / 100, totalTopUp });
    }
    series.appendMany(readings);
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), openHistory: (baseUrl) => store.series('test', originOf(baseUrl)) });
    try {
      const frame = await screen.tui.waitFor('balance, last 24h');
      expect(frame).toContain('w 1h 6h [24h] 7d 30d');
      expect(frame).toMatch(/\$\d+\.\d\d ┤/);
      expect(frame).toMatch(/-24h .* now/);
      expect(frame).toContain('▲ top-up +$25.00');
      // Every line fits the 80 columns.
      for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
      await screen.tui.press('w');
      await screen.tui.waitFor('balance, last 7d · w 1h 6h 24h [7d] 30d');
    } finally {
      screen.close();
      store.close();
      cleanup();
    }
  });
});
