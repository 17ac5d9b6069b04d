/**
 * The account the TUI watches: one account watcher (src/watcher/accountWatcher.ts) for the
 * session's client, polling the balance (the credit balance record of `GET /api/billing/credits`)
 * every `profile.pollIntervalSeconds` (never below 2 s), with its history (the history database,
 * opened when the watcher starts), usage within the shared read budget (opened on a task of its
 * own, after the first frame and requests), and auto top-up with `--auto-topup`. The header
 * (remaining, connection state) and the Billing pane read the balance with {@link useBalance}; any
 * action that changes money or keys calls {@link useBalanceRefresh}'s `refresh()`; the usage views,
 * the Billing pane and auto top-up's line read the watcher's other slices and events through
 * {@link useAccountWatcher}. A 401 marks the session rejected.
 */
import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { hostOf } from '../../api/baseUrl.js';
import type { CreditBalance } from '../../api/schemas.js';
import { HistoryRecorder } from '../../billing/historyRecorder.js';
import { DEFAULT_RUNAWAY, type RunawaySettings } from '../../billing/runaway.js';
import { UsageTracker } from '../../billing/usageTracker.js';
import { dataDir } from '../../config/paths.js';
import { AutoTopUpRunner } from '../../operations/index.js';
import { AccountWatcher } from '../../watcher/accountWatcher.js';
import { pollIntervalMs } from '../../watcher/schedule.js';
import type { PollState, WatcherAutoTopUp } from '../../watcher/types.js';
import { isUnauthorized } from '../errors.js';
import { useTopUpDeps } from '../flows/topup/TopUpDeps.js';
import { useWatcherEvents, useWatcherSlice } from '../hooks/useAccountWatcher.js';
import type { UsageRig } from '../services.js';
import { useClock, useServices } from './ServicesContext.js';
import { useSession, useSessionActions } from './SessionContext.js';

/** {@link PollState} plus `refresh()`: poll now (or right after the poll under way). */
export interface PollingResult<T> extends PollState<T> {
  readonly refresh: () => void;
}

/** The watched account: its watcher, and the usage record it opened (the per-key history the details panel reads). */
export interface WatchedAccount {
  readonly watcher: AccountWatcher;
  /** The usage record of the session, once the watcher has opened it. */
  readonly usageRig: () => UsageRig | undefined;
}

const EMPTY: PollState<CreditBalance> = { failures: 0, inFlight: false };
const BalanceStateContext = createContext<PollingResult<CreditBalance> | undefined>(undefined);
const BalanceRefreshContext = createContext<() => void>(() => {});
const AccountContext = createContext<WatchedAccount | undefined>(undefined);

/** The runaway settings of the profile (a key at N× its own 7-day median; the least rate that can be one). */
export function useRunawaySettings(): RunawaySettings {
  const { profile } = useServices();
  return useMemo(
    () => ({ factor: profile.runawayFactor ?? DEFAULT_RUNAWAY.factor, floorUsdPerHour: profile.runawayFloorUsdPerHour ?? DEFAULT_RUNAWAY.floorUsdPerHour }),
    [profile.runawayFactor, profile.runawayFloorUsdPerHour],
  );
}

/** Watches the account while a client exists (phase `ready`). */
export function BalanceProvider({ children }: { readonly children?: ReactNode }) {
  const services = useServices();
  const clock = useClock();
  const session = useSession();
  const deps = useTopUpDeps();
  const settings = useRunawaySettings();
  const { markRejected, markAccepted } = useSessionActions();
  const { client, baseUrl, credentialId } = session;
  const account = useMemo((): WatchedAccount | undefined => {
    if (!client) return undefined;
    const { profile, openHistory, openUsage } = services;
    let rig: UsageRig | undefined;
    const openTracker = () => {
      rig = openUsage!(baseUrl!);
      const resource = client.usage!;
      return new UsageTracker({
        client: {
          usage: resource,
          get serviceClockOffsetMs() {
            return client.serviceClockOffsetMs;
          },
        },
        budget: rig.budget,
        keyHistory: rig.keyHistory,
        credential: credentialId!,
        origin: new URL(baseUrl!).origin,
        settings,
      });
    };
    const auto = services.autoTopUp;
    const autoTopUp: WatcherAutoTopUp | undefined =
      auto && baseUrl !== undefined
        ? {
            runner: new AutoTopUpRunner({
              journal: deps.journal,
              scope: { host: hostOf(baseUrl), profile: profile.name },
              dataDir: services.dataDir ?? dataDir(),
              readPolicy: auto.readPolicy,
              pausePolicy: auto.pausePolicy,
              cardMethodNames: auto.cardMethodNames,
              settle: auto.settle,
              failpoints: services.failpoints,
            }),
            clientOf: () => ({ billing: client.billing, serviceNow: () => Date.now() + (client.serviceClockOffsetMs ?? 0) }),
          }
        : undefined;
    const watcher = new AccountWatcher({
      connect: () => ({ client, ...(openUsage && baseUrl !== undefined && client.usage && credentialId && { usage: openTracker }) }),
      intervalMs: pollIntervalMs(profile.pollIntervalSeconds),
      ...(openHistory && baseUrl !== undefined && { history: (onError: (problem: string) => void) => new HistoryRecorder({ series: openHistory(baseUrl), now: clock(), onError }) }),
      alertBelowUsd: profile.alertBelowUsd,
      runaway: settings,
      autoTopUp,
    });
    return { watcher, usageRig: () => rig };
  }, [client, baseUrl, credentialId, services, settings, deps.journal, clock]);
  const watcher = account?.watcher;
  useEffect(() => {
    if (!watcher) return;
    watcher.start();
    return () => void watcher.stop();
  }, [watcher]);
  useWatcherEvents(watcher, (event) => {
    if (event.kind === 'balance') markAccepted();
    else if (event.kind === 'failure' && isUnauthorized(event.error)) markRejected();
  });
  const poll = useWatcherSlice(watcher, (s) => s.poll, EMPTY);
  const refresh = useMemo(() => () => watcher?.refresh(), [watcher]);
  const value = useMemo(() => ({ ...poll, refresh }), [poll, refresh]);
  return (
    <AccountContext.Provider value={account}>
      <BalanceRefreshContext.Provider value={refresh}>
        <BalanceStateContext.Provider value={value}>{children}</BalanceStateContext.Provider>
      </BalanceRefreshContext.Provider>
    </AccountContext.Provider>
  );
}

/**
 * The polled balance: `data` (the credit balance record, USD; kept while polls fail), `updatedAt`
 * (epoch ms), `error`, `failingSince`, `failures`, `inFlight`, `nextAt`, `refresh()`.
 */
export function useBalance(): PollingResult<CreditBalance> {
  const v = useContext(BalanceStateContext);
  if (!v) throw new Error('useBalance needs <BalanceProvider>');
  return v;
}

/** Polls the balance now (stable identity; re-renders only when the watcher is replaced). */
export function useBalanceRefresh(): () => void {
  return useContext(BalanceRefreshContext);
}

/** The watched account (undefined before a client exists, and outside a provider). */
export function useAccountWatcher(): WatchedAccount | undefined {
  return useContext(AccountContext);
}
