/**
 * The balance history on disk (issue 16): every balance reading (§2.3 `remaining` and
 * `totalTopUp`, USD; spent derived as `totalTopUp − remaining`, the §3 budget model) kept per
 * profile and service origin, so that a restarted keydeck or `keydeck monitor` shows the trend,
 * the burn rates and the run-out projection at once, and `keydeck billing history --chart` can
 * draw days of it.
 *
 * File: `<data dir>/history.db` (KEYDECK_DATA_DIR, else the platform's data dir; see
 * src/config/paths.ts), or `KEYDECK_HISTORY_DB`. A `node:sqlite` database in WAL mode with a
 * busy timeout, so several keydeck processes (the TUI and a monitor in a tmux pane) read and
 * write it at once; each write is one short statement. Mode 0600 in a 0700 directory; a path
 * that is a symbolic link, not a regular file or owned by someone else is refused. A file that
 * is not a database is moved aside (`history.db.broken-<timestamp>`) and a fresh one starts.
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
import { chmodSync, lstatSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { dataDir } from '../config/paths.js';
import { MAX_HISTORY_AGE_MS, RETENTION_TIERS, type BalanceSample } from './history.js';

/** Stable codes of {@link HistoryStoreError}. */
export type HistoryStoreErrorCode = 'history_unsafe_path' | 'history_unavailable';

/** The history database cannot be used; `message` is one sentence naming the file. */
export class HistoryStoreError extends Error {
  override readonly name = 'HistoryStoreError';
  readonly code: HistoryStoreErrorCode;
  readonly path: string;
  constructor(code: HistoryStoreErrorCode, message: string, file: string) {
    super(message);
    this.code = code;
    this.path = file;
  }
}

/** `KEYDECK_HISTORY_DB` when set, else `<dataDir>/history.db`. */
export function historyDbPath(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.KEYDECK_HISTORY_DB;
  if (override && override.trim() !== '') return path.resolve(override);
  return path.join(dataDir(env), 'history.db');
}

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

const SCHEMA_VERSION = 1;
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
    checkPath(file);
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new HistoryStoreError('history_unavailable', `cannot create the directory of the balance history ${file} (${codeOf(error)})`, file);
    }
    let db: DatabaseSync;
    try {
      db = openDatabase(file, options.busyTimeoutMs ?? 2000);
    } catch (error) {
      if (!isNotADatabase(error)) {
        throw new HistoryStoreError('history_unavailable', `cannot open the balance history ${file} (${messageOf(error)})`, file);
      }
      // Not a database: keep it for inspection, start a fresh one.
      const aside = `${file}.broken-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      try {
        renameSync(file, aside);
        db = openDatabase(file, options.busyTimeoutMs ?? 2000);
      } catch (again) {
        throw new HistoryStoreError('history_unavailable', `cannot open the balance history ${file} (${messageOf(again)})`, file);
      }
    }
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        chmodSync(f, 0o600);
      } catch {
        // -wal and -shm may not exist yet; the directory is 0700 anyway.
      }
    }
    return new BalanceHistoryStore(file, db);
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
  readonly #db: DatabaseSync;
  readonly #id: number;
  readonly #insert: StatementSync;
  readonly #select: StatementSync;

  /** @internal Use {@link BalanceHistoryStore.series}. */
  constructor(db: DatabaseSync, id: number, profile: string, origin: string) {
    this.#db = db;
    this.#id = id;
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
            .prepare(
              'DELETE FROM readings WHERE series = ?1 AND t < ?2 AND t NOT IN (SELECT MAX(t) FROM readings WHERE series = ?1 AND t < ?2 GROUP BY t / CAST(?3 AS INTEGER))',
            )
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

function openDatabase(file: string, busyTimeoutMs: number): DatabaseSync {
  const db = new DatabaseSync(file, { timeout: busyTimeoutMs });
  try {
    // A new file gets incremental auto-vacuum before its first table (it cannot be set later
    // without a VACUUM); WAL lets readers and one writer of several processes work at once.
    db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
    if (version < SCHEMA_VERSION) {
      db.exec('BEGIN IMMEDIATE');
      try {
        db.exec(`
          CREATE TABLE IF NOT EXISTS series (
            id INTEGER PRIMARY KEY,
            profile TEXT NOT NULL,
            origin TEXT NOT NULL,
            UNIQUE (profile, origin)
          );
          CREATE TABLE IF NOT EXISTS readings (
            series INTEGER NOT NULL REFERENCES series (id),
            t INTEGER NOT NULL,
            remaining INTEGER NOT NULL,
            total_top_up INTEGER,
            spent INTEGER GENERATED ALWAYS AS (total_top_up - remaining) VIRTUAL,
            PRIMARY KEY (series, t)
          ) WITHOUT ROWID;
          PRAGMA user_version = ${SCHEMA_VERSION};
        `);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Refuses a path ssh would not trust for its own files: a link, not a regular file, someone else's. */
function checkPath(file: string): void {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return; // Does not exist yet: it is created with mode 0600.
  }
  if (st.isSymbolicLink() || !st.isFile()) {
    throw new HistoryStoreError('history_unsafe_path', `the balance history ${file} is not a regular file (a link or a directory): move it away`, file);
  }
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new HistoryStoreError('history_unsafe_path', `the balance history ${file} belongs to another user: move it away`, file);
  }
}

function isNotADatabase(error: unknown): boolean {
  const e = error as { errcode?: number; message?: string };
  // SQLITE_NOTADB (26) and SQLITE_CORRUPT (11).
  return e?.errcode === 26 || e?.errcode === 11 || /not a database|malformed/i.test(e?.message ?? '');
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? messageOf(error);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
