/**
 * Soak: thousands of balance polls at a tiny interval through the real polling engine (the
 * account watcher, src/watcher, which the faces never run below 2 s) and the real API client
 * against the sandbox, every reading kept in the watcher's history and shown by a rendered
 * component through the TUI's hook, the bell rung by the Billing pane's useBalanceAlerts, while the
 * balance keeps moving. Then: the history buffer stayed bounded, the component drew only for the
 * readings (not for every step of a poll), the timers are cleared, and the open sockets stayed
 * bounded (keep-alive: one connection reused, not one per poll).
 */
import { Text } from 'ink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryRecorder } from '../../../src/billing/historyRecorder.js';
import { AccountWatcher } from '../../../src/watcher/accountWatcher.js';
import { useWatcherSlice } from '../../../src/tui/hooks/useAccountWatcher.js';
import { useBalanceAlerts } from '../../../src/tui/panes/billing/useBalanceAlerts.js';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { renderTui } from '../render.js';
import { spend } from './billingHarness.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

const POLLS = 2000;
const CAPACITY = 128;

/** Counts of the active resources by kind (Timeout, TCPSocketWrap, …). */
function resources(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) out[kind] = (out[kind] ?? 0) + 1;
  return out;
}

function Probe({ watcher, bell, onRender }: { readonly watcher: AccountWatcher; readonly bell: () => void; readonly onRender: () => void }) {
  const poll = useWatcherSlice(watcher, (s) => s.poll, watcher.snapshot.poll);
  const trend = useWatcherSlice(watcher, (s) => s.trend, watcher.snapshot.trend);
  useBalanceAlerts(watcher, { bell });
  onRender();
  return <Text>{`${poll.data?.remaining ?? '…'} ${trend.history.size}`}</Text>;
}

describe('soak', () => {
  it(`${POLLS} polls at a 1 ms interval: history, timers and sockets stay bounded`, { timeout: 120_000 }, async () => {
    const token = await sandbox.fundedUser(1000);
    const client = sandbox.client(token);
    let polls = 0;
    let maxSockets = 0;
    let maxHistory = 0;
    let rings = 0;
    let renders = 0;
    let firstError: unknown;
    const recorder = new HistoryRecorder({ history: { capacity: CAPACITY, minSpacingMs: 0 } });
    const watcher = new AccountWatcher({ connect: () => ({ client }), intervalMs: 1, history: recorder, alertBelowUsd: 990 });
    watcher.on((event) => {
      if (event.kind !== 'balance' && event.kind !== 'failure') return;
      polls++;
      // A failed poll ends the loop below and fails the test (a throw here would only stop this poll).
      if (event.kind === 'failure') firstError ??= event.error;
      if (polls % 50 === 0) maxSockets = Math.max(maxSockets, resources().TCPSocketWrap ?? 0);
    });
    const tui = renderTui(<Probe watcher={watcher} bell={() => rings++} onRender={() => renders++} />);
    const before = resources();
    watcher.start();
    // Keep the balance moving (spending through inference) while the polls run.
    let spent = 0;
    while (polls < POLLS && firstError === undefined) {
      if (spent < 20) {
        await spend(sandbox, token, 1);
        spent++;
      }
      maxHistory = Math.max(maxHistory, recorder.history.size);
      await new Promise((r) => setTimeout(r, 25));
    }
    await watcher.stop();
    await new Promise((r) => setTimeout(r, 50));
    await tui.waitFor('980');
    maxHistory = Math.max(maxHistory, recorder.history.size);
    tui.unmount();
    client.close();
    await new Promise((r) => setTimeout(r, 200));
    const after = resources();

    expect(firstError).toBeUndefined();
    expect(polls).toBeGreaterThanOrEqual(POLLS);
    // The history never held more than its capacity, and it holds the latest balance.
    expect(maxHistory).toBe(CAPACITY);
    expect(recorder.history.latest()!.remaining).toBe(980);
    // The bell's state machine saw the crossing below $990 once.
    expect(rings).toBe(1);
    // React committed for the readings only: at most one render per poll (and the first).
    expect(renders).toBeLessThanOrEqual(polls + 1);
    // Keep-alive: a handful of sockets (client and server ends, the spend requests), never one per poll.
    expect(maxSockets).toBeLessThanOrEqual(12);
    // No timer left behind by the watcher, no socket left open by the client.
    expect(after.Timeout ?? 0).toBeLessThanOrEqual(before.Timeout ?? 0);
    expect(after.TCPSocketWrap ?? 0).toBeLessThanOrEqual(before.TCPSocketWrap ?? 0);
  });
});
