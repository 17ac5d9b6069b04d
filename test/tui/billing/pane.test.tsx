/**
 * The Billing pane tells the truth at every size: where the chart gives way to a sparkline
 * (80×24 with the top spenders), it still names the top-ups of its window and the whole range of
 * the balance; an unfinished top-up found at start is a line of the pane, not the pane (enter
 * takes it up: test/tui/billing/card.test.tsx); `?` opens the key overlay on the top-up
 * walk-through, at its keys, and leaves it as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BalanceHistory } from '../../../src/billing/history.js';
import { BalanceChart } from '../../../src/tui/panes/billing/BalanceChart.js';
import { renderTui } from '../render.js';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { KEYS, openBilling, recordingDeps, startUsdcTopUp, tempJournal } from './billingHarness.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const MINUTE = 60_000;

describe('the sparkline in place of the chart', () => {
  it.each(['24h', '7d', '30d'] as const)('names the top-ups of its window and the whole range (%s), though they fell in one cell', (window) => {
    const now = Date.now();
    const history = new BalanceHistory({ minSpacingMs: 0 });
    // $84.20 left, then two card top-ups within a minute ($30 and $25), read a few seconds apart.
    history.add(now - 10 * MINUTE, 84.2, 125);
    history.add(now - 10 * MINUTE + 20_000, 114.2, 155);
    history.add(now - 10 * MINUTE + 40_000, 139.2, 180);
    history.add(now - MINUTE, 139.2, 180);
    const ui = renderTui(<BalanceChart history={history} window={window} now={now} columns={78} rows={2} />, { columns: 80, rows: 24 });
    try {
      const frame = ui.lastFrame();
      expect(frame).toContain(`balance, last ${window}`);
      expect(frame).toContain('▲ 2 top-ups +$55.00');
      expect(frame).toContain('$84.20 – $139.20');
      expect(frame).not.toContain('flat at');
      for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    } finally {
      ui.unmount();
    }
  });
});

describe('the chart of a history that changes in place', () => {
  it('draws a reading the moment it is added, within the same minute, and moves with the clock once a minute', async () => {
    const now = Math.floor(Date.now() / MINUTE) * MINUTE + 10_000;
    const history = new BalanceHistory({ minSpacingMs: 0 });
    history.add(now - 10 * MINUTE, 84.2, 125);
    history.add(now - 5 * MINUTE, 80, 125);
    const chart = (at: number) => <BalanceChart history={history} window="1h" now={at} columns={78} rows={2} />;
    const ui = renderTui(chart(now), { columns: 80, rows: 24 });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    try {
      await settle();
      expect(ui.lastFrame()).toContain('$80.00 – $84.20');
      expect(ui.lastFrame()).not.toContain('top-up');
      // The same history object, one reading more (its version moves), the clock at the same instant.
      history.add(now - 1_000, 105, 150);
      ui.instance.rerender(chart(now));
      await settle();
      expect(ui.lastFrame()).toContain('▲ top-up +$25.00');
      expect(ui.lastFrame()).toContain('$80.00 – $105.00');
      // An hour and a minute later the window holds none of them: the clock alone redraws it.
      ui.instance.rerender(chart(now + 61 * MINUTE));
      await settle();
      expect(ui.lastFrame()).not.toContain('top-up');
    } finally {
      ui.unmount();
    }
  });
});

describe('? on the top-up walk-through', () => {
  it('opens the key overlay at the walk-through’s keys; closing it leaves the walk-through as it was', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await startUsdcTopUp(tui, '10');
      // The hint bar offers it.
      expect(tui.lastFrame()).toMatch(/\? help/);
      await tui.press('?');
      const overlay = await tui.waitFor('Key bindings');
      expect(overlay).toContain('Top-up walk-through (t on the Billing pane)');
      await tui.press(KEYS.esc);
      const back = await tui.waitFor('To address');
      expect(back).toContain('Send exactly  10 USDC');
    } finally {
      screen.close();
      cleanup();
    }
  });
});
