/**
 * Opening keydeck's own SQLite files (the top-up record, the balance history) when several keydeck
 * processes may open the same new file at once.
 *
 * SQLite's busy handler (the `timeout` of `node:sqlite`) covers a lock held by another connection,
 * but not every way two connections can meet while a new file is set up: when two processes turn
 * a fresh file to WAL together, one of them gets SQLITE_BUSY at once, without waiting (measured:
 * 10 of 120 three-process races on Node 24's SQLite). {@link openSqlite} runs the set-up again
 * after a short pause until the same timeout has passed. Imported by `src/billing` only.
 *
 * A damaged file is told apart from a busy one ({@link isDamagedSqlite}, {@link quickCheck}): the
 * top-up record refuses to be used then (src/billing/journal.ts), the balance history (a cache) is
 * moved aside (src/billing/historyDb.ts).
 */
import { DatabaseSync } from 'node:sqlite';

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
export function openSqlite(file: string, timeoutMs: number, setup: (db: DatabaseSync) => void): DatabaseSync {
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
