/**
 * Which operations a face drives right now: each operation it starts or takes up is
 * locked for it (src/config/heldLock.ts) until the operation ends or the face lets go, so that
 * another keydeck tells an operation in progress from an interrupted one (recorded, not locked),
 * never offers to finish or undo one under way, and never takes it up twice. One set per face's
 * context (a command's run, the TUI's session): nothing at module level.
 */
import { heldLockPath, isHeldElsewhere, tryHold, type HeldLock } from '../config/heldLock.js';

/** The operations one context drives. */
export class OperationDrivers {
  readonly #dir: string;
  readonly #held = new Map<string, HeldLock>();

  /** `dataDir`: keydeck's data dir (the locks live in its `locks/`). */
  constructor(dataDir: string) {
    this.#dir = dataDir;
  }

  /**
   * Takes operation `id` for this context.
   * @returns true when this context drives it now (already, or from now on); false when another
   *   keydeck (or another context of this process) does
   */
  async take(id: string): Promise<boolean> {
    if (this.#held.has(id)) return true;
    const lock = await tryHold(heldLockPath(this.#dir, id));
    if (!lock) return false;
    this.#held.set(id, lock);
    return true;
  }

  /** Lets go of `id`; `ended`: the operation is over (its lock file goes too). Nothing when not held. */
  release(id: string, ended = false): void {
    const lock = this.#held.get(id);
    if (!lock) return;
    this.#held.delete(id);
    lock.release(ended);
  }

  /** Lets go of every operation still held (the face stops: an unfinished one is then interrupted). */
  releaseAll(): void {
    for (const id of [...this.#held.keys()]) this.release(id);
  }

  /** True when another keydeck drives `id` now (not this context). */
  async elsewhere(id: string): Promise<boolean> {
    return !this.#held.has(id) && (await drivenElsewhere(this.#dir, id));
  }
}

/** True when some keydeck drives the operation `id` of the data dir `dataDir` now. */
export function drivenElsewhere(dataDir: string, id: string): Promise<boolean> {
  return isHeldElsewhere(heldLockPath(dataDir, id));
}
