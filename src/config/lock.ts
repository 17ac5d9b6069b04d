/**
 * A cross-process lock around every read-modify-write of the config file and the plaintext key
 * file (docs/architecture.md, "Boundaries": local files). Built on node:sqlite (no new dependency): the lock
 * is an exclusive transaction on `<configDir>/.keydeck.lock`, an SQLite database used for nothing
 * else. SQLite's file locks are the operating system's (fcntl on POSIX, LockFileEx on Windows),
 * so a process that dies releases its lock at once: no stale lock files, no lock-breaking by age.
 * Waiting is SQLite's busy timeout (it sleeps between tries).
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { KeydeckError } from '../errors/index.js';

/** The lock file of the config dir `dir`. */
export function lockFilePath(dir: string): string {
  return path.join(dir, '.keydeck.lock');
}

/** How long a writer waits for another keydeck process's lock, ms (a read-modify-write takes milliseconds). */
export const LOCK_TIMEOUT_MS = 10_000;

/**
 * Runs `body` while holding the lock of the config dir `dir` (created with mode 0700 when
 * missing), and releases it however `body` ends.
 * @throws Error `could not lock …` naming the lock file when another process held it past
 *   `timeoutMs`; whatever `body` throws.
 */
export async function withConfigLock<T>(dir: string, body: () => Promise<T>, timeoutMs = LOCK_TIMEOUT_MS): Promise<T> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withLockFile(lockFilePath(dir), body, timeoutMs);
}

/**
 * Runs `body` while holding the lock `file` (an SQLite file used for nothing else, as the config
 * dir's: see the module comment; its directory must exist), and releases it however `body` ends.
 * For a lock of one thing rather than of a dir (auto top-up's lock of one account).
 * @throws Error `could not lock …` naming the file when another process held it past `timeoutMs`;
 *   whatever `body` throws.
 */
export async function withLockFile<T>(file: string, body: () => Promise<T>, timeoutMs = LOCK_TIMEOUT_MS): Promise<T> {
  // Callers in this process queue first: SQLite's wait is synchronous, so a second holder in the
  // same process would block the event loop the first one needs to finish.
  const key = path.resolve(file);
  const before = queues.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = before.then(() => mine);
  queues.set(key, tail);
  await before;
  try {
    return await holdLock(file, body, timeoutMs);
  } finally {
    release();
    if (queues.get(key) === tail) queues.delete(key);
  }
}

/** The in-process queue of each lock file (see withLockFile). */
const queues = new Map<string, Promise<void>>();

async function holdLock<T>(file: string, body: () => Promise<T>, timeoutMs: number): Promise<T> {
  // node:sqlite loads with the first write, not with every reader of the config (the TUI's first
  // frame reads the config and writes nothing).
  const { DatabaseSync } = await import('node:sqlite');
  let db: InstanceType<typeof DatabaseSync>;
  try {
    db = new DatabaseSync(file, { timeout: timeoutMs });
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    throw new KeydeckError('lock_busy', `could not lock ${file} (${(err as Error).message}): another keydeck holds it (writing the config or a record); try again`, { cause: err, nothingSent: true });
  }
  try {
    return await body();
  } finally {
    try {
      db.exec('ROLLBACK');
    } finally {
      db.close();
    }
  }
}
