/**
 * The shared balance (§2.3 credit balance record of `GET /api/billing/credits`), polled every
 * `profile.pollIntervalSeconds` through {@link usePolling}. The header (remaining, connection
 * state) and the Billing pane read it with {@link useBalance}; any action that changes money
 * or keys calls {@link useBalanceRefresh}'s `refresh()`. A 401 marks the session rejected.
 */
import { createContext, useContext, type ReactNode } from 'react';
import type { CreditBalance } from '../../api/schemas.js';
import { isUnauthorized } from '../errors.js';
import type { PollingResult } from '../hooks/usePolling.js';
import { usePolling } from '../hooks/usePolling.js';
import { useServices } from './ServicesContext.js';
import { useSession, useSessionActions } from './SessionContext.js';

const BalanceStateContext = createContext<PollingResult<CreditBalance> | undefined>(undefined);
const BalanceRefreshContext = createContext<() => void>(() => {});

/** Polls the balance while a client exists (phase `ready`). */
export function BalanceProvider({ children }: { readonly children?: ReactNode }) {
  const { profile } = useServices();
  const { client } = useSession();
  const { markRejected, markAccepted } = useSessionActions();
  const poll = usePolling<CreditBalance>((signal) => (client ? client.billing.credits({ signal }) : Promise.reject(new Error('no client'))), {
    intervalMs: profile.pollIntervalSeconds * 1000,
    key: client,
    enabled: client !== undefined,
    onSettled: (state) => {
      if (state.error === undefined) markAccepted();
      else if (isUnauthorized(state.error)) markRejected();
    },
  });
  return (
    <BalanceRefreshContext.Provider value={poll.refresh}>
      <BalanceStateContext.Provider value={poll}>{children}</BalanceStateContext.Provider>
    </BalanceRefreshContext.Provider>
  );
}

/**
 * The polled balance: `data` (§2.3 record, USD; kept while polls fail), `updatedAt` (epoch ms),
 * `error`, `failingSince`, `failures`, `inFlight`, `nextAt`, `refresh()`.
 */
export function useBalance(): PollingResult<CreditBalance> {
  const v = useContext(BalanceStateContext);
  if (!v) throw new Error('useBalance needs <BalanceProvider>');
  return v;
}

/** Polls the balance now (stable identity; re-renders only when the poller is replaced). */
export function useBalanceRefresh(): () => void {
  return useContext(BalanceRefreshContext);
}
