/**
 * A framework-free poller: calls `fetch` every `intervalMs` (± jitter), never more than one
 * request in flight, backs off exponentially while failing, honours a 429's `retryAfterMs`,
 * keeps the last data on failure, and can be asked for an immediate `refresh()` (after an
 * action that changes what is polled). {@link usePolling} wraps it for React; it is also usable
 * on its own (the monitor soak benchmark drives thousands of polls through it).
 */
import { clampTimerMs, MAX_RETRY_AFTER_MS } from '../../api/retry.js';

/** What the poller knows. Replaced (never mutated) on every change. */
export interface PollState<T> {
  /** The last successful result; kept while later polls fail. */
  readonly data?: T;
  /** When `data` arrived (epoch ms). */
  readonly updatedAt?: number;
  /** The last failure; cleared by the next success. */
  readonly error?: unknown;
  /** When the current run of failures began (epoch ms); undefined while healthy. */
  readonly failingSince?: number;
  /** Consecutive failures (0 while healthy). */
  readonly failures: number;
  /** A request is in flight (not announced by itself: read with the next change). */
  readonly inFlight: boolean;
  /** When the next poll is due (epoch ms), when one is scheduled. */
  readonly nextAt?: number;
}

/** Options of {@link Poller}. */
export interface PollerOptions<T> {
  /** One request; must honour `signal` (aborted by `stop()`). */
  readonly fetch: (signal: AbortSignal) => Promise<T>;
  /** Interval between polls while healthy, ms. */
  readonly intervalMs: number;
  /** Random spread of every delay, as a fraction (0.1 = ±10 %). Default 0.1. */
  readonly jitter?: number;
  /** Ceiling of the backoff delay, ms. Default max(intervalMs, 120 000). */
  readonly maxBackoffMs?: number;
  /** Called after each settled request with the new state (e.g. to detect a 401). */
  readonly onSettled?: (state: PollState<T>) => void;
  /** Random source in [0, 1) (tests). Default Math.random. */
  readonly random?: () => number;
  /** Clock (epoch ms) (tests). Default Date.now. */
  readonly now?: () => number;
}

/** Reads a `retryAfterMs` (KeydeckApiError of a 429) from an error, if any. */
function retryAfterOf(error: unknown): number | undefined {
  const v = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(v, MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * The delay before the next poll, ms: `intervalMs` while healthy; while failing
 * `intervalMs × 2^(failures−1)` up to `maxBackoffMs`, and at least a 429's `retryAfterMs`;
 * then spread by ± `jitter`.
 */
export function nextDelayMs(opts: { intervalMs: number; failures: number; maxBackoffMs: number; jitter: number; retryAfterMs?: number | undefined; random: number }): number {
  let base = opts.intervalMs;
  if (opts.failures > 0) base = Math.min(opts.maxBackoffMs, opts.intervalMs * 2 ** Math.min(opts.failures - 1, 30));
  const spread = base * opts.jitter * (opts.random * 2 - 1);
  let delay = base + spread;
  if (opts.retryAfterMs !== undefined) delay = Math.max(delay, opts.retryAfterMs);
  // A timer holds at most 24.8 days; past that Node fires it at once (a poll storm).
  return clampTimerMs(delay);
}

/** See the module comment. Create, `start()`, `subscribe()`, and `stop()` when done. */
export class Poller<T> {
  private state: PollState<T> = { failures: 0, inFlight: false };
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private controller: AbortController | undefined;
  private running = false;
  private refreshQueued = false;
  private readonly opts: Required<Omit<PollerOptions<T>, 'onSettled'>> & Pick<PollerOptions<T>, 'onSettled'>;

  constructor(options: PollerOptions<T>) {
    this.opts = {
      jitter: 0.1,
      maxBackoffMs: Math.max(options.intervalMs, 120_000),
      random: Math.random,
      now: Date.now,
      ...options,
    };
  }

  /** The current state (a stable object between changes: fit for useSyncExternalStore). */
  readonly getState = (): PollState<T> => this.state;

  /** Registers a change listener; returns its removal. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Starts polling with an immediate request. Idempotent. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.poll();
  }

  /** Stops: clears the timer and aborts the request in flight. Results arriving later are ignored. */
  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.controller?.abort();
    this.controller = undefined;
    this.refreshQueued = false;
  }

  /** Polls now; if a request is in flight, polls again as soon as it settles. */
  refresh(): void {
    if (!this.running) return;
    if (this.state.inFlight) {
      this.refreshQueued = true;
      return;
    }
    this.poll();
  }

  private set(patch: Partial<PollState<T>>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l();
  }

  private poll(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const controller = new AbortController();
    this.controller = controller;
    // Not announced on its own (no frame just to say "in flight"); listeners see it with the
    // next change.
    this.state = { ...this.state, inFlight: true, nextAt: undefined };
    this.opts.fetch(controller.signal).then(
      (data) => this.settle(controller, { data, updatedAt: this.opts.now(), error: undefined, failingSince: undefined, failures: 0 }),
      (error: unknown) =>
        this.settle(controller, {
          error,
          failures: this.state.failures + 1,
          failingSince: this.state.failingSince ?? this.opts.now(),
        }),
    );
  }

  private settle(controller: AbortController, patch: Partial<PollState<T>>): void {
    if (!this.running || controller !== this.controller) return;
    this.controller = undefined;
    const failures = patch.failures ?? 0;
    if (this.refreshQueued) {
      this.refreshQueued = false;
      this.set({ ...patch, inFlight: false });
      this.opts.onSettled?.(this.state);
      if (this.running) this.poll();
      return;
    }
    const delay = nextDelayMs({
      intervalMs: this.opts.intervalMs,
      failures,
      maxBackoffMs: this.opts.maxBackoffMs,
      jitter: this.opts.jitter,
      retryAfterMs: failures > 0 ? retryAfterOf(patch.error) : undefined,
      random: this.opts.random(),
    });
    this.set({ ...patch, inFlight: false, nextAt: this.opts.now() + delay });
    this.opts.onSettled?.(this.state);
    if (!this.running) return;
    this.timer = setTimeout(() => this.poll(), delay);
  }
}
