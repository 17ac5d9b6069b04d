/**
 * A lock held for as long as one process drives one multi-step operation, so that
 * another keydeck (a second shell, the TUI beside a cron job) tells an operation in progress from
 * one that was interrupted: an operation recorded but not locked is interrupted. Built like
 * ./lock.ts on node:sqlite: the lock is an exclusive transaction on a small file, taken without
 * waiting; the operating system releases it when the process dies, so a kill leaves no stale lock.
 * SQLite's locks also keep two connections of one process apart (the test suites run the CLI in
 * their own thread).
 */
import { existsSync, mkdirSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

/** A lock this process holds. */
export interface HeldLock {
  /** Releases it (and removes its file when `remove`: the operation ended). Never throws. */
  release(remove?: boolean): void;
}

/** `<dir>/locks/<name>.lock`. */
export function heldLockPath(dir: string, name: string): string {
  return path.join(dir, 'locks', `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.lock`);
}

/**
 * Takes the lock of `file` when nobody holds it.
 * @returns the lock, or undefined when another process (or another connection of this one) holds it
 * @throws the file system's error when the lock's directory cannot be made
 */
export async function tryHold(file: string): Promise<HeldLock | undefined> {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const { DatabaseSync: Database } = await import('node:sqlite');
  let db: DatabaseSync;
  try {
    db = new Database(file, { timeout: 0 });
  } catch {
    // cannot open the lock file: nobody is known to hold it
    return undefined;
  }
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch {
    // busy: held by another process, which is the answer
    db.close();
    return undefined;
  }
  let held = true;
  return {
    release(remove = false) {
      if (!held) return;
      held = false;
      try {
        db.exec('ROLLBACK');
      } catch {
        // Rolled back already.
      }
      db.close();
      if (remove) {
        try {
          unlinkSync(file);
        } catch {
          // Gone already.
        }
      }
    },
  };
}

/** True when another process (or connection) holds the lock of `file` now (a look: it never makes the file). */
export async function isHeldElsewhere(file: string): Promise<boolean> {
  // A driver makes the file when it takes the lock: without one, nobody holds it (and a look
  // leaves no file behind).
  if (!existsSync(file)) return false;
  let lock: HeldLock | undefined;
  try {
    lock = await tryHold(file);
  } catch {
    // No lock can be taken there at all: nobody holds one either.
    return false;
  }
  if (!lock) return true;
  lock.release();
  return false;
}
