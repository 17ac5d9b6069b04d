/**
 * What an account watcher (./accountWatcher.ts) works with and what it gives: the client surface
 * it reads through, the connection a face hands it, its snapshot (slices, each replaced only when
 * it changes) and its events (data only: a face words them).
 */
import type { ConsumptionKey, CreditBalance } from '../api/schemas.js';
import type { BalanceHistory } from '../billing/history.js';
import type { HistoryRecorder } from '../billing/historyRecorder.js';
import type { AccountJudgement, RunawaySettings } from '../billing/runaway.js';
import type { KeyAlert, UsageSnapshot, UsageTracker } from '../billing/usageTracker.js';
import type { AutoTopUpClient } from '../operations/autoTopUp.js';
import type { AutoTopUpRunner, AutoTopUpStep } from '../operations/autoTopUpRunner.js';

/** The calls a watcher makes (a `KeydeckClient`, the TUI's `AccountClient`, or a stand-in in tests). Each honours its `signal`. */
export interface WatcherClient {
  readonly billing: {
    /** `GET /api/billing/credits` (the credit balance record of the service interface). */
    credits(options?: { signal?: AbortSignal }): Promise<CreditBalance>;
    /** `GET /api/billing/status` (read only when the watcher is asked to: `statusEveryMs`). */
    status?(options?: { signal?: AbortSignal }): Promise<unknown>;
  };
  /** `GET /api/keys` (read only when the watcher is asked to: `keysEveryMs`). */
  readonly keys?: { list(options?: { signal?: AbortSignal }): Promise<ConsumptionKey[]> };
  /** The service's clock minus this machine's, ms (from its HTTP `Date`). */
  readonly serviceClockOffsetMs?: number | undefined;
}

/** What a face hands a watcher for one credential: its client, and what belongs to that credential. */
export interface WatchConnection {
  readonly client: WatcherClient;
  /**
   * The credential's usage tracker (src/billing/usageTracker.ts: reads within the shared usage
   * budget), ready, or a function that opens it: called once, on a task of its own after the
   * watcher starts (the first frame and the first requests go first), its tracker then loaded.
   * @throws (the function) when the record of usage reads cannot be used: said as `usage_unavailable`
   */
  readonly usage?: UsageTracker | (() => UsageTracker);
  /** Called when the watcher lets the connection go (stopped, or asked to connect again). */
  close?(): void;
}

/** Why a watcher has no connection now (no service address, no credential, a refused setting), with a code of the face's. */
export interface Unavailable {
  readonly unavailable: string;
  /** What the face said about it (a sentence of its own), passed on untouched. */
  readonly detail?: string;
}

/** What a watcher knows of the balance: the last reading kept while polls fail. Replaced, never mutated. */
export interface PollState<T = CreditBalance> {
  /** The last successful result; kept while later polls fail. */
  readonly data?: T;
  /** When `data` arrived (epoch ms of this machine). */
  readonly updatedAt?: number;
  /** The last failure; cleared by the next success. */
  readonly error?: unknown;
  /** When the current run of failures began (epoch ms); undefined while healthy. */
  readonly failingSince?: number;
  /** Consecutive failures (0 while healthy). */
  readonly failures: number;
  /** A request is in flight (not announced by itself: read with the next change). */
  readonly inFlight: boolean;
  /** When the next poll is due (epoch ms), once known. */
  readonly nextAt?: number;
}

/** A list read now and then (the keys, the billing status): the last one, when, and the last failure. */
export interface ReadSlice<T> {
  readonly data?: T;
  readonly at?: number;
  readonly error?: unknown;
}

/** What a watcher knows of usage. */
export interface UsageSlice {
  /** A usage tracker is open (false: none given, not opened yet, or it could not be opened). */
  readonly available: boolean;
  readonly snapshot: UsageSnapshot;
  /** A read on demand is under way. */
  readonly reading: boolean;
}

/** The balance history a watcher keeps: a stable object (see `version`) and its version when the slice was made. */
export interface TrendSlice {
  readonly history: BalanceHistory;
  readonly version: number;
  /** The last problem of the history on disk, in src/billing/historyRecorder.ts's words, when one was met. */
  readonly problem?: string;
  /** Why the history could not be opened on disk (it is kept in memory only). */
  readonly openError?: unknown;
}

/** What auto top-up last did after a reading (`--auto-topup` only). */
export interface AutoTopUpSlice {
  readonly step?: AutoTopUpStep;
  /** The run failed before it could charge anything (the balance or the status unreadable, the record unwritable, the lock held). */
  readonly error?: unknown;
  /** When (epoch ms). */
  readonly at: number;
}

/** Everything a watcher knows of its account. Each slice is replaced only when it changes (a React hook re-renders on its slice alone). */
export interface AccountSnapshot {
  readonly poll: PollState<CreditBalance>;
  /** Why there is no connection now, when there is none. */
  readonly unavailable?: Unavailable;
  readonly trend: TrendSlice;
  readonly keys: ReadSlice<readonly ConsumptionKey[]>;
  readonly status: ReadSlice<unknown>;
  readonly usage: UsageSlice;
  readonly autoTopUp?: AutoTopUpSlice;
}

/**
 * What happened, as data (a face words it, or feeds its metrics and logs). Delivered to the
 * listeners when it happens, and never kept.
 */
export type AccountEvent =
  /** A balance read worked (`durationMs`: the call's). */
  | { readonly kind: 'balance'; readonly credits: CreditBalance; readonly at: number; readonly durationMs: number }
  /** A balance read failed (`failures` in a row, the first at `failingSince`). */
  | { readonly kind: 'failure'; readonly error: unknown; readonly failures: number; readonly failingSince: number; readonly durationMs: number }
  /** No connection could be made for this poll. */
  | ({ readonly kind: 'unavailable' } & Unavailable)
  /** The balance crossed below the threshold (once per crossing; the first reading counts when already below). */
  | { readonly kind: 'low_balance'; readonly remaining: number; readonly threshold: number; readonly totalTopUp: number }
  /** `totalTopUp` rose between two readings by `amount` USD (a rise names no particular top-up). */
  | { readonly kind: 'top_up_credited'; readonly amount: number; readonly remaining: number; readonly totalTopUp: number }
  /** The balance's burn judged after a reading against its own baseline (undefined: calm). */
  | { readonly kind: 'account_burn'; readonly judgement: AccountJudgement | undefined }
  /** The balance history on disk could not be opened: it is kept in memory only. */
  | { readonly kind: 'history_unavailable'; readonly error: unknown }
  /** The balance history on disk could not be read or written (`problem`: src/billing/historyRecorder.ts's words, once per distinct one). */
  | { readonly kind: 'history_failed'; readonly problem: string }
  | { readonly kind: 'keys'; readonly keys: readonly ConsumptionKey[]; readonly at: number }
  | { readonly kind: 'keys_failed'; readonly error: unknown }
  | { readonly kind: 'status'; readonly status: unknown; readonly at: number }
  | { readonly kind: 'status_failed'; readonly error: unknown }
  /** A usage refresh ended (`alerts`: the keys whose runaway episode it started). */
  | { readonly kind: 'usage'; readonly snapshot: UsageSnapshot; readonly alerts: readonly KeyAlert[] }
  /** The usage tracker could not be opened, or its record not written. */
  | { readonly kind: 'usage_unavailable'; readonly error: unknown }
  | { readonly kind: 'usage_failed'; readonly error: unknown }
  /** Auto top-up ran after a reading. */
  | { readonly kind: 'auto_top_up'; readonly step: AutoTopUpStep; readonly credits: CreditBalance }
  | { readonly kind: 'auto_top_up_failed'; readonly error: unknown }
  /** A poll ended, whatever it found (the exporter's readiness). */
  | { readonly kind: 'polled' };

/** Auto top-up in a watcher (`--auto-topup`): its runner, and the client it works with. */
export interface WatcherAutoTopUp {
  /** src/operations/autoTopUpRunner.ts's runner (or one picked for the reading). */
  readonly runner: Pick<AutoTopUpRunner, 'afterReading'>;
  /** The runner's client from the connection's (default: the connection's client, a `KeydeckClient`). */
  readonly clientOf?: (client: WatcherClient) => AutoTopUpClient;
}

/** Options of the account watcher (./accountWatcher.ts). */
export interface AccountWatcherOptions {
  /** The connection for the next poll: called before the first, and again after its `reconnect()`. */
  readonly connect: () => WatchConnection | Unavailable | Promise<WatchConnection | Unavailable>;
  /** Between polls while the service answers, ms (a face keeps it at least 2 s: ./schedule.ts `pollIntervalMs`). */
  readonly intervalMs: number;
  /** Random spread of every delay, as a fraction. Default 0.1. */
  readonly jitter?: number;
  /** Ceiling of the backoff, ms. Default the interval or two minutes, whichever is longer. */
  readonly maxBackoffMs?: number;
  /** Delay of the first poll, ms. Default 0: at once. */
  readonly firstDelayMs?: number;
  /**
   * The balance history: a recorder (src/billing/historyRecorder.ts), or a function that opens one
   * (called once, by `start()`, with what hears its failures; it may throw: said as
   * `history_unavailable`, and the history kept in memory). Absent: memory only.
   */
  readonly history?: HistoryRecorder | ((onError: (problem: string) => void) => HistoryRecorder);
  /** The low-balance threshold, USD (absent: no `low_balance` event). */
  readonly alertBelowUsd?: number | undefined;
  /** Judge the balance's burn after each reading with these settings (`account_burn` events). Absent: not judged. */
  readonly runaway?: RunawaySettings | undefined;
  /** Read the key list after a balance read at most this often, ms. Absent: never. */
  readonly keysEveryMs?: number | undefined;
  /** Read the billing status after a balance read at most this often, ms. Absent: never. */
  readonly statusEveryMs?: number | undefined;
  /** Auto top-up after each balance read (`--auto-topup`). Absent: never. */
  readonly autoTopUp?: WatcherAutoTopUp | undefined;
  /** Runs each poll (its connection and reads) within a limit shared by several watchers (the exporter's). Default: at once. */
  readonly limit?: <T>(task: () => Promise<T>) => Promise<T>;
  /** Random in [0, 1) (tests). Default Math.random. */
  readonly random?: () => number;
  /** Clock, epoch ms (tests). Default Date.now. */
  readonly now?: () => number;
}
