/**
 * The balance history on disk: every balance reading (the credit balance record `remaining` and
 * `totalTopUp`, USD; spent derived as `totalTopUp − remaining`, the service's states and transitions budget model) kept per
 * profile and service origin, so that a restarted keydeck or `keydeck monitor` shows the trend,
 * the burn rates and the run-out projection at once, and `keydeck billing history --chart` can
 * draw days of it.
 *
 * File: `<data dir>/history.db` (KEYDECK_DATA_DIR, else the platform's data dir; see
 * src/config/paths.ts), or `KEYDECK_HISTORY_DB`; opened, checked and migrated by ./historyDb.ts
 * (WAL with a busy timeout, so several keydeck processes read and write it at once; each write
 * is one short statement).
 *
 * Retention (history.ts {@link RETENTION_TIERS}): full resolution for 48 h, then the last
 * reading of each 5-minute bucket, past 30 days the last of each hour, nothing past 400 days;
 * applied by {@link HistorySeries.compact} (at most every 10 minutes from the app), with the
 * freed pages returned to the file system (incremental vacuum): the file stays bounded
 * (about 1 MB per profile at a 15 s poll).
 *
 * Amounts are stored as integer micro-dollars, times as epoch ms. Nothing secret is stored: no
 * token, no key, only figures and the profile name and origin.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { MAX_HISTORY_AGE_MS, RETENTION_TIERS, type BalanceSample } from './history.js';
import { historyDbPath, openHistoryDatabase } from './historyDb.js';

export { historyDbPath, HistoryStoreError, type HistoryStoreErrorCode } from './historyDb.js';

/** The origin (`scheme://host:port`) of a base URL: with the profile, the key of a series (the credential store's rule). */
export { originOf } from '../credentials/origin.js';

/** Options of {@link BalanceHistoryStore.open}. */
export interface HistoryStoreOptions {
  /** The database file. Default {@link historyDbPath}. */
  readonly path?: string;
  /** Environment for the default path. Default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long a write waits for another process's lock, ms. Default 2,000. */
  readonly busyTimeoutMs?: number;
}

const MICRO = 1e6;
const toMicros = (usd: number): number => Math.round(usd * MICRO);

/** One `history.db`: opens series by profile and origin. Close it when done. */
export class BalanceHistoryStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #seriesId: StatementSync;
  readonly #seriesInsert: StatementSync;

  private constructor(file: string, db: DatabaseSync) {
    this.path = file;
    this.#db = db;
    this.#seriesId = db.prepare('SELECT id FROM series WHERE profile = ? AND origin = ?');
    this.#seriesInsert = db.prepare('INSERT OR IGNORE INTO series (profile, origin) VALUES (?, ?)');
  }

  /**
   * Opens (creating when needed) the history database.
   * @throws HistoryStoreError `history_unsafe_path` (a symbolic link, not a regular file, or
   *   not owned by this user) or `history_unavailable` (cannot be created or opened).
   */
  static open(options: HistoryStoreOptions = {}): BalanceHistoryStore {
    const file = options.path ?? historyDbPath(options.env);
    return new BalanceHistoryStore(file, openHistoryDatabase(file, options.busyTimeoutMs ?? 2000));
  }

  /**
   * @internal The open database, for the other records kept in `history.db` (per-key usage
   * samples, the usage read budget: ./keyHistory.ts, ./usageBudget.ts). Closed by {@link close}.
   */
  get database(): DatabaseSync {
    return this.#db;
  }

  /** The series of `profile` at `origin` (see {@link originOf}), created on first use. */
  series(profile: string, origin: string): HistorySeries {
    let row = this.#seriesId.get(profile, origin) as { id: number } | undefined;
    if (!row) {
      this.#seriesInsert.run(profile, origin);
      row = this.#seriesId.get(profile, origin) as { id: number };
    }
    return new HistorySeries(this.#db, row.id, profile, origin);
  }

  /** The series that hold readings: profile, origin, readings and time range (epoch ms). */
  list(): { profile: string; origin: string; readings: number; from?: number; to?: number }[] {
    const rows = this.#db
      .prepare(
        'SELECT s.profile, s.origin, COUNT(r.t) AS readings, MIN(r.t) AS "from", MAX(r.t) AS "to" FROM series s LEFT JOIN readings r ON r.series = s.id GROUP BY s.id ORDER BY s.profile, s.origin',
      )
      .all() as { profile: string; origin: string; readings: number; from: number | null; to: number | null }[];
    return rows.map((r) => ({ profile: r.profile, origin: r.origin, readings: r.readings, ...(r.from !== null && { from: r.from }), ...(r.to !== null && { to: r.to }) }));
  }

  /** Bytes used by the database (pages × page size; the WAL not included). */
  sizeBytes(): number {
    const count = (this.#db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
    const size = (this.#db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    return count * size;
  }

  /** Folds the WAL into the database file (tests, benchmarks). */
  checkpoint(): void {
    this.#db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  /** Closes the database (later calls on its series throw). */
  close(): void {
    try {
      this.#db.close();
    } catch {
      // Already closed.
    }
  }
}

/** The readings of one profile at one service origin. */
export class HistorySeries {
  readonly profile: string;
  readonly origin: string;
  /** @internal The series' row id (the per-key usage history of ./keyHistory.ts hangs off it). */
  readonly id: number;
  readonly #db: DatabaseSync;
  readonly #id: number;
  readonly #insert: StatementSync;
  readonly #select: StatementSync;

  /** @internal Use {@link BalanceHistoryStore.series}. */
  constructor(db: DatabaseSync, id: number, profile: string, origin: string) {
    this.#db = db;
    this.#id = id;
    this.id = id;
    this.profile = profile;
    this.origin = origin;
    this.#insert = db.prepare('INSERT OR REPLACE INTO readings (series, t, remaining, total_top_up) VALUES (?, ?, ?, ?)');
    this.#select = db.prepare('SELECT t, remaining, total_top_up FROM readings WHERE series = ? AND t >= ? AND t <= ? ORDER BY t');
  }

  /**
   * Keeps one reading (epoch ms `t`, USD). A reading at the same ms as a kept one replaces it.
   * @throws Error from node:sqlite (`database is locked` after the busy timeout, disk full).
   */
  append(sample: BalanceSample): void {
    if (!Number.isFinite(sample.t) || !Number.isFinite(sample.remaining)) return;
    const total = sample.totalTopUp !== undefined && Number.isFinite(sample.totalTopUp) ? toMicros(sample.totalTopUp) : null;
    this.#insert.run(this.#id, Math.round(sample.t), toMicros(sample.remaining), total);
  }

  /**
   * Keeps many readings in one transaction (an import, a benchmark, a test's simulated month).
   * @throws Error from node:sqlite; nothing is kept then.
   */
  appendMany(samples: Iterable<BalanceSample>): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      for (const s of samples) this.append(s);
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** The readings from `since` to `until` (epoch ms, inclusive), oldest first. */
  load(since: number, until = Number.MAX_SAFE_INTEGER): BalanceSample[] {
    const rows = this.#select.all(this.#id, Math.floor(since), Math.ceil(until)) as { t: number; remaining: number; total_top_up: number | null }[];
    return rows.map((r) => (r.total_top_up === null ? { t: r.t, remaining: r.remaining / MICRO } : { t: r.t, remaining: r.remaining / MICRO, totalTopUp: r.total_top_up / MICRO }));
  }

  /**
   * Applies the retention as of `now` (epoch ms): thins readings older than 48 h to the last of
   * each 5-minute bucket, older than 30 days to the last of each hour, drops those older than
   * `maxAgeMs`, and returns the freed pages to the file system. Idempotent; safe while another
   * process writes (one IMMEDIATE transaction).
   * @returns readings deleted
   */
  compact(now: number, maxAgeMs = MAX_HISTORY_AGE_MS): number {
    let deleted = 0;
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      deleted += Number(this.#db.prepare('DELETE FROM readings WHERE series = ? AND t < ?').run(this.#id, Math.floor(now - maxAgeMs)).changes);
      for (const tier of RETENTION_TIERS) {
        const cutoff = Math.floor(now - tier.olderThanMs);
        deleted += Number(
          this.#db
            .prepare('DELETE FROM readings WHERE series = ?1 AND t < ?2 AND t NOT IN (SELECT MAX(t) FROM readings WHERE series = ?1 AND t < ?2 GROUP BY t / CAST(?3 AS INTEGER))')
            .run(this.#id, cutoff, tier.bucketMs).changes,
        );
      }
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
    if (deleted > 0) this.#db.exec('PRAGMA incremental_vacuum');
    return deleted;
  }
}
