/**
 * The behaviour of the top-up walk-through: amount → method → the method's step,
 * every top-up on the shared record (src/billing/journal.ts, through src/billing/topups.ts, the
 * same procedures as the commands), USDC transfers verified once per user request (never retried
 * by itself), card top-ups credited only when the service's billing status names them paid (read
 * whenever `totalTopUp` changes; a rise nothing names is shown as such, never as credited), and an
 * unfinished top-up reopened at mount (after a restart; the record's side is ./useTopUpRecord.ts). Owned by the Billing pane, which stays
 * mounted while hidden, so a top-up in progress survives pane switches, failed polls and resizes.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { canSimulateTransfers } from '../../../api/sandbox-sim.js';
import type { CreditBalance, TopUpMethod } from '../../../api/schemas.js';
import { checkoutUrlProblem } from '../../../api/baseUrl.js';
import { hostOf, isUnfinished, methodLabel, type JournalEntry, type JournalScope } from '../../../billing/journal.js';
import { failureLine, OperationError, requestTopUp, type TopUpStep, type VerifyPorts } from '../../../operations/index.js';
import { useBalanceRefresh, useCredits } from '../../contexts/BalanceContext.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useSession, useSessionActions } from '../../contexts/SessionContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { describeFailure, isUnauthorized } from '../../errors.js';
import { entryIdOf, isStarted, METHODS, unsavedEntry, viewForEntry, type FlowMessage, type FlowView, type UsdcMode } from './flowState.js';
import { useTopUpDeps } from './TopUpDeps.js';
import { useTopUpRecord } from './useTopUpRecord.js';
import { useSandboxPayment } from './useSandboxPayment.js';
import { useUsdcVerify } from './useUsdcVerify.js';
import { useChainWatch, type ChainWatchView } from './useChainWatch.js';
import { formatUsd } from '../../../api/money.js';

/** How often the balance is read while a card payment is awaited on screen, ms. */
export const CARD_WATCH_INTERVAL_MS = 3_000;

/** What {@link useTopUpFlow} gives the Billing pane. */
export interface TopUpFlow {
  /** The step, when a walk-through exists (shown or left). */
  readonly view?: FlowView;
  /** The walk-through is shown (false: left, resumable). */
  readonly open: boolean;
  /** What is being sent, while a request is in flight. */
  readonly busy?: string;
  /** The journal's top-ups of this service and profile, newest first. */
  readonly entries: readonly JournalEntry[];
  /** The record cannot be trusted: its one line; no top-up is started and nothing is charged or verified (./useTopUpRecord.ts). */
  readonly damaged?: string;
  /** Shows a record another part of this process wrote (auto top-up's charge). */
  readonly remember: (entry: JournalEntry) => void;
  /** The entry of the current step. */
  readonly entry?: JournalEntry;
  /** "Simulate the transfer" and "pay the checkout" are offered (a sandbox). */
  readonly canSimulate: boolean;
  readonly start: () => void;
  readonly cancel: () => void;
  readonly submitAmount: (amount: number) => void;
  /** From the method step back to the amount (the amount kept as typed). */
  readonly backToAmount: () => void;
  readonly moveMethod: (delta: number) => void;
  readonly chooseMethod: (method: TopUpMethod) => void;
  /** Opens the checkout link in the browser; `onNoBrowser` runs when none could be opened. */
  readonly openCheckout: (onNoBrowser?: () => void) => void;
  readonly copy: (text: string, what: string) => void;
  readonly setUsdcMode: (mode: UsdcMode) => void;
  /** Verifies the transaction `hashText` (after the chain checks, unless `skipChecks`: the user said send anyway). */
  readonly verify: (hashText: string, options?: { readonly skipChecks?: boolean }) => void;
  /** What the chain shows at the deposit address. */
  readonly chain: ChainWatchView;
  readonly setAmountSent: (amount: number) => void;
  readonly simulate: () => void;
  readonly abandon: () => void;
  /** Hides a started walk-through (it stays open) or cancels one not started. */
  readonly leave: () => void;
  /** Shows the walk-through of `entryId` (default: the current one, else the newest unfinished). */
  readonly resume: (entryId?: string) => void;
  readonly close: () => void;
}

type Busy = string | undefined;

/** See the module comment. Must be inside the shell's providers (session, balance, status, services). */
export function useTopUpFlow(options: { readonly active: boolean }): TopUpFlow {
  const services = useServices();
  const session = useSession();
  const { markRejected } = useSessionActions();
  const refreshBalance = useBalanceRefresh();
  const flash = useFlash();
  const deps = useTopUpDeps();
  const client = session.client;
  const baseUrl = session.baseUrl;
  const scope = useMemo<JournalScope | undefined>(() => (baseUrl ? { host: hostOf(baseUrl), profile: services.profile.name } : undefined), [baseUrl, services.profile.name]);
  const canSimulate = baseUrl !== undefined && canSimulateTransfers(baseUrl, services.target === 'sandbox');

  const [view, setView] = useState<FlowView | undefined>(undefined);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<Busy>(undefined);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const viewRef = useRef(view);
  viewRef.current = view;
  /** One money action at a time (set before the first await, so a double key press cannot send twice). */
  const lock = useRef(false);

  // The same object while its fields stay the same: a poll that finds the same balance re-renders nothing.
  const credits: CreditBalance | undefined = useCredits();
  const ports = useMemo<VerifyPorts | undefined>(
    () => (client && scope ? { journal: deps.journal, client, scope, failpoints: services.failpoints } : undefined),
    [client, scope, deps.journal, services.failpoints],
  );
  // An unfinished top-up found at start is said, not opened: the Billing pane shows it as a line,
  // selected, enter takes it up (the pane stays the pane).
  const onReopen = useCallback(
    (unfinished: JournalEntry) => {
      if (viewRef.current !== undefined) return;
      flash(`an unfinished top-up of ${formatUsd(unfinished.amount)} (${methodLabel(unfinished.method)}): enter on the Billing pane (3) takes it up`, 'warning');
    },
    [flash],
  );
  const onCardCredited = useCallback((entry: JournalEntry) => {
    const v = viewRef.current;
    if (entryIdOf(v) === entry.id) setView({ kind: 'done', entryId: entry.id, ...(v?.kind === 'direct' && v.data !== undefined && { data: v.data }) });
  }, []);
  const { entries, entriesRef, remember, save, damaged, noteDamage } = useTopUpRecord({ scope, ports, credits, onReopen, onCardCredited });

  // While a card payment is awaited on screen, read the balance every few seconds.
  const entry = useMemo(() => entries.find((e) => e.id === entryIdOf(view)), [entries, view]);
  const watching = options.active && open && entry !== undefined && entry.method !== 'usdc' && isUnfinished(entry.state);
  const credited = useMemo(() => new Set(entries.flatMap((e) => (e.state === 'credited' && e.txHash ? [e.txHash.toLowerCase()] : []))), [entries]);
  const chain = useChainWatch({
    active: options.active && open && view?.kind === 'usdc',
    ...(entry && { entry }),
    ...(baseUrl !== undefined && { baseUrl }),
    ...(services.chainSettings && { settingsOf: services.chainSettings }),
    credited,
  });
  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(refreshBalance, CARD_WATCH_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [watching, refreshBalance]);

  /** Runs one request at a time with `label` shown; a 401 marks the session rejected. */
  const runBusy = useCallback(
    async <T>(label: string, fn: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> => {
      setBusy(label);
      try {
        return { ok: true, value: await fn() };
      } catch (error) {
        if (isUnauthorized(error)) markRejected();
        return { ok: false, error };
      } finally {
        if (mounted.current) setBusy(undefined);
      }
    },
    [markRejected],
  );

  const setUsdc = useCallback((patch: Partial<Extract<FlowView, { kind: 'usdc' }>>) => {
    setView((v) => (v?.kind === 'usdc' ? { ...v, ...patch } : v));
  }, []);

  const chooseMethod = useCallback(
    (method: TopUpMethod) => {
      const v = viewRef.current;
      if (v?.kind !== 'method' || !client || !scope || lock.current) return;
      lock.current = true;
      const amount = v.amount;
      setView({ kind: 'requesting', amount, method });
      void (async () => {
        try {
          // The one top-up procedure (src/operations/topUp.ts): the record checked, the
          // totalTopUp baseline read, a card charge on record before it is sent, the answer recorded.
          const labels: Record<TopUpStep, string> = {
            checking_record: 'reading the top-up record',
            reading_balance: 'reading the balance',
            recording: 'putting the charge on the top-up record',
            requesting: `requesting a ${methodLabel(method)} top-up of ${formatUsd(amount)}`,
          };
          const done = await runBusy(labels.checking_record, () =>
            requestTopUp({ journal: deps.journal, client, scope, failpoints: services.failpoints }, { amount, kind: method }, (step) => mounted.current && setBusy(labels[step])),
          );
          // Only a failpoint's halt (an in-process crash walk) is thrown: the flow stops there, saying so at a step (`crashed`).
          if (!done.ok) {
            if (done.error instanceof OperationError && mounted.current)
              setView({ kind: 'method', amount, cursor: METHODS.indexOf(method), message: { tone: 'error', lines: [failureLine(done.error.failure, 'tui')] } });
            return;
          }
          const outcome = done.value;
          if (outcome.kind === 'not_requested') {
            if (isUnauthorized(outcome.error)) markRejected();
            noteDamage(outcome.error);
            setView({ kind: 'method', amount, cursor: METHODS.indexOf(method), message: { tone: 'error', lines: [describeFailure(outcome.error), 'Nothing was requested.'] } });
            return;
          }
          if (outcome.kind === 'failed') {
            if (isUnauthorized(outcome.error)) markRejected();
            if (outcome.entry) remember(outcome.entry);
            const lines = [describeFailure(outcome.error)];
            if (outcome.outcomeUnknown) lines.push('Check the billing status (s on the Billing pane) before trying again.');
            setView({ kind: 'method', amount, cursor: METHODS.indexOf(method), message: { tone: 'error', lines } });
            return;
          }
          const r = outcome.result;
          let created: JournalEntry;
          const { problems, notes } = outcome;
          if (outcome.recordError !== undefined || !outcome.entry) {
            created = outcome.entry ?? unsavedEntry(amount, method, scope, r);
            flash(`${describeFailure(outcome.recordError)} The top-up is kept in memory only: note its details.`, 'warning');
          } else created = outcome.entry;
          // What the user must read: the instruction's amount when it is not the one requested .
          const message: FlowMessage | undefined =
            problems.length > 0 ? { tone: r.method === 'card_direct' ? 'warning' : 'error', lines: [...problems, ...notes] } : notes.length > 0 ? { tone: 'warning', lines: [...notes] } : undefined;
          if (!mounted.current) return;
          remember(created);
          refreshBalance();
          if (r.method === 'usdc') setView({ kind: 'usdc', entryId: created.id, mode: 'main', ...(message && { message }) });
          else if (r.method === 'card_checkout') setView({ kind: 'card', entryId: created.id, ...(message && { message }) });
          else if (created.state === 'credited') {
            flash(`top-up of ${formatUsd(created.credited ?? amount)} (card direct) credited: the service’s answer says so`, 'ok');
            setView({ kind: 'done', entryId: created.id, data: r.data });
          } else setView({ kind: 'direct', entryId: created.id, data: r.data, ...(message && { message }) });
        } finally {
          lock.current = false;
        }
      })();
    },
    [client, scope, runBusy, deps.journal, flash, remember, refreshBalance, noteDamage, markRejected, services.failpoints],
  );

  // The hash typed on the USDC step: the chain's checks, then the verify (./useUsdcVerify.ts).
  const verify = useUsdcVerify({ viewRef, entriesRef, ports, lock, mounted, setBusy, setUsdc, setView, remember, noteDamage });

  // `s` with a sandbox: a simulated USDC transfer, or the checkout paid (./useSandboxPayment.ts).
  const simulate = useSandboxPayment({ viewRef, entriesRef, baseUrl, canSimulate, lock, mounted, deps, runBusy, save, setView, refreshBalance });

  const abandon = useCallback(() => {
    const id = entryIdOf(viewRef.current);
    if (!id) return;
    void save(id, { state: 'closed', reason: 'closed by the user', reasonCode: 'closed' }).then(() => {
      if (!mounted.current) return;
      setView(undefined);
      setOpen(false);
      flash('the top-up was closed; it stays listed as closed', 'info');
    });
  }, [save, flash]);

  const resume = useCallback(
    (entryId?: string) => {
      const list = entriesRef.current;
      const current = viewRef.current;
      if (entryId === undefined && current) {
        setOpen(true);
        return;
      }
      const target = entryId !== undefined ? list.find((e) => e.id === entryId) : list.find((e) => isUnfinished(e.state));
      if (!target) return;
      setView(viewForEntry(target));
      setOpen(true);
    },
    [entriesRef],
  );

  return {
    ...(view !== undefined && { view }),
    open: open && view !== undefined,
    ...(busy !== undefined && { busy }),
    entries,
    ...(damaged !== undefined && { damaged }),
    remember,
    ...(entry !== undefined && { entry }),
    canSimulate,
    chain,
    start: () => {
      if (damaged !== undefined) {
        flash(damaged, 'error');
        return;
      }
      setView({ kind: 'amount' });
      setOpen(true);
    },
    cancel: () => {
      setView(undefined);
      setOpen(false);
    },
    submitAmount: (amount) => setView({ kind: 'method', amount, cursor: 0 }),
    backToAmount: () => setView((v) => (v?.kind === 'method' ? { kind: 'amount', initial: String(v.amount) } : v)),
    moveMethod: (delta) => setView((v) => (v?.kind === 'method' ? { kind: 'method', amount: v.amount, cursor: (v.cursor + delta + METHODS.length) % METHODS.length } : v)),
    chooseMethod,
    openCheckout: (onNoBrowser) => {
      const url = entry?.sessionUrl;
      if (!url) return;
      // Checked again here: a record may come from an older keydeck.
      const problem = checkoutUrlProblem(url);
      if (problem) {
        flash(problem, 'error');
        return;
      }
      deps.openUrl(url).then(
        () => flash('opened the checkout page in the browser', 'ok'),
        () => {
          flash('no browser could be opened here: the link is shown alone, ready to select (c copies it)', 'warning');
          onNoBrowser?.();
        },
      );
    },
    copy: (text, what) => {
      void services.copy(text).then((outcome) => {
        if (outcome === 'clipboard') flash(`copied the ${what}`, 'ok');
        else if (outcome === 'osc52') flash(`sent the ${what} to the terminal’s clipboard (OSC 52); if it did not arrive, select it on screen`, 'info');
        else flash(`could not copy the ${what}: select it on screen`, 'warning');
      });
    },
    setUsdcMode: (mode) => setUsdc({ mode }),
    verify,
    setAmountSent: (amount) => {
      const id = entryIdOf(viewRef.current);
      if (!id) return;
      void save(id, { amountSent: amount }).then(() =>
        setUsdc({ mode: 'main', message: { tone: 'info', lines: [`The transfer will be verified for ${formatUsd(amount)}: press h to enter its hash.`] } }),
      );
    },
    simulate,
    abandon,
    leave: () => {
      if (isStarted(viewRef.current)) {
        setOpen(false);
        const e = entriesRef.current.find((x) => x.id === entryIdOf(viewRef.current));
        if (e && isUnfinished(e.state)) flash('the top-up stays open: enter on the Billing pane resumes it', 'info');
        else setView(undefined);
      } else {
        setView(undefined);
        setOpen(false);
      }
    },
    resume,
    close: () => {
      setView(undefined);
      setOpen(false);
    },
  };
}
