/**
 * Where the money goes, for the whole TUI: the last usage answer (read through the one
 * budget of 12 per 12 hours, or kept by another keydeck), joined with the key list and the
 * balance (src/billing/spend.ts), its age and the reads left, and the runaway alerts: a key
 * caught by its own judgement (once per episode, across processes) and, between usage reads, the
 * balance falling at N× its baseline (judged by the account watcher after each reading, on the
 * balance history it keeps), with the key that spent most at the last read named as the likely cause.
 *
 * The account watcher (./BalanceContext.tsx) opens the usage record after the first frame, and asks
 * the schedule for a read after every successful balance poll (cheap: src/billing/usageBudget.ts
 * decides); `u` spends one on demand; `r` never does. State and actions are two contexts (the
 * Gemini CLI pattern). The usage line's words that move with the clock ("usage 3 min ago", "next
 * in 2 h 5 min") are drawn again by what shows them, when they change (src/billing/usageWords.ts
 * `usageLineChangeAt` through src/tui/hooks/useAge.ts), so the age says the truth at its own
 * boundaries and only what draws it is rendered again (a whole frame each for Ink), not the shell
 * nor the panes that do not draw it. A refresh that only moves the budget's clock changes nothing
 * here (the watcher keeps its slice for it: src/watcher/usageSlice.ts `sameUsage`).
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, type ReactNode } from 'react';
import type { UsagePeriod } from '../../api/usageSchemas.js';
import type { AccountJudgement, KeySample } from '../../billing/runaway.js';
import { sharePeriod, spendRows, topSpender, usageBehindBalance, type SpendRow } from '../../billing/spend.js';
import type { UsageSnapshot } from '../../billing/usageTracker.js';
import { accountAlertSentence, ageChangeAt, ageWords, keyAlertSentence } from '../../billing/usageWords.js';
import { visible } from '../../terminal/sanitize.js';
import { NO_USAGE } from '../../watcher/usageSlice.js';
import { useWatcherEvents, useWatcherSlice } from '../hooks/useAccountWatcher.js';
import { alertEvent } from '../hooks/usageAlerts.js';
import { useServiceWords } from '../hooks/useServiceWords.js';
import { useChangedState } from '../hooks/useChangedState.js';
import { useAccountData } from './AccountDataContext.js';
import { useAccountWatcher, useBalanceSelect, useCredits } from './BalanceContext.js';
import { useServices } from './ServicesContext.js';
import { useSession } from './SessionContext.js';
import { useFlash } from './StatusContext.js';

/** A runaway alert as the banner shows it. */
export interface RunawayAlert {
  /** The key's id, or `account` for the balance alert. */
  readonly id: string;
  /** The key to deactivate (the likely one for the balance alert), when known and active. */
  readonly keyId?: string;
  readonly keyName?: string;
  /** One sentence (no `⚠`). */
  readonly text: string;
}

/** What the usage views read. */
export interface UsageView {
  /** A usage record exists for this session (false: tests without one, or the database could not be used). */
  readonly available: boolean;
  readonly snapshot: UsageSnapshot;
  /** The answer's keys joined with the key list and the balance (empty before any answer). */
  readonly rows: readonly SpendRow[];
  /** By id. */
  readonly byId: ReadonlyMap<string, SpendRow>;
  /** The period shares and top spenders are reckoned over (24 h when given). */
  readonly period?: UsagePeriod;
  /** A read on demand is under way. */
  readonly reading: boolean;
  /** The figures were read before the balance last changed (marked as such where shown). */
  readonly behindBalance: boolean;
  /** The alerts to show, newest last. */
  readonly alerts: readonly RunawayAlert[];
  /** A key's spend read by read over the last 7 days (from the per-key history), oldest first. */
  readonly samplesOf: (keyId: string) => readonly KeySample[];
}

/** The usage actions (stable). */
export interface UsageActions {
  /** Spends a read now when one is left (`u`); resolves with the snapshot after it. */
  readonly readNow: () => Promise<UsageSnapshot>;
  /** Hides an alert (`X`) until its episode starts again. */
  readonly dismiss: (id: string) => void;
  /** The balance's judgement after a reading (undefined: calm); the account watcher's are taken up by the provider itself. */
  readonly reportAccountBurn: (judgement: AccountJudgement | undefined) => void;
}

const EMPTY_VIEW: UsageView = { available: false, snapshot: { episodes: new Map() }, rows: [], byId: new Map(), reading: false, behindBalance: false, alerts: [], samplesOf: () => [] };
const StateContext = createContext<UsageView>(EMPTY_VIEW);
const ActionsContext = createContext<UsageActions>({ readNow: async () => EMPTY_VIEW.snapshot, dismiss: () => {}, reportAccountBurn: () => {} });

/** See the module comment. Inside AccountDataProvider and BalanceProvider. */
export function UsageProvider({ children }: { readonly children?: ReactNode }) {
  const services = useServices();
  const session = useSession();
  const { keys } = useAccountData();
  // The balance's fields, the same object while they stay the same: a poll that finds the same
  // balance re-renders nothing here.
  const credits = useCredits();
  const flash = useFlash();
  const watched = useAccountWatcher();
  const watcher = watched?.watcher;
  const client = session.client;
  // The figures join the key list: while its first read is under way, the kept answer the watcher
  // takes up meanwhile draws no frame of its own (a whole frame for Ink, before the list's, and
  // the spend columns over no rows); it is shown in the list's frame. Reloads of a list already
  // read (or failed) do not hold it.
  const firstList = keys.data === undefined && keys.error === undefined && keys.loading;
  const usageSlice = useWatcherSlice(watcher, (s) => s.usage, NO_USAGE, !firstList);
  const usage = firstList ? NO_USAGE : usageSlice;
  const rig = usage.available ? watched?.usageRig() : undefined;

  const keyList = keys.data;
  const names = useCallback((id: string) => keyList?.find((k) => k.id === id)?.name, [keyList]);
  const { snapshot } = usage;
  const rows = useMemo(() => (snapshot.report ? spendRows(snapshot.report, keyList, credits?.totalTopUp) : []), [snapshot.report, keyList, credits?.totalTopUp]);
  const byId = useMemo(() => new Map(rows.map((r) => [r.id, r])), [rows]);
  const period = snapshot.report ? sharePeriod(snapshot.report.periods) : undefined;
  // When the balance last changed (this machine's clock): figures read before it are marked.
  // The poll that brought the remaining balance shown (its `updatedAt` kept while it stays the same).
  const reading = useBalanceSelect(
    (poll) => ({ remaining: poll.data?.remaining, updatedAt: poll.updatedAt }),
    (a, b) => a.remaining === b.remaining && (a.updatedAt === undefined) === (b.updatedAt === undefined),
  );
  const lastChange = useRef<{ remaining?: number; at?: number }>({});
  if (reading.remaining !== undefined && reading.updatedAt !== undefined && reading.remaining !== lastChange.current.remaining) {
    // The first reading tells no change (when it last changed before keydeck started is unknown).
    lastChange.current = { remaining: reading.remaining, ...(lastChange.current.remaining !== undefined && { at: reading.updatedAt }) };
  }
  const offset = client?.serviceClockOffsetMs ?? 0;
  // Or figures that account for less spend than the balance record does (read in an earlier session).
  const behindBalance = (snapshot.at !== undefined && lastChange.current.at !== undefined && snapshot.at - offset < lastChange.current.at) || usageBehindBalance(rows, credits);

  // Told at every poll (account_burn), mostly the same: a state set to itself calls no setState (see useChangedState).
  const [dismissed, setDismissed] = useChangedState<ReadonlySet<string>>(new Set());
  const [account, setAccount] = useChangedState<AccountJudgement | undefined>(undefined);
  const likely = useMemo(() => (period ? topSpender(rows, period) : undefined), [rows, period]);
  const accountOpen = useRef(false);
  const reportAccountBurn = useCallback(
    (judgement: AccountJudgement | undefined) => {
      setAccount(judgement);
      if (!judgement) {
        accountOpen.current = false;
        setDismissed((d) => (d.has('account') ? new Set([...d].filter((x) => x !== 'account')) : d));
        return;
      }
      if (accountOpen.current) return;
      accountOpen.current = true;
      services.notify?.({
        kind: 'account_burn',
        usdPerHour: judgement.usdPerHour,
        baselineUsdPerHour: judgement.baselineUsdPerHour,
        ...(likely && { likelyKeyId: likely.id, likelyKeyName: visible(likely.name) }),
      });
    },
    [services, likely, setAccount, setDismissed],
  );

  useWatcherEvents(watcher, (event) => {
    // Every runaway episode this process starts is told once, with the key list's name.
    if (event.kind === 'usage') for (const alert of event.alerts) services.notify?.(alertEvent(alert, names(alert.keyId) ?? alert.name ?? alert.keyId));
    // Between usage reads: is the balance falling at N× its own baseline?
    else if (event.kind === 'account_burn') reportAccountBurn(event.judgement);
    else if (event.kind === 'usage_unavailable') {
      flash(`usage is not read: keydeck's shared record of usage reads cannot be used (${event.error instanceof Error ? event.error.message : String(event.error)})`, 'warning');
    }
  });

  // The likely cause's "(N min ago)" is the figures' age: this provider is rendered again when
  // its words change, and the alerts are worded again for it, only while an account alert names
  // a likely cause (its wake is the Keys pane's for the usage line: one commit for both).
  const figuresAt = account && likely ? snapshot.at : undefined;
  const likelyAge = useServiceWords(
    (t) => (figuresAt === undefined ? undefined : ageWords(figuresAt, t)),
    (t) => (figuresAt === undefined ? undefined : ageChangeAt(figuresAt, t)),
  );
  const active = useCallback((id: string) => keyList === undefined || keyList.some((k) => k.id === id && k.isActive), [keyList]);
  const alerts = useMemo(() => {
    const out: RunawayAlert[] = [];
    for (const [id, episode] of snapshot.episodes) {
      if (dismissed.has(id) || !active(id)) continue;
      const name = visible(names(id) ?? byId.get(id)?.name ?? id);
      out.push({
        id,
        keyId: id,
        keyName: name,
        text: keyAlertSentence(name, {
          kind: episode.kind,
          usdPerHour: episode.usdPerHour,
          ...(episode.baselineUsdPerHour !== undefined && { baselineUsdPerHour: episode.baselineUsdPerHour }),
          from: episode.startedAt,
          at: episode.lastAt,
        }),
      });
    }
    if (account && !dismissed.has('account')) {
      const name = likely ? visible(likely.name) : undefined;
      out.push({
        id: 'account',
        ...(likely && name !== undefined && active(likely.id) && { keyId: likely.id, keyName: name }),
        text: accountAlertSentence(account, likely && name !== undefined && likelyAge !== undefined ? { name, age: likelyAge } : undefined),
      });
    }
    return out;
  }, [snapshot.episodes, dismissed, active, names, byId, account, likely, likelyAge]);

  const dismiss = useCallback((id: string) => setDismissed((d) => new Set([...d, id])), [setDismissed]);
  // A dismissal lasts while its episode does: a new episode of the key is shown again.
  useEffect(() => {
    setDismissed((d) => {
      const kept = [...d].filter((id) => id === 'account' || snapshot.episodes.has(id));
      return kept.length === d.size ? d : new Set(kept);
    });
  }, [snapshot.episodes, setDismissed]);
  const samplesOf = useCallback(
    (keyId: string): readonly KeySample[] => {
      if (!rig || snapshot.at === undefined) return [];
      try {
        return rig.keyHistory.samples(keyId, snapshot.at - 7 * 86_400_000);
      } catch {
        // history unreadable: no spend samples to draw
        return [];
      }
    },
    [rig, snapshot.at],
  );
  const view = useMemo<UsageView>(
    () => ({ available: usage.available, snapshot, rows, byId, ...(period && { period }), reading: usage.reading, behindBalance, alerts, samplesOf }),
    [usage.available, snapshot, rows, byId, period, usage.reading, behindBalance, alerts, samplesOf],
  );
  const readNow = useCallback(async () => (watcher ? watcher.readUsage() : EMPTY_VIEW.snapshot), [watcher]);
  const actions = useMemo<UsageActions>(() => ({ readNow, dismiss, reportAccountBurn }), [readNow, dismiss, reportAccountBurn]);
  return (
    <ActionsContext.Provider value={actions}>
      <StateContext.Provider value={view}>{children}</StateContext.Provider>
    </ActionsContext.Provider>
  );
}

/** The usage state (an empty view outside a provider: the monitor, tests of other panes). */
export function useUsage(): UsageView {
  return useContext(StateContext);
}

/** The usage actions (stable identity). */
export function useUsageActions(): UsageActions {
  return useContext(ActionsContext);
}
