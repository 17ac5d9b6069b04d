/**
 * Soak: thousands of balance polls at a tiny interval through the real polling engine (the
 * shell's Poller, which usePolling wraps; usePolling itself never goes below 2 s) and the real
 * API client against the sandbox, every result fed through the Billing pane's
 * useBalanceMonitor in a rendered component while the balance keeps moving. Then: the history
 * buffer stayed bounded, the timers are cleared, and the open sockets stayed bounded
 * (keep-alive: one connection reused, not one per poll).
 */
import { useSyncExternalStore } from 'react';
import { Text } from 'ink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreditBalance } from '../../../src/api/schemas.js';
import { Poller, type PollState } from '../../../src/tui/hooks/poller.js';
import { useBalanceMonitor, type BalanceMonitor } from '../../../src/tui/panes/billing/useBalanceMonitor.js';
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

function Probe({ poller, onMonitor }: { readonly poller: Poller<CreditBalance>; readonly onMonitor: (m: BalanceMonitor) => void }) {
  const state = useSyncExternalStore(poller.subscribe, poller.getState) as PollState<CreditBalance>;
  const monitor = useBalanceMonitor(state, { alertBelowUsd: 990, bell: () => {}, history: { capacity: CAPACITY, minSpacingMs: 0 } });
  onMonitor(monitor);
  return <Text>{`${state.data?.remaining ?? '…'} ${monitor.history.size}`}</Text>;
}

describe('soak', () => {
  it(`${POLLS} polls at a 1 ms interval: history, timers and sockets stay bounded`, { timeout: 120_000 }, async () => {
    const token = await sandbox.fundedUser(1000);
    const client = sandbox.client(token);
    let polls = 0;
    let maxSockets = 0;
    let maxHistory = 0;
    let monitor: BalanceMonitor | undefined;
    let firstError: unknown;
    const poller = new Poller<CreditBalance>({
      fetch: (signal) => client.billing.credits({ signal }),
      intervalMs: 1,
      onSettled: (s) => {
        polls++;
        // A failed poll ends the loop below and fails the test (a throw here would only stop the poller).
        if (s.error !== undefined) firstError ??= s.error;
        if (polls % 50 === 0) maxSockets = Math.max(maxSockets, resources().TCPSocketWrap ?? 0);
      },
    });
    const tui = renderTui(<Probe poller={poller} onMonitor={(m) => (monitor = m)} />);
    const before = resources();
    poller.start();
    // Keep the balance moving (spending through inference) while the polls run.
    let spent = 0;
    while (polls < POLLS && firstError === undefined) {
      if (spent < 20) {
        await spend(sandbox, token, 1);
        spent++;
      }
      maxHistory = Math.max(maxHistory, monitor?.history.size ?? 0);
      await new Promise((r) => setTimeout(r, 25));
    }
    poller.stop();
    await new Promise((r) => setTimeout(r, 50));
    await tui.waitFor('980');
    maxHistory = Math.max(maxHistory, monitor!.history.size);
    tui.unmount();
    client.close();
    await new Promise((r) => setTimeout(r, 200));
    const after = resources();

    expect(firstError).toBeUndefined();
    expect(polls).toBeGreaterThanOrEqual(POLLS);
    // The history never held more than its capacity, and it holds the latest balance.
    expect(maxHistory).toBe(CAPACITY);
    expect(monitor!.history.latest()!.remaining).toBe(980);
    // The bell's state machine saw the crossing below $990 once.
    expect(monitor!.rings).toBe(1);
    // Keep-alive: a handful of sockets (client and server ends, the spend requests), never one per poll.
    expect(maxSockets).toBeLessThanOrEqual(12);
    // No timer left behind by the poller, no socket left open by the client.
    expect(after.Timeout ?? 0).toBeLessThanOrEqual(before.Timeout ?? 0);
    expect(after.TCPSocketWrap ?? 0).toBeLessThanOrEqual(before.TCPSocketWrap ?? 0);
  });
});
