/**
 * React face of {@link Poller}: polls while mounted, aborts on unmount, re-creates the poller
 * when `key` or `intervalMs` changes. Shared by the header (balance, connection state) and
 * the Billing pane.
 */
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { Poller, type PollState } from './poller.js';

/** Options of {@link usePolling}. */
export interface UsePollingOptions<T> {
  /** Interval while healthy, ms (the profile's pollIntervalSeconds × 1000; never below 2 000). */
  readonly intervalMs: number;
  /** A new value starts a new poller (e.g. the client of a new credential). */
  readonly key?: unknown;
  /** False: no polling (state stays empty). Default true. */
  readonly enabled?: boolean;
  /** Jitter fraction (default 0.1). */
  readonly jitter?: number;
  /** Called after every settled request (latest closure is used). */
  readonly onSettled?: (state: PollState<T>) => void;
}

/** {@link PollState} plus `refresh()`: poll now (or right after the request in flight). */
export interface PollingResult<T> extends PollState<T> {
  readonly refresh: () => void;
}

const EMPTY: PollState<never> = { failures: 0, inFlight: false };

/** Minimum polling interval, ms. */
export const MIN_POLL_INTERVAL_MS = 2000;

/**
 * Polls `fetcher` (the latest closure is always used) every `options.intervalMs` with
 * jitter, at most one request in flight, exponential backoff while failing (a 429's
 * `retryAfterMs` honoured), last data kept on failure, and an AbortController per request
 * aborted on unmount.
 */
export function usePolling<T>(fetcher: (signal: AbortSignal) => Promise<T>, options: UsePollingOptions<T>): PollingResult<T> {
  const fetchRef = useRef(fetcher);
  fetchRef.current = fetcher;
  const settledRef = useRef(options.onSettled);
  settledRef.current = options.onSettled;
  const enabled = options.enabled ?? true;
  const intervalMs = Math.max(MIN_POLL_INTERVAL_MS, options.intervalMs);

  const poller = useMemo(
    () =>
      enabled
        ? new Poller<T>({
            fetch: (signal) => fetchRef.current(signal),
            intervalMs,
            ...(options.jitter !== undefined && { jitter: options.jitter }),
            onSettled: (s) => settledRef.current?.(s),
          })
        : undefined,
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [enabled, intervalMs, options.key, options.jitter],
  );

  useEffect(() => {
    if (!poller) return;
    poller.start();
    return () => poller.stop();
  }, [poller]);

  const state = useSyncExternalStore(
    poller ? poller.subscribe : noopSubscribe,
    poller ? poller.getState : getEmpty,
  ) as PollState<T>;

  const refresh = useMemo(() => () => poller?.refresh(), [poller]);
  return useMemo(() => ({ ...state, refresh }), [state, refresh]);
}

function noopSubscribe(): () => void {
  return () => {};
}
function getEmpty(): PollState<never> {
  return EMPTY;
}
