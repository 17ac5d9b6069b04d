/**
 * The one place that decides whether a usage read may be spent (docs/topups.md: "one place
 * decides whether a read may be spent"). The service allows 12 usage reads per 12 hours
 * (https://cheapestinference-docs.pages.dev/api/usage, "Rate limited to 12 requests per 12 hours");
 * every keydeck process of the user (the TUI, `monitor`, commands, an exporter) asks here first,
 * and the answer holds across processes: a shared record in `history.db` (./historyDb.ts), every
 * decide-and-record in one `BEGIN IMMEDIATE` transaction (SQLite's write lock, waited for up to
 * the busy timeout), as the top-up record does (./journal.ts).
 *
 * - Per credential and origin: a credential is named by a one-way hash of the origin and the
 *   token ({@link credentialIdOf}); the token itself is never stored.
 * - Or per account, once learnt: the pages say 12 reads per 12 hours, not
 *   whose. When the service answers 429 to a read this record allowed, the limit is taken to be
 *   the account's: the credential's account (the service's `userId`, named by a one-way hash,
 *   {@link accountIdOf}, linked with {@link UsageBudget.link}) is marked shared
 *   ({@link UsageBudget.learnShared}), and from then on every credential linked to it is
 *   scheduled on the one budget of the account (its reads, its 429 wait). Kept answers stay the
 *   credential's.
 * - Unmetered reads (`GET /v1/usage` of `key-info`: no page says it counts): no local count,
 *   only the service's own 429 and `Retry-After` are followed ({@link UsageBudget.claim}'s
 *   `metered: false`).
 * - Times are the service's clock (its HTTP `Date`, kept per origin: {@link UsageBudget.now}), so
 *   the window keydeck counts is the one the service counts.
 * - A read is recorded before it is sent, whatever becomes of it: a call that fails still counts
 *   (it may have reached the service), so the record never undercounts.
 * - Two kinds of reads ({@link ReadMode}): `auto` (a schedule: when the last read is
 *   {@link AUTO_SPACING_MS} old, at most {@link AUTO_READS_PER_WINDOW} per window, so reads spread
 *   over the window and two stay free) and `demand` (the user asked: any read left).
 * - A 429 is honoured: no read until its `Retry-After` has passed (the client bounds it at one
 *   hour; a bounded one, or none, waits until the record's own window frees a read, if later;
 *   never longer than the window).
 * - The last answer of each kind is kept with its time ({@link UsageBudget.keep}), so every
 *   process shows the freshest figures without spending a read.
 */
import { hash } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { MAX_RETRY_AFTER_MS } from '../api/retry.js';

/** Usage reads the service allows per window. */
export const READS_PER_WINDOW = 12;
/** The window, ms (12 hours). */
export const WINDOW_MS = 12 * 3_600_000;
/** Reads the schedule may spend per window: the rest stay for the user's own (`demand`) reads. */
export const AUTO_READS_PER_WINDOW = 10;
/** Time between scheduled reads, ms (72 minutes: ten reads spread over 12 hours). */
export const AUTO_SPACING_MS = WINDOW_MS / AUTO_READS_PER_WINDOW;
/** Longest wait a `Retry-After` imposes, ms (the window: by then the service's count has freed a read). */
const MAX_BLOCK_MS = WINDOW_MS;
/** Calls recorded this far ahead of now are from a clock that went back, and are dropped, ms. */
const FUTURE_SLACK_MS = 60_000;

/** Why a read is made: the schedule (`auto`) or the user (`demand`). */
export type ReadMode = 'auto' | 'demand';

/** The budget of one credential at one time. Times are the service's clock, epoch ms. */
export interface BudgetState {
  /** The time it was computed at. */
  readonly now: number;
  /** Reads spent in the last 12 hours. */
  readonly used: number;
  /** Reads left in the window (0–12). */
  readonly left: number;
  /** When the user may spend a read (`now` when one is left now). */
  readonly nextAt: number;
  /** When the schedule will spend its next read. */
  readonly nextAutoAt: number;
  /** When the last read was spent, if any in the window. */
  readonly lastAt?: number;
  /** Until when a 429 asked to wait, when later than now. */
  readonly blockedUntil?: number;
  /** True when the reads counted are the account's (learnt from the service's 429), not this credential's. */
  readonly shared?: boolean;
}

/** The result of {@link UsageBudget.claim}: granted (the read is recorded), or why not. */
export type Claim = { readonly granted: true; readonly state: BudgetState } | { readonly granted: false; readonly reason: 'recent' | 'exhausted' | 'blocked'; readonly state: BudgetState };

/** The name of a credential at an origin in the record: SHA-256 of both, 32 hex digits (never the token). */
export function credentialIdOf(origin: string, token: string): string {
  return hash('sha256', `${origin}\n${token}`, 'hex').slice(0, 32);
}

/** The name of an account (the service's `userId`) at an origin in the record: `acct:` + 32 hex digits of SHA-256. */
export function accountIdOf(origin: string, userId: string): string {
  return `acct:${hash('sha256', `${origin}\nuser\n${userId}`, 'hex').slice(0, 32)}`;
}

/** How long an unmetered read waits after a 429 that gave no `Retry-After`, ms. */
export const UNMETERED_WAIT_MS = 60_000;

/**
 * The budget state at `now` from the times of the calls spent (any order) and the end of a 429's
 * wait. Pure.
 */
export function budgetState(callTimes: readonly number[], blockedUntil: number | undefined, now: number): BudgetState {
  const calls = callTimes.filter((t) => t > now - WINDOW_MS && t <= now + FUTURE_SLACK_MS).sort((a, b) => a - b);
  const used = calls.length;
  const blocked = blockedUntil !== undefined && blockedUntil > now ? blockedUntil : undefined;
  const freeAt = (n: number) => (used < n ? now : calls[used - n]! + WINDOW_MS);
  const nextAt = Math.max(freeAt(READS_PER_WINDOW), blocked ?? now);
  const lastAt = calls[used - 1];
  const nextAutoAt = Math.max(nextAt, freeAt(AUTO_READS_PER_WINDOW), lastAt === undefined ? now : lastAt + AUTO_SPACING_MS);
  return {
    now,
    used,
    left: Math.max(0, READS_PER_WINDOW - used),
    nextAt,
    nextAutoAt,
    ...(lastAt !== undefined && { lastAt }),
    ...(blocked !== undefined && { blockedUntil: blocked }),
  };
}

/**
 * Why a read for `mode` may not be spent in `state` (at its `now`): `blocked` (a 429's wait),
 * `recent` (the schedule's last read is too recent), `exhausted` (none left, or none left for the
 * schedule); undefined when it may.
 */
export function declineReason(state: BudgetState, mode: ReadMode): 'recent' | 'exhausted' | 'blocked' | undefined {
  const due = mode === 'auto' ? state.nextAutoAt : state.nextAt;
  if (state.now >= due) return undefined;
  if (state.blockedUntil !== undefined) return 'blocked';
  return mode === 'auto' && state.used < AUTO_READS_PER_WINDOW && state.left > 0 ? 'recent' : 'exhausted';
}

/** A kept answer: its time (service clock, ms) and its data. */
export interface KeptAnswer {
  readonly t: number;
  readonly body: unknown;
}

/** The usage read budget over `history.db` (see the module comment). */
export class UsageBudget {
  readonly #db: DatabaseSync;
  readonly #clock: () => number;
  readonly #calls: StatementSync;
  readonly #prune: StatementSync;
  readonly #insertCall: StatementSync;
  readonly #blocked: StatementSync;
  readonly #setBlocked: StatementSync;
  readonly #answer: StatementSync;
  readonly #answerTime: StatementSync;
  readonly #keep: StatementSync;
  readonly #offset: StatementSync;
  readonly #setOffset: StatementSync;
  readonly #bucket: StatementSync;
  readonly #accountOf: StatementSync;
  readonly #link: StatementSync;
  readonly #isShared: StatementSync;
  readonly #sharedAt: StatementSync;
  readonly #share: StatementSync;
  readonly #copyCalls: StatementSync;
  readonly #credentialsOf: StatementSync;

  /** `db`: an open history database (BalanceHistoryStore.database); `clock`: this machine's (default Date.now). */
  constructor(db: DatabaseSync, options: { clock?: () => number } = {}) {
    this.#db = db;
    this.#clock = options.clock ?? Date.now;
    this.#calls = db.prepare('SELECT t FROM usage_calls WHERE credential = ? AND t > ?');
    this.#prune = db.prepare('DELETE FROM usage_calls WHERE credential = ? AND (t <= ? OR t > ?)');
    this.#insertCall = db.prepare('INSERT INTO usage_calls (credential, t, kind) VALUES (?, ?, ?)');
    this.#blocked = db.prepare('SELECT blocked_until FROM usage_state WHERE credential = ?');
    this.#setBlocked = db.prepare('INSERT INTO usage_state (credential, origin, blocked_until) VALUES (?, ?, ?) ON CONFLICT (credential) DO UPDATE SET blocked_until = excluded.blocked_until');
    this.#answer = db.prepare('SELECT t, body FROM usage_answers WHERE credential = ? AND kind = ?');
    this.#answerTime = db.prepare('SELECT t FROM usage_answers WHERE credential = ? AND kind = ?');
    this.#keep = db.prepare(
      'INSERT INTO usage_answers (credential, kind, t, body) VALUES (?, ?, ?, ?) ON CONFLICT (credential, kind) DO UPDATE SET t = excluded.t, body = excluded.body WHERE excluded.t >= usage_answers.t',
    );
    this.#offset = db.prepare('SELECT offset_ms FROM origin_clock WHERE origin = ?');
    this.#setOffset = db.prepare('INSERT INTO origin_clock (origin, offset_ms) VALUES (?, ?) ON CONFLICT (origin) DO UPDATE SET offset_ms = excluded.offset_ms');
    this.#bucket = db.prepare('SELECT s.account FROM usage_accounts a JOIN usage_shared s ON s.account = a.account WHERE a.credential = ?');
    this.#accountOf = db.prepare('SELECT account FROM usage_accounts WHERE credential = ?');
    this.#link = db.prepare('INSERT INTO usage_accounts (credential, origin, account) VALUES (?, ?, ?) ON CONFLICT (credential) DO UPDATE SET origin = excluded.origin, account = excluded.account');
    this.#isShared = db.prepare('SELECT 1 AS yes FROM usage_shared WHERE account = ?');
    this.#sharedAt = db.prepare('SELECT 1 AS yes FROM usage_shared WHERE origin = ? LIMIT 1');
    this.#share = db.prepare('INSERT INTO usage_shared (account, origin, learned_at) VALUES (?, ?, ?) ON CONFLICT (account) DO NOTHING');
    this.#copyCalls = db.prepare('INSERT INTO usage_calls (credential, t, kind) SELECT ?, t, kind FROM usage_calls WHERE credential = ? AND t > ?');
    this.#credentialsOf = db.prepare('SELECT credential FROM usage_accounts WHERE account = ?');
  }

  /** Whose reads `credential`'s are counted with: its account's once learnt shared, else its own. */
  #bucketOf(credential: string): string {
    return (this.#bucket.get(credential) as { account: string } | undefined)?.account ?? credential;
  }

  /** The account `credential` is linked to ({@link link}), or undefined. */
  accountOf(credential: string): string | undefined {
    return (this.#accountOf.get(credential) as { account: string } | undefined)?.account;
  }

  /** True when the service was seen to count some account's usage reads together at `origin` (a credential there should be linked before it reads). */
  sharedAt(origin: string): boolean {
    return this.#sharedAt.get(origin) !== undefined;
  }

  /**
   * Links `credential` to the account of the service's `userId` at `origin`. When that account's
   * reads are known to be counted together, the credential's reads of the window join them.
   * @throws Error from node:sqlite
   */
  link(credential: string, origin: string, userId: string, now: number): void {
    const account = accountIdOf(origin, userId);
    if (this.accountOf(credential) === account) return;
    this.#transaction(() => {
      this.#link.run(credential, origin, account);
      if (this.#isShared.get(account) !== undefined) this.#copyCalls.run(account, credential, now - WINDOW_MS);
    });
  }

  /**
   * Learns, from the service's 429 to a read this record allowed, that `credential`'s account
   * counts its credentials' reads together: from now on they share one budget (the reads of the
   * window of every linked credential count in it). Nothing when the credential is not linked.
   * @returns true when `credential` is now counted with its account
   */
  learnShared(credential: string, origin: string, now: number): boolean {
    const account = this.accountOf(credential);
    if (account === undefined) return false;
    this.#transaction(() => {
      if (Number(this.#share.run(account, origin, Math.round(now)).changes) === 0) return;
      for (const { credential: c } of this.#credentialsOf.all(account) as Array<{ credential: string }>) this.#copyCalls.run(account, c, now - WINDOW_MS);
    });
    return true;
  }

  /**
   * The service's time now at `origin`, epoch ms: this machine's clock plus the offset a client
   * saw in the service's `Date` header (`clientOffsetMs`, which is then kept for the other
   * processes when it moved by more than a second), else the last offset kept for the origin.
   */
  now(origin: string, clientOffsetMs?: number): number {
    const kept = (this.#offset.get(origin) as { offset_ms: number } | undefined)?.offset_ms;
    if (clientOffsetMs !== undefined && Number.isFinite(clientOffsetMs)) {
      if (kept === undefined || Math.abs(kept - clientOffsetMs) > 1000) this.#setOffset.run(origin, Math.round(clientOffsetMs));
      return this.#clock() + clientOffsetMs;
    }
    return this.#clock() + (kept ?? 0);
  }

  /** The budget of `credential` at `now` (service ms): its own, or its account's once learnt shared. */
  state(credential: string, now: number): BudgetState {
    const bucket = this.#bucketOf(credential);
    const times = (this.#calls.all(bucket, now - WINDOW_MS) as Array<{ t: number }>).map((r) => r.t);
    const blocked = (this.#blocked.get(bucket) as { blocked_until: number | null } | undefined)?.blocked_until ?? undefined;
    const state = budgetState(times, blocked, now);
    return bucket === credential ? state : { ...state, shared: true };
  }

  /**
   * Decides whether `credential` may spend a read of `kind` now (service ms) for `mode`, and when
   * it may, records it, in one transaction: no other process can decide in between.
   * `recent`: the schedule's last read is too recent (use the kept answer); `exhausted`: no read
   * left (or none left for the schedule); `blocked`: a 429 asked to wait. With `metered: false`
   * (an unmetered read) only `blocked` declines, and nothing is counted.
   * @throws Error from node:sqlite (`database is locked` past the busy timeout): nothing is recorded then
   */
  claim(credential: string, mode: ReadMode, kind: string, now: number, metered = true): Claim {
    return this.#transaction(() => {
      const bucket = this.#bucketOf(credential);
      this.#prune.run(bucket, now - WINDOW_MS, now + FUTURE_SLACK_MS);
      const state = this.state(credential, now);
      const reason = metered ? declineReason(state, mode) : state.blockedUntil !== undefined ? 'blocked' : undefined;
      if (reason !== undefined) return { granted: false, reason, state };
      if (metered) this.#insertCall.run(bucket, now, kind);
      return { granted: true, state: this.state(credential, now) };
    });
  }

  /**
   * Records a 429: no read until `retryAfterMs` from `now` (capped at {@link MAX_BLOCK_MS}); without
   * one, until the window frees a read (the service's count is ahead of this record). The wait is
   * the account's once its reads are learnt shared. `metered: false` (an unmetered read): the
   * service's `Retry-After` alone, {@link UNMETERED_WAIT_MS} without one.
   */
  rateLimited(credential: string, origin: string, retryAfterMs: number | undefined, now: number, metered = true): BudgetState {
    return this.#transaction(() => {
      const state = this.state(credential, now);
      // The client bounds any Retry-After (src/api/retry.ts, one hour): a bounded one may mean
      // longer, so the record's own estimate wins when it is later.
      const own = state.lastAt !== undefined ? state.lastAt + WINDOW_MS - now : 0;
      const given = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs >= 0 ? retryAfterMs : undefined;
      const wait = !metered
        ? Math.min(MAX_BLOCK_MS, given ?? UNMETERED_WAIT_MS)
        : Math.min(MAX_BLOCK_MS, given === undefined ? Math.max(own, AUTO_SPACING_MS) : given >= MAX_RETRY_AFTER_MS ? Math.max(given, own) : given);
      this.#setBlocked.run(this.#bucketOf(credential), origin, now + wait);
      return this.state(credential, now);
    });
  }

  /** Keeps the answer of `kind` (its data, without key values) with its time (service ms), unless a newer one is kept. */
  keep(credential: string, kind: string, t: number, body: unknown): void {
    this.#keep.run(credential, kind, Math.round(t), JSON.stringify(body ?? null));
  }

  /** When the answer of `kind` last kept for `credential` was read (service ms), or undefined; its body is not read. */
  keptAt(credential: string, kind: string): number | undefined {
    return (this.#answerTime.get(credential, kind) as { t: number } | undefined)?.t;
  }

  /** The answer of `kind` last kept for `credential`, or undefined (none, or unreadable). */
  kept(credential: string, kind: string): KeptAnswer | undefined {
    const row = this.#answer.get(credential, kind) as { t: number; body: string } | undefined;
    if (!row) return undefined;
    try {
      return { t: row.t, body: JSON.parse(row.body) as unknown };
    } catch {
      // a cached body that is not JSON is no cache: read again
      return undefined;
    }
  }

  #transaction<T>(body: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = body();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}
