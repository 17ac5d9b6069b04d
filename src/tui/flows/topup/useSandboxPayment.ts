/**
 * The walk-through's sandbox shortcuts (`s`): with a sandbox behind the session, the USDC step
 * sends a simulated transfer to the deposit address (its hash filled in, ready to verify), and the
 * card checkout step pays the session as the sandbox's checkout page would (no browser,
 * no card). Either is sent once per key press, never retried; nothing is credited here: the USDC
 * transfer is verified as any other, and the checkout is credited once the billing status names it
 * paid, as a real payment is.
 */
import { useCallback, type MutableRefObject } from 'react';
import type { JournalEntry } from '../../../billing/journal.js';
import { describeFailure } from '../../errors.js';
import { entryIdOf, type FlowMessage, type FlowView } from './flowState.js';
import type { TopUpDeps } from './TopUpDeps.js';
import { formatUsd } from '../../../api/money.js';

/** What {@link useSandboxPayment} works with (the walk-through's own state, ./useTopUpFlow.ts). */
export interface SandboxPaymentInputs {
  readonly viewRef: MutableRefObject<FlowView | undefined>;
  readonly entriesRef: MutableRefObject<readonly JournalEntry[]>;
  readonly baseUrl: string | undefined;
  readonly canSimulate: boolean;
  /** One money action at a time. */
  readonly lock: MutableRefObject<boolean>;
  readonly mounted: MutableRefObject<boolean>;
  readonly deps: TopUpDeps;
  readonly runBusy: <T>(label: string, fn: () => Promise<T>) => Promise<{ ok: true; value: T } | { ok: false; error: unknown }>;
  readonly save: (id: string, patch: Partial<JournalEntry>) => Promise<unknown>;
  readonly setView: (update: (v: FlowView | undefined) => FlowView | undefined) => void;
  /** Reads the balance now (the card wait looks at the billing status when the total moved). */
  readonly refreshBalance: () => void;
}

/** `simulate`: the `s` of the USDC and the card checkout steps. See the module comment. */
export function useSandboxPayment(inputs: SandboxPaymentInputs): () => void {
  const { viewRef, entriesRef, baseUrl, canSimulate, lock, mounted, deps, runBusy, save, setView, refreshBalance } = inputs;
  return useCallback(() => {
    const v = viewRef.current;
    const current = entriesRef.current.find((e) => e.id === entryIdOf(v));
    if (!current || !baseUrl || !canSimulate || lock.current) return;
    const say = (kind: 'usdc' | 'card', message: FlowMessage, patch: Partial<Extract<FlowView, { kind: 'usdc' }>> = {}) =>
      setView((view) => (view?.kind === kind ? ({ ...view, ...(kind === 'usdc' ? patch : {}), message } as FlowView) : view));
    if (v?.kind === 'card' && current.sessionId) {
      const sessionId = current.sessionId;
      lock.current = true;
      void (async () => {
        try {
          const paid = await runBusy(`paying the checkout session in the sandbox (${formatUsd(current.amount)})`, () => (deps.payCheckout ?? defaultPayCheckout)(baseUrl, sessionId));
          if (!mounted.current) return;
          if (!paid.ok) return say('card', { tone: 'error', lines: [describeFailure(paid.error)] });
          say('card', { tone: 'info', lines: [`Paid on the sandbox’s checkout page (no card was charged). Credited once the billing status names session ${sessionId} paid.`] });
          refreshBalance();
        } finally {
          lock.current = false;
        }
      })();
      return;
    }
    if (v?.kind !== 'usdc' || !current.address) return;
    const amount = current.instructedAmount ?? String(current.amount);
    lock.current = true;
    void (async () => {
      try {
        const result = await runBusy(`simulating a transfer of ${amount} USDC`, () => deps.simulateTransfer(baseUrl, { to: current.address!, amount }));
        if (!mounted.current) return;
        if (!result.ok) return say('usdc', { tone: 'error', lines: [describeFailure(result.error)] });
        // Paid on-chain from now on: the hash goes into the journal before anything else.
        await save(current.id, { txHash: result.value.txHash });
        say('usdc', { tone: 'info', lines: [`Simulated transfer of ${amount} USDC sent. Its hash is filled in: press enter to verify it.`] }, { mode: 'hash', hashDraft: result.value.txHash });
      } finally {
        lock.current = false;
      }
    })();
  }, [viewRef, entriesRef, baseUrl, canSimulate, lock, mounted, deps, runBusy, save, setView, refreshBalance]);
}

/** The real checkout payment, loaded when first used. */
async function defaultPayCheckout(baseUrl: string, sessionId: string): Promise<void> {
  const { payCheckoutInSandbox } = await import('../../../api/sandbox-sim.js');
  return payCheckoutInSandbox(baseUrl, sessionId);
}
