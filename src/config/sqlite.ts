/**
 * Opening keydeck's own SQLite files (the top-up record, the balance history) when several keydeck
 * processes may open the same new file at once.
 *
 * SQLite's busy handler (the `timeout` of `node:sqlite`) covers a lock held by another connection,
 * but not every way two connections can meet while a new file is set up: when two processes turn
 * a fresh file to WAL together, one of them gets SQLITE_BUSY at once, without waiting (measured:
 * 10 of 120 three-process races on Node 24's SQLite). {@link openSqlite} runs the set-up again
 * after a short pause until the same timeout has passed. Imported by `src/billing` only.
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
