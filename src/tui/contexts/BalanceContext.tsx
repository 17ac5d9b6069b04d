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
 *
 * Each poll changes the watcher's `poll` slice (`updatedAt` at least), and each React commit makes
 * Ink draw the whole frame again (about 3 MB of garbage at 100×30), though a poll that finds the
 * same balance changes nothing on screen. So the provider itself does not re-render per poll: a
 * component reads the part of the poll it shows with {@link useBalanceSelect}, and commits only
 * when that part changes; what must happen at each successful poll listens with
 * {@link usePollSucceeded}, without a render (docs/performance.md, "The TUI's memory").
 */
import { createContext, useContext, useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
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
import { useWatcherEvents } from '../hooks/useAccountWatcher.js';
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
/** Set by the provider (its value never changes): {@link useBalance} outside one is a bug. */
const BalanceStateContext = createContext<boolean>(false);
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
  const { waitUntil } = services;
  useEffect(() => {
    if (!watcher) return;
    watcher.start();
    // Its poll abandoned, a run of auto top-up under way finished: the app's end waits for the stop.
    return () => void waitUntil(watcher.stop());
  }, [watcher, waitUntil]);
  useWatcherEvents(watcher, (event) => {
    if (event.kind === 'balance') markAccepted();
    else if (event.kind === 'failure' && isUnauthorized(event.error)) markRejected();
  });
  const refresh = useMemo(() => () => watcher?.refresh(), [watcher]);
  return (
    <AccountContext.Provider value={account}>
      <BalanceRefreshContext.Provider value={refresh}>
        <BalanceStateContext.Provider value={true}>{children}</BalanceStateContext.Provider>
      </BalanceRefreshContext.Provider>
    </AccountContext.Provider>
  );
}

function noSubscribe(): () => void {
  return () => {};
}

const UNSET: unique symbol = Symbol('unset');

/**
 * The part `select` picks of the polled balance ({@link PollState}: `data`, the credit balance
 * record, USD; `updatedAt`, epoch ms; `error`, `failingSince`, `failures`, `inFlight`, `nextAt`).
 * The calling component re-renders only when the part changes by `isEqual` (Object.is unless
 * given; the part kept is then the earlier one), so a poll that changes nothing it shows costs no
 * frame. `select` may read the clock (an age in steps): the part is picked again at each poll and
 * each render. With `live` false the component is not re-rendered by polls at all (a pane not
 * shown), and reads the part as it is when it renders. Must be inside {@link BalanceProvider}.
 */
export function useBalanceSelect<T>(select: (poll: PollState<CreditBalance>) => T, isEqual: (a: T, b: T) => boolean = Object.is, live = true): T {
  if (!useContext(BalanceStateContext)) throw new Error('useBalance needs <BalanceProvider>');
  const watcher = useContext(AccountContext)?.watcher;
  const last = useRef<T | typeof UNSET>(UNSET);
  const selectRef = useRef(select);
  selectRef.current = select;
  const equalRef = useRef(isEqual);
  equalRef.current = isEqual;
  const subscribe = watcher && live ? watcher.subscribe : noSubscribe;
  return useSyncExternalStore(subscribe, () => {
    const next = selectRef.current(watcher ? watcher.snapshot.poll : EMPTY);
    const before = last.current;
    if (before !== UNSET && equalRef.current(before, next)) return before;
    last.current = next;
    return next;
  });
}

/** The same credit balance record field by field (a poll parses a new object each time). */
export function sameCredits(a: CreditBalance | undefined, b: CreditBalance | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The credit balance record (USD; kept while polls fail), the same object while its fields stay the same. */
export function useCredits(live = true): CreditBalance | undefined {
  return useBalanceSelect((poll) => poll.data, sameCredits, live);
}

/**
 * Calls `listener` with the time (epoch ms) of each successful balance poll, while mounted,
 * without re-rendering the caller (the latest `listener` is called).
 */
export function usePollSucceeded(listener: (at: number) => void): void {
  const watcher = useContext(AccountContext)?.watcher;
  useWatcherEvents(watcher, (event) => {
    if (event.kind === 'balance') listener(event.at);
  });
}

/**
 * The whole polled balance (see {@link useBalanceSelect}) and `refresh()`: the caller re-renders
 * at every change of it, each poll included. `live` as in {@link useBalanceSelect}.
 */
export function useBalance(live = true): PollingResult<CreditBalance> {
  const poll = useBalanceSelect((p) => p, Object.is, live);
  const refresh = useContext(BalanceRefreshContext);
  return useMemo(() => ({ ...poll, refresh }), [poll, refresh]);
}

/** Polls the balance now (stable identity; re-renders only when the watcher is replaced). */
export function useBalanceRefresh(): () => void {
  return useContext(BalanceRefreshContext);
}

/** The watched account (undefined before a client exists, and outside a provider). */
export function useAccountWatcher(): WatchedAccount | undefined {
  return useContext(AccountContext);
}
