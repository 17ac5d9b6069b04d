/**
 * Usage in the sandbox: every served inference request is a usage event (time on the
 * sandbox clock, key, cost, tokens), and the usage endpoints sum them over the periods of the
 * real service's usage page (24 h, 7 d, 30 d, all time) or a date range (the older page's
 * aggregated form). Moving the sandbox clock (`POST /sandbox/clock`) moves the periods.
 *
 * The service allows 12 usage reads per 12 hours per credential
 * (https://cheapestinference-docs.pages.dev/api/usage): {@link UsageReadLimiter} enforces it on
 * the sandbox clock with 429 `rate_limited` and `Retry-After`, unless lifted for load tests and
 * the benchmarks (`startSandbox({ usageReadLimit: false })`, `keydeck sandbox --unlimited-usage-reads`);
 * it also counts every usage read it sees (`GET /sandbox/usage/calls`).
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { SandboxError } from './errors.js';
import { hashSecret } from './secrets.js';

/** Usage reads allowed per credential per window (the real service's limit). */
export const USAGE_READS_PER_WINDOW = 12;
/** The window of {@link USAGE_READS_PER_WINDOW}, ms (12 hours). */
export const USAGE_READ_WINDOW_MS = 12 * 3_600_000;

/** The rolling periods, ms. */
export const PERIODS = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;

/** One period's sums: µUSD, requests, tokens. */
export interface PeriodSums {
  costMicros: number;
  requests: number;
  tokens: number;
}

/** A key's sums over each period. */
export interface KeyPeriodSums {
  '24h': PeriodSums;
  '7d': PeriodSums;
  '30d': PeriodSums;
  total: PeriodSums;
}

/** A consumption key as the usage answers list it (deleted keys with recent spend included). */
export interface UsageKeyRow {
  id: string;
  name: string;
  key_plan: string;
  key_type: 'subscription' | 'credit';
  is_active: number;
  spend_micros: number;
  blocks: string | null;
  subscription_expires_at: number | null;
  created_at: number;
  deleted_at: number | null;
}

const ZERO: PeriodSums = { costMicros: 0, requests: 0, tokens: 0 };

/** Usage events over one database. */
export class UsageStore {
  readonly #insert: StatementSync;
  readonly #sums: StatementSync;
  readonly #range: StatementSync;
  readonly #keys: StatementSync;
  readonly #deleted: StatementSync;

  constructor(db: DatabaseSync) {
    this.#deleted = db.prepare('SELECT 1 AS gone FROM consumption_keys WHERE key_hash = ? AND deleted_at IS NOT NULL');
    this.#insert = db.prepare('INSERT INTO usage_events (user_id, key_id, t, cost_micros, tokens) VALUES (?, ?, ?, ?, ?)');
    const sum = (n: number, p: string) =>
      `SUM(CASE WHEN t > ?${n} THEN cost_micros ELSE 0 END) AS ${p}c, SUM(CASE WHEN t > ?${n} THEN 1 ELSE 0 END) AS ${p}r, SUM(CASE WHEN t > ?${n} THEN tokens ELSE 0 END) AS ${p}n`;
    this.#sums = db.prepare(
      `SELECT key_id AS k, ${sum(2, 'd')}, ${sum(3, 'w')}, ${sum(4, 'm')}, SUM(cost_micros) AS tc, COUNT(*) AS tr, SUM(tokens) AS tn
       FROM usage_events WHERE user_id = ?1 AND t <= ?5 GROUP BY key_id`,
    );
    this.#range = db.prepare('SELECT key_id AS k, SUM(cost_micros) AS c, COUNT(*) AS r, SUM(tokens) AS n FROM usage_events WHERE user_id = ? AND t >= ? AND t <= ? GROUP BY key_id');
    this.#keys = db.prepare(
      `SELECT id, name, key_plan, key_type, is_active, spend_micros, blocks, subscription_expires_at, created_at, deleted_at
       FROM consumption_keys WHERE user_id = ? AND (deleted_at IS NULL OR deleted_at > ?) ORDER BY rowid`,
    );
  }

  /** Records one served request of `keyId` (of `userId`) at `t` (sandbox ms): its cost (µUSD) and tokens. */
  record(userId: string, keyId: string, t: number, costMicros: number, tokens: number): void {
    this.#insert.run(userId, keyId, t, costMicros, tokens);
  }

  /** Each key's sums over 24 h, 7 d, 30 d and all time as of `now` (sandbox ms); keys without events are absent. */
  periods(userId: string, now: number): Map<string, KeyPeriodSums> {
    const rows = this.#sums.all(userId, now - PERIODS['24h'], now - PERIODS['7d'], now - PERIODS['30d'], now) as Array<Record<string, number> & { k: string }>;
    const out = new Map<string, KeyPeriodSums>();
    for (const r of rows) {
      const at = (p: string): PeriodSums => ({ costMicros: r[`${p}c`] ?? 0, requests: r[`${p}r`] ?? 0, tokens: r[`${p}n`] ?? 0 });
      out.set(r.k, { '24h': at('d'), '7d': at('w'), '30d': at('m'), total: at('t') });
    }
    return out;
  }

  /** Each key's sums from `from` to `to` (sandbox ms, inclusive). */
  range(userId: string, from: number, to: number): Map<string, PeriodSums> {
    const rows = this.#range.all(userId, from, to) as Array<{ k: string; c: number; r: number; n: number }>;
    return new Map(rows.map((r) => [r.k, { costMicros: r.c, requests: r.r, tokens: r.n }]));
  }

  /** True when `apiKey` is the value of a consumption key that was deleted (the usage page's 404). */
  isDeletedKeyValue(apiKey: string): boolean {
    return this.#deleted.get(hashSecret(apiKey)) !== undefined;
  }

  /** The user's keys that are not deleted, and those deleted after `deletedSince` (sandbox ms). */
  keys(userId: string, deletedSince: number): UsageKeyRow[] {
    return this.#keys.all(userId, deletedSince) as unknown as UsageKeyRow[];
  }
}

/** Sums with nothing in them. */
export function emptySums(): KeyPeriodSums {
  return { '24h': ZERO, '7d': ZERO, '30d': ZERO, total: ZERO };
}

/**
 * The 12-per-12-hours limit of usage reads, per credential (a hash of the presented token), on
 * the sandbox clock; and the count of every usage read seen (served or refused), for
 * `GET /sandbox/usage/calls`. In memory (a restart forgets the windows, as the rate limits of the service's limits).
 */
export class UsageReadLimiter {
  readonly #enabled: boolean;
  readonly #windows = new Map<string, number[]>();
  readonly #seen: Array<{ t: number; served: boolean }> = [];

  /** `enabled` false lifts the limit (load tests, benchmarks); reads are still counted. */
  constructor(enabled = true) {
    this.#enabled = enabled;
  }

  /** True while the limit is enforced. */
  get enabled(): boolean {
    return this.#enabled;
  }

  /**
   * Admits one usage read by `credential` at `now` (sandbox ms), or throws SandboxError
   * `rate_limited` (429) with the seconds until the oldest read of the window leaves it.
   */
  admit(credential: string, now: number): void {
    const w = (this.#windows.get(credential) ?? []).filter((t) => t > now - USAGE_READ_WINDOW_MS);
    if (this.#enabled && w.length >= USAGE_READS_PER_WINDOW) {
      this.#windows.set(credential, w);
      this.#note(now, false);
      const wait = Math.max(1, Math.ceil((w[0]! + USAGE_READ_WINDOW_MS - now) / 1000));
      throw new SandboxError('rate_limited', `usage is limited to ${USAGE_READS_PER_WINDOW} requests per 12 hours for this credential: try again in ${wait} s`, {
        retryAfterSeconds: wait,
      });
    }
    w.push(now);
    if (this.#windows.size >= 100_000) this.#windows.clear();
    this.#windows.set(credential, w);
    this.#note(now, true);
  }

  #note(t: number, served: boolean): void {
    if (this.#seen.length >= 100_000) this.#seen.splice(0, 50_000);
    this.#seen.push({ t, served });
  }

  /** Usage reads seen (all credentials): served and refused, over the last 12 hours before `now` and in all. */
  counts(now: number): { windowSeconds: number; served: number; refused: number; allTime: { served: number; refused: number } } {
    const recent = this.#seen.filter((c) => c.t > now - USAGE_READ_WINDOW_MS);
    return {
      windowSeconds: USAGE_READ_WINDOW_MS / 1000,
      served: recent.filter((c) => c.served).length,
      refused: recent.filter((c) => !c.served).length,
      allTime: { served: this.#seen.filter((c) => c.served).length, refused: this.#seen.filter((c) => !c.served).length },
    };
  }
}
