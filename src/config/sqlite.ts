/**
 * Opening keydeck's own SQLite files (the top-up record, the balance history, the sandbox's
 * database): {@link openStore} is the one way each is opened, trusted, set up and migrated.
 *
 * - Trust, as ssh trusts its own files (./trust.ts): the directory and every directory above it
 *   (`data dir`), and the file with its `-wal` and `-shm`: a regular file of this user (or root),
 *   not writable by group or others; a new file is created 0600 before SQLite opens it (SQLite
 *   gives the `-wal` and `-shm` the mode of the database), an existing one set to 0600 after.
 * - The house's pragmas: WAL (readers and one writer of several processes at once), `synchronous
 *   = NORMAL`, the busy timeout; a store adds its own before and after them.
 * - Numbered migrations, recorded in `PRAGMA user_version`: migration i brings version i to i + 1,
 *   each in one `BEGIN IMMEDIATE` transaction that reads the version again under the lock (two
 *   processes opening an old file at once migrate it once). A file of a newer keydeck is refused
 *   ({@link NewerSchemaError}), never changed.
 * - A damaged file (not a database, a page SQLite cannot read): thrown (the top-up record fails
 *   closed, src/billing/journal.ts) or moved aside for a fresh one (`damaged: 'move aside'`, the
 *   balance history, a cache).
 *
 * And when several keydeck processes open the same new file at once:
 * SQLite's busy handler (the `timeout` of `node:sqlite`) covers a lock held by another connection,
 * but not every way two connections can meet while a new file is set up: when two processes turn
 * a fresh file to WAL together, one of them gets SQLITE_BUSY at once, without waiting (measured:
 * 10 of 120 three-process races on Node 24's SQLite). {@link openSqlite} runs the set-up again
 * after a short pause until the same timeout has passed. Imported by `src/billing` and
 * `src/sandbox/db.ts`.
 *
 * A damaged file is told apart from a busy one ({@link isDamagedSqlite}, {@link quickCheck}): the
 * top-up record refuses to be used then (src/billing/journal.ts), the balance history (a cache) is
 * moved aside (src/billing/historyDb.ts).
 */
import { chmodSync, closeSync, constants, mkdirSync, openSync, renameSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { KeydeckError } from '../errors/index.js';
import { checkTrustedDir, checkTrustedFileSync, type StoreKind, type TrustProblem } from './trust.js';

/** SQLite's result codes for a lock held elsewhere: SQLITE_BUSY (5) and SQLITE_LOCKED (6). */
function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return code === 5 || code === 6 || /database is locked|database table is locked/i.test(String((error as Error | null)?.message));
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Opens `file` (created when missing) with a busy timeout of `timeoutMs` ms and runs `setup` on the
 * new connection (its pragmas and schema). When the set-up meets another process's lock (SQLITE_BUSY
 * or SQLITE_LOCKED), the connection is closed and the whole step tried again every 5–25 ms, until
 * `timeoutMs` has passed since the first try; the pause blocks the thread, as SQLite's own busy
 * handler does.
 * @returns the open connection, set up.
 * @throws whatever `new DatabaseSync` or `setup` throws: at once for anything but a lock, after
 *   `timeoutMs` for a lock (the last error).
 */
function openSqlite(file: string, timeoutMs: number, setup: (db: DatabaseSync) => void): DatabaseSync {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const db = new DatabaseSync(file, { timeout: timeoutMs });
    try {
      setup(db);
      return db;
    } catch (error) {
      db.close(); // An open transaction is rolled back.
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5 + Math.floor(Math.random() * 20));
    }
  }
}

/**
 * True for SQLite's words for a damaged file: SQLITE_CORRUPT (11, "database disk image is
 * malformed") and SQLITE_NOTADB (26, "file is not a database", also what an overwritten header
 * gives), or "file is encrypted" (an old SQLite's word for the same).
 */
export function isDamagedSqlite(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return code === 11 || code === 26 || /not a database|malformed|file is encrypted/i.test(String((error as Error | null)?.message));
}

/**
 * SQLite's own check of every page of `db` (`PRAGMA quick_check`: the b-trees, the free list,
 * the records' shapes, not the indexes' content; about 1 ms per 100 KB). Returns undefined when it
 * says `ok`, else its first finding (at most 200 characters).
 * @throws what SQLite throws when it cannot even read the file (see {@link isDamagedSqlite})
 */
export function quickCheck(db: DatabaseSync): string | undefined {
  const rows = db.prepare('PRAGMA quick_check(1)').all() as { quick_check?: unknown }[];
  const first = String(rows[0]?.quick_check ?? 'no answer');
  return first === 'ok' ? undefined : first.slice(0, 200);
}

/** A store's file is from a newer keydeck: its schema version is above the last migration this one knows. */
export class NewerSchemaError extends KeydeckError {
  override readonly name = 'NewerSchemaError';
  /** The file's `user_version`. */
  readonly found: number;
  /** The version this keydeck writes (its number of migrations). */
  readonly known: number;
  constructor(found: number, known: number) {
    super('schema_newer', `it has schema version ${found}, newer than this keydeck (${known})`, { exitClass: 'stopped' });
    this.found = found;
    this.known = known;
  }
}

/** What {@link openStore} opens. */
export interface StoreSpec {
  /** The database file, or `':memory:'` (no file: nothing checked, created or moved). */
  readonly file: string;
  /** What it holds: the words of a refusal (./trust.ts). */
  readonly kind: StoreKind;
  /** How long a connection waits for another's lock, ms (SQLite's busy timeout, and the set-up's retries). */
  readonly busyTimeoutMs: number;
  /** Ordered migrations: index i brings the schema from version i to i + 1. Append only. */
  readonly migrations: readonly string[];
  /** SQL run on each new connection before the house's pragmas (what must precede WAL or the first table). */
  readonly before?: string;
  /** SQL run on each new connection after the house's pragmas, before migrating. */
  readonly after?: string;
  /** A damaged file: thrown (the default: a store that fails closed), or renamed `<file>.broken-<time>` and started afresh. */
  readonly damaged?: 'throw' | 'move aside';
  /** The store's own error for a file or directory it may not trust (default: an Error of its sentence). */
  readonly refuse?: (problem: TrustProblem) => Error;
}

/**
 * Opens the store `spec` describes (see the module comment): its directory created 0700, the
 * directory and the files trusted, the file created 0600 when missing, the pragmas set, migrated
 * to `spec.migrations.length`, and its files made 0600.
 * @returns the open connection
 * @throws `spec.refuse(problem)` for a file or directory it may not trust; {@link NewerSchemaError};
 *   what SQLite throws (a damaged file, {@link isDamagedSqlite}, unless moved aside; a lock held
 *   past the timeout); the fs error when the directory cannot be created
 */
export function openStore(spec: StoreSpec): DatabaseSync {
  const { file } = spec;
  if (file === ':memory:') return openSqlite(file, spec.busyTimeoutMs, (db) => setUp(db, spec));
  const refuse = spec.refuse ?? ((problem: TrustProblem) => new Error(problem.sentence));
  const dirProblem = checkTrustedDir(path.dirname(file), 'data dir');
  if (dirProblem) throw refuse(dirProblem);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  for (const f of companions(file)) {
    const problem = checkTrustedFileSync(f, spec.kind);
    if (problem) throw refuse(problem);
  }
  let db: DatabaseSync;
  try {
    createOwnerOnly(file);
    db = openSqlite(file, spec.busyTimeoutMs, (d) => setUp(d, spec));
  } catch (error) {
    if (spec.damaged !== 'move aside' || !isDamagedSqlite(error)) throw error;
    // Not a database: kept for inspection, a fresh one started.
    renameSync(file, `${file}.broken-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    createOwnerOnly(file);
    db = openSqlite(file, spec.busyTimeoutMs, (d) => setUp(d, spec));
  }
  for (const f of companions(file)) {
    try {
      chmodSync(f, 0o600);
    } catch {
      // -wal and -shm may not exist yet (they take the database's mode), or no modes here.
    }
  }
  return db;
}

/** The database file and SQLite's files beside it. */
function companions(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`];
}

/** Creates `file` empty with mode 0600 when it is missing (SQLite takes an empty file for a new database); follows no link. */
function createOwnerOnly(file: string): void {
  try {
    closeSync(openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** The pragmas, then the migrations, each under the write lock. */
function setUp(db: DatabaseSync, spec: StoreSpec): void {
  if (spec.before) db.exec(spec.before);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  if (spec.after) db.exec(spec.after);
  const target = spec.migrations.length;
  const versionOf = () => (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  const version = versionOf();
  if (version > target) throw new NewerSchemaError(version, target);
  for (let v = version; v < target; v++) {
    db.exec('BEGIN IMMEDIATE');
    try {
      // Another process may have migrated meanwhile: the version read again under the lock.
      const now = versionOf();
      if (now > target) throw new NewerSchemaError(now, target);
      if (now === v) db.exec(`${spec.migrations[v]!}\nPRAGMA user_version = ${v + 1};`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}
