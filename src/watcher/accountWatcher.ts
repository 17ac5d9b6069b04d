/**
 * One account watcher: for one account (a profile, its service's origin, a credential), the one
 * loop that reads it again and again, used by every face that does (the TUI, `keydeck monitor`,
 * `keydeck exporter`). Each poll, in order:
 *
 * 1. the balance (`GET /api/billing/credits`, the credit balance record), one request in flight;
 * 2. the balance history (src/billing/historyRecorder.ts: memory, and `history.db` shared with
 *    every keydeck of the user), and what the reading tells (./readingAlerts.ts: the low-balance
 *    crossing, a top-up credited, the burn against its baseline);
 * 3. the key list and the billing status, each only when asked for and due (`keysEveryMs`,
 *    `statusEveryMs`);
 * 4. usage, within the usage read budget (src/billing/usageTracker.ts and usageBudget.ts: a read
 *    is spent only when the schedule shared by every process allows one);
 * 5. auto top-up (src/operations/autoTopUpRunner.ts), only when the face was asked for it
 *    (`--auto-topup`): on a task of its own, one run at a time, so a run's settle wait and lock
 *    never hold the next poll back.
 *
 * Its own schedule: the interval spread by a jitter, doubled per failure while the service fails
 * (up to a ceiling), never before a 429's `Retry-After` (./schedule.ts); `refresh()` polls now, or
 * right after the poll under way (after a money action). It never waits on a slow service beyond
 * the client's own deadline for each call, and a failed poll keeps the last reading.
 *
 * What it knows is a snapshot of slices (./types.ts), each replaced only when it changes, so a
 * React hook subscribed to one slice commits only when that slice does; what happens is an event,
 * data only (no sentence: the faces word it), given to the listeners and never kept. Its memory
 * stays flat however long it runs: nothing is kept per poll but the bounded balance history and the
 * last of each read. Several watchers run side by side, each on its own schedule, none waiting on
 * another (the exporter's `limit` bounds how many poll at once).
 */
import { isAbortError } from '../api/errors.js';
import { HistoryRecorder } from '../billing/historyRecorder.js';
import type { UsageSnapshot, UsageTracker } from '../billing/usageTracker.js';
import type { CreditBalance } from '../api/schemas.js';
import { AutoTopUpRun } from './autoTopUpRun.js';
import { ReadingAlerts } from './readingAlerts.js';
import { DEFAULT_JITTER, defaultMaxBackoffMs, nextDelayMs, retryAfterOf } from './schedule.js';
import type { AccountEvent, AccountSnapshot, AccountWatcherOptions, Unavailable, WatchConnection } from './types.js';
import { NO_USAGE, WatchedUsage } from './usageSlice.js';

/** See the module comment. `start()`, `subscribe()` / `on()`, and `stop()` when done. */
export class AccountWatcher {
  readonly #o: AccountWatcherOptions;
  readonly #now: () => number;
  readonly #alerts: ReadingAlerts;
  readonly #snapshotListeners = new Set<() => void>();
  readonly #eventListeners = new Set<(event: AccountEvent) => void>();
  /** Aborted by `stop()`: what is under way then is abandoned (a usage read on demand too). */
  readonly #stopped = new AbortController();
  #snapshot: AccountSnapshot;
  #recorder: HistoryRecorder;
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  /** The tasks of their own (./types.ts `WatchConnection.usage`, a history to open), cleared by `stop()`. */
  readonly #tasks = new Set<NodeJS.Timeout>();
  #controller: AbortController | undefined;
  #current: Promise<void> | undefined;
  #refreshQueued = false;
  #nextDelayMs: number | undefined;
  #connection: WatchConnection | undefined;
  readonly #usage: WatchedUsage;
  #lastKeysAt = Number.NEGATIVE_INFINITY;
  #lastStatusAt = Number.NEGATIVE_INFINITY;
  readonly #autoTopUp: AutoTopUpRun | undefined;
  #stopping: Promise<void> | undefined;

  constructor(options: AccountWatcherOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#alerts = new ReadingAlerts(options.alertBelowUsd, options.runaway);
    this.#autoTopUp = options.autoTopUp && new AutoTopUpRun(options.autoTopUp);
    this.#usage = new WatchedUsage(
      () => this.#snapshot.usage,
      (usage) => this.#set({ usage }),
      (event) => this.#emit(event),
    );
    this.#recorder = options.history instanceof HistoryRecorder ? options.history : new HistoryRecorder();
    const history = this.#recorder.history;
    this.#snapshot = {
      poll: { failures: 0, inFlight: false },
      trend: { history, version: history.version },
      keys: {},
      status: {},
      usage: NO_USAGE,
    };
  }

  /** What is known now: a stable object between changes (fit for React's useSyncExternalStore). */
  get snapshot(): AccountSnapshot {
    return this.#snapshot;
  }

  /** The usage tracker of the connection, once open (the exporter's spend metrics read it). */
  get usageTracker(): UsageTracker | undefined {
    return this.#usage.tracker;
  }

  /** Calls `listener` after each change of the snapshot; returns its removal. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#snapshotListeners.add(listener);
    return () => this.#snapshotListeners.delete(listener);
  };

  /** Calls `listener` with each event as it happens; returns its removal. */
  on(listener: (event: AccountEvent) => void): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /** Starts polling (after `firstDelayMs`, default at once). Idempotent; a stopped watcher stays stopped. */
  start(): void {
    if (this.#running || this.#stopped.signal.aborted) return;
    this.#running = true;
    this.#openHistory();
    const first = this.#o.firstDelayMs ?? 0;
    if (first > 0) this.#timer = setTimeout(() => this.#poll(), first);
    else this.#poll();
  }

  /** Polls now; when a poll is under way, again as soon as it ends. */
  refresh(): void {
    if (!this.#running) return;
    if (this.#controller) this.#refreshQueued = true;
    else this.#poll();
  }

  /** Lets the connection go: the next poll connects again (a credential refused, a token file rotated). */
  reconnect(): void {
    this.#connection?.close?.();
    this.#connection = undefined;
    this.#usage.take(undefined);
  }

  /** Sets the low-balance threshold (USD; undefined: none) for the readings to come. */
  setAlertBelow(usd: number | undefined): void {
    this.#alerts.threshold = usd;
  }

  /**
   * Spends a usage read now when the budget has one left (the user asked: `demand`), unless a read
   * is under way; resolves with the usage known after it.
   */
  async readUsage(): Promise<UsageSnapshot> {
    if (!this.#running) return this.#snapshot.usage.snapshot;
    this.#usage.reading(true);
    try {
      return await this.#usage.refresh('demand', this.#stopped.signal);
    } finally {
      this.#usage.reading(false);
    }
  }

  /**
   * Stops: no more polls, the one under way abandoned (its request aborted, its result ignored).
   * Resolves once it has ended and a run of auto top-up under way has too (a charge is never cut
   * in two), the connection let go.
   */
  stop(): Promise<void> {
    if (this.#stopping) return this.#stopping;
    this.#running = false;
    this.#stopped.abort();
    if (this.#timer) clearTimeout(this.#timer);
    for (const timer of this.#tasks) clearTimeout(timer);
    this.#tasks.clear();
    this.#timer = undefined;
    this.#controller?.abort();
    this.#refreshQueued = false;
    this.#stopping = (async () => {
      await this.#current;
      await this.#autoTopUp?.idle();
      this.reconnect();
    })();
    return this.#stopping;
  }

  #set(patch: Partial<AccountSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...patch };
    for (const listener of this.#snapshotListeners) listener();
  }

  #emit(event: AccountEvent): void {
    for (const listener of this.#eventListeners) listener(event);
  }

  /** Runs `task` on a task of its own (after what is under way now: the first frame, the first request). */
  #later(task: () => void): void {
    const timer = setTimeout(() => {
      this.#tasks.delete(timer);
      if (this.#running) task();
    }, 0);
    this.#tasks.add(timer);
  }

  #poll(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const controller = new AbortController();
    this.#controller = controller;
    this.#nextDelayMs = undefined;
    // Not announced on its own (no frame just to say "in flight"): seen with the next change.
    this.#snapshot = { ...this.#snapshot, poll: { ...this.#snapshot.poll, inFlight: true, nextAt: undefined } };
    // #run handles what its reads throw. What else gets here is a listener's failure (a face's
    // bug): it is thrown again where nothing catches it, as it would be without the watcher, and
    // the schedule goes on.
    const run = this.#run(controller.signal).catch((error: unknown) => {
      queueMicrotask(() => {
        throw error;
      });
    });
    this.#current = run;
    void run.then(() => this.#ended(controller));
  }

  #ended(controller: AbortController): void {
    if (this.#controller !== controller) return;
    this.#controller = undefined;
    if (!this.#running) return;
    this.#emit({ kind: 'polled' });
    if (this.#refreshQueued) {
      this.#refreshQueued = false;
      this.#poll();
      return;
    }
    const delay = this.#nextDelayMs ?? this.#delay(0);
    const nextAt = this.#snapshot.poll.nextAt;
    this.#timer = setTimeout(() => this.#poll(), nextAt !== undefined ? Math.max(0, Math.min(delay, nextAt - this.#now())) : delay);
  }

  #delay(failures: number, error?: unknown): number {
    const intervalMs = this.#o.intervalMs;
    return nextDelayMs({
      intervalMs,
      failures,
      maxBackoffMs: this.#o.maxBackoffMs ?? defaultMaxBackoffMs(intervalMs),
      jitter: this.#o.jitter ?? DEFAULT_JITTER,
      retryAfterMs: failures > 0 ? retryAfterOf(error) : undefined,
      random: (this.#o.random ?? Math.random)(),
    });
  }

  async #connect(): Promise<WatchConnection | Unavailable> {
    if (this.#connection) return this.#connection;
    let made: WatchConnection | Unavailable;
    try {
      made = await this.#o.connect();
    } catch (error) {
      return { unavailable: 'error', detail: error instanceof Error ? error.message : String(error) };
    }
    if ('unavailable' in made) return made;
    this.#connection = made;
    const usage = made.usage;
    if (typeof usage === 'function') {
      this.#later(() => {
        if (this.#connection !== made) return;
        let tracker: UsageTracker;
        try {
          tracker = usage();
        } catch (error) {
          this.#emit({ kind: 'usage_unavailable', error });
          return;
        }
        this.#usage.take(tracker);
      });
    } else if (usage) this.#usage.take(usage);
    return made;
  }

  #openHistory(): void {
    const open = this.#o.history;
    if (typeof open !== 'function') return;
    let recorder: HistoryRecorder;
    try {
      recorder = open((problem) => {
        this.#set({ trend: { ...this.#snapshot.trend, problem } });
        this.#emit({ kind: 'history_failed', problem });
      });
    } catch (error) {
      this.#set({ trend: { ...this.#snapshot.trend, openError: error } });
      this.#emit({ kind: 'history_unavailable', error });
      return;
    }
    // A reading taken before the history opened joins it.
    const last = this.#recorder.history.latest();
    if (last && last.t > (recorder.history.latest()?.t ?? Number.NEGATIVE_INFINITY)) recorder.record(last.t, last.remaining, last.totalTopUp);
    this.#recorder = recorder;
    this.#set({ trend: { ...this.#snapshot.trend, history: recorder.history, version: recorder.history.version } });
  }

  /** One poll within the shared limit, when there is one: the connection (a credential looked up) and the reads. */
  async #run(signal: AbortSignal): Promise<void> {
    const poll = () => this.#steps(signal);
    await (this.#o.limit ? this.#o.limit(poll) : poll());
  }

  async #steps(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const connection = await this.#connect();
    if (signal.aborted) return;
    if ('unavailable' in connection) {
      this.#nextDelayMs = this.#delay(0);
      this.#set({ unavailable: connection, poll: { ...this.#snapshot.poll, inFlight: false, nextAt: this.#now() + this.#nextDelayMs } });
      this.#emit({ kind: 'unavailable', ...connection });
      return;
    }
    const { client } = connection;
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    let credits;
    try {
      credits = await client.billing.credits({ signal });
    } catch (error) {
      if (signal.aborted || isAbortError(error)) return;
      if (this.#replaced(connection)) return;
      const now = this.#now();
      const before = this.#snapshot.poll;
      const failures = before.failures + 1;
      const failingSince = before.failingSince ?? now;
      this.#nextDelayMs = this.#delay(failures, error);
      this.#set({ unavailable: undefined, poll: { ...before, error, failures, failingSince, inFlight: false, nextAt: now + this.#nextDelayMs } });
      this.#emit({ kind: 'failure', error, failures, failingSince, durationMs: took() });
      return;
    }
    if (signal.aborted || this.#replaced(connection)) return;
    const at = this.#now();
    this.#nextDelayMs = this.#delay(0);
    this.#recorder.record(at, credits.remaining, credits.totalTopUp);
    const history = this.#recorder.history;
    const told = this.#alerts.judge(credits, at, history);
    const trend = this.#snapshot.trend;
    this.#set({
      unavailable: undefined,
      poll: { data: credits, updatedAt: at, error: undefined, failingSince: undefined, failures: 0, inFlight: false, nextAt: at + this.#nextDelayMs },
      ...((trend.history !== history || trend.version !== history.version) && { trend: { ...trend, history, version: history.version } }),
    });
    this.#emit({ kind: 'balance', credits, at, durationMs: took() });
    for (const event of told) this.#emit(event);
    this.#runAutoTopUp(connection, credits);
    await this.#readKeys(connection, signal);
    await this.#readStatus(connection, signal);
    if (!signal.aborted) await this.#usage.refresh('auto', signal);
  }

  /**
   * True when `connection` was let go while a read through it was under way (`reconnect()`: a
   * token file rotated, a login): what that read found is the old credential's, neither a failure
   * of the profile (the old key may be deleted by now) nor a reading of the credential in use, so
   * it is dropped and the poll made again at once with the new one.
   */
  #replaced(connection: WatchConnection): boolean {
    if (this.#connection === connection) return false;
    this.#refreshQueued = this.#running;
    return true;
  }

  /** The key list, when asked for and due (`keysEveryMs`); a failure is tried again at the next poll. */
  async #readKeys(connection: WatchConnection, signal: AbortSignal): Promise<void> {
    const { client } = connection;
    const every = this.#o.keysEveryMs;
    if (every === undefined || !client.keys || signal.aborted || this.#now() - this.#lastKeysAt < every) return;
    let keys;
    try {
      keys = await client.keys.list({ signal });
    } catch (error) {
      if (signal.aborted || isAbortError(error) || this.#connection !== connection) return;
      this.#set({ keys: { ...this.#snapshot.keys, error } });
      return this.#emit({ kind: 'keys_failed', error });
    }
    if (signal.aborted) return;
    const at = (this.#lastKeysAt = this.#now());
    this.#set({ keys: { data: keys, at } });
    this.#emit({ kind: 'keys', keys, at });
  }

  /** The billing status, when asked for and due (`statusEveryMs`); a failure is tried again at the next poll. */
  async #readStatus(connection: WatchConnection, signal: AbortSignal): Promise<void> {
    const { client } = connection;
    const every = this.#o.statusEveryMs;
    const read = client.billing.status?.bind(client.billing);
    if (every === undefined || !read || signal.aborted || this.#now() - this.#lastStatusAt < every) return;
    let status: unknown;
    try {
      status = await read({ signal });
    } catch (error) {
      if (signal.aborted || isAbortError(error) || this.#connection !== connection) return;
      this.#set({ status: { ...this.#snapshot.status, error } });
      return this.#emit({ kind: 'status_failed', error });
    }
    if (signal.aborted) return;
    const at = (this.#lastStatusAt = this.#now());
    this.#set({ status: { data: status, at } });
    this.#emit({ kind: 'status', status, at });
  }

  /** Auto top-up on a task of its own after a reading (./autoTopUpRun.ts). */
  #runAutoTopUp(connection: WatchConnection, credits: CreditBalance): void {
    this.#autoTopUp?.start(connection.client, credits, (done) => {
      this.#set({ autoTopUp: { ...done, at: this.#now() } });
      this.#emit('step' in done ? { kind: 'auto_top_up', step: done.step, credits } : { kind: 'auto_top_up_failed', error: done.error });
    });
  }
}
