/**
 * Feeds every successful balance poll (§2.3 `remaining`, USD) into a bounded
 * {@link BalanceHistory} (seeded from, and written through to, the history database when a
 * series is given: src/billing/historyRecorder.ts), and rings the terminal bell once per
 * downward crossing of the low-balance threshold. Shared by the Billing pane (which stays
 * mounted while hidden, so the history and the alert run on every pane) and `keydeck monitor`.
 */
import { useEffect, useMemo, useRef } from 'react';
import { useStdout } from 'ink';
import { BELL, INITIAL_LOW_BALANCE_STATE, observeBalance, type LowBalanceState } from '../../../billing/alert.js';
import type { BalanceHistory, BalanceHistoryOptions } from '../../../billing/history.js';
import { HistoryRecorder } from '../../../billing/historyRecorder.js';
import { judgeAccount, type AccountJudgement, type RunawaySettings } from '../../../billing/runaway.js';
import type { NotifyEvent } from '../../../terminal/notify.js';
import type { HistorySeries } from '../../../billing/historyStore.js';
import type { CreditBalance } from '../../../api/schemas.js';
import type { PollState } from '../../hooks/poller.js';

/** Options of {@link useBalanceMonitor}. */
export interface UseBalanceMonitorOptions {
  /** Low-balance threshold, USD; undefined: no alert. */
  readonly alertBelowUsd?: number | undefined;
  /** Rings the bell (default: writes BEL, `\x07`, to Ink's stdout). */
  readonly bell?: () => void;
  /** Notifications (src/terminal/notify.ts): the low-balance crossing and each top-up credited. */
  readonly notify?: (event: NotifyEvent) => void;
  /** Options of the in-memory buffer (capacity, spacing). */
  readonly history?: BalanceHistoryOptions;
  /** The database series of this profile and origin (absent: memory only). Read when it is first given. */
  readonly series?: HistorySeries | undefined;
  /** Hears one sentence per distinct failure of the history database. */
  readonly onHistoryError?: (sentence: string) => void;
  /** Clock (epoch ms) used to seed the history at mount. Default Date.now. */
  readonly now?: () => number;
  /** The runaway settings (issue 22): with `onAccountBurn`, the balance is judged after each reading. */
  readonly runaway?: RunawaySettings;
  /** Hears the balance's judgement after each reading: burning at N× its own baseline, or undefined (calm). */
  readonly onAccountBurn?: (judgement: AccountJudgement | undefined) => void;
}

/** What {@link useBalanceMonitor} gives. */
export interface BalanceMonitor {
  /** The history (a stable object; `version` changes with every sample). */
  readonly history: BalanceHistory;
  /** Times the bell rang since mount (read live; nothing on screen depends on it, so no re-render). */
  readonly rings: number;
}

/** See the module comment. `poll` is the balance poll's state (`useBalance()` or `usePolling`). */
export function useBalanceMonitor(poll: Pick<PollState<CreditBalance>, 'data' | 'updatedAt'>, options: UseBalanceMonitorOptions = {}): BalanceMonitor {
  const { stdout } = useStdout();
  // Seeded synchronously in the render that has the series (the Billing pane opens its database
  // right after keydeck's first frame): the trend is there in the frame that shows it.
  const recorder = useMemo(
    () => new HistoryRecorder({ series: options.series, now: (options.now ?? Date.now)(), ...(options.onHistoryError && { onError: options.onHistoryError }), ...(options.history && { history: options.history }) }),
    [options.series], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const history = recorder.history;
  const alarm = useRef<LowBalanceState>(INITIAL_LOW_BALANCE_STATE);
  const rings = useRef(0);
  const bellRef = useRef(options.bell);
  bellRef.current = options.bell;
  const notifyRef = useRef(options.notify);
  notifyRef.current = options.notify;
  const burnRef = useRef(options.onAccountBurn);
  burnRef.current = options.onAccountBurn;
  const runawayRef = useRef(options.runaway);
  runawayRef.current = options.runaway;
  const lastTotal = useRef<number | undefined>(undefined);

  const { data, updatedAt } = poll;
  const threshold = options.alertBelowUsd;
  // A new sample joins the history in the render that shows it (once per `updatedAt`), so the
  // pane's figures are current in that same frame. Done in an effect, it needed a state update
  // and so a second render and frame on every poll: half of an idle keydeck's CPU time
  // (bench/soak.mjs).
  const fed = useRef<number | undefined>(undefined);
  if (data && updatedAt !== undefined && fed.current !== updatedAt) {
    fed.current = updatedAt;
    recorder.record(updatedAt, data.remaining, data.totalTopUp);
  }
  useEffect(() => {
    if (!data || updatedAt === undefined) return;
    const step = observeBalance(alarm.current, data.remaining, threshold);
    alarm.current = step.state;
    if (step.fire) {
      rings.current += 1;
      if (bellRef.current) bellRef.current();
      else stdout.write(BELL);
      if (threshold !== undefined) notifyRef.current?.({ kind: 'low_balance', remaining: data.remaining, threshold, totalTopUp: data.totalTopUp });
    }
    // Between usage reads: is the balance falling at N× its own baseline? (issue 22)
    if (burnRef.current) burnRef.current(judgeAccount(history.since(updatedAt - 8 * 86_400_000), updatedAt, runawayRef.current));
    // A rise of totalTopUp between two readings: a top-up was credited (§2.3).
    const before = lastTotal.current;
    lastTotal.current = data.totalTopUp;
    if (before !== undefined && Math.round(data.totalTopUp * 100) > Math.round(before * 100)) {
      notifyRef.current?.({ kind: 'top_up_credited', amount: Math.round((data.totalTopUp - before) * 100) / 100, remaining: data.remaining, totalTopUp: data.totalTopUp });
    }
  }, [data, updatedAt, threshold, stdout, history]);

  // One stable object: the LOW mark is drawn from the balance and the threshold where it shows
  // (BalanceSummary, Header), so a crossing costs no extra render of the pane.
  return useMemo(
    () => ({
      history,
      get rings() {
        return rings.current;
      },
    }),
    [history],
  );
}
