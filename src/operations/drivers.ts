/**
 * Which operations a face drives right now: each operation it starts or takes up is
 * locked for it (src/config/heldLock.ts) until the operation ends or the face lets go, so that
 * another keydeck tells an operation in progress from an interrupted one (recorded, not locked),
 * never offers to finish or undo one under way, and never takes it up twice. One set per face's
 * context (a command's run, a TUI flow): nothing at module level.
 *
 * A lock is never dropped from under a drive that runs: every drive of the context runs through
 * {@link OperationDrivers.during} (./kit.ts `drive`), and a let-go asked while one is under way (a
 * flow closed mid-drive, the face stopping, an operation's end inside its own drive) takes effect
 * once the context's drives have all settled. Then an ended operation's lock file goes; one that
 * stopped awaiting the user, or failed, is released and so interrupted, for any keydeck to take
 * up. The guarantee's scope is the data dir's `locks/`: the keydeck processes of one machine.
 */
import { heldLockPath, isHeldElsewhere, tryHold, type HeldLock } from '../config/heldLock.js';

/** Options of {@link OperationDrivers}. */
export interface OperationDriversOptions {
  /**
   * Hands each drive over to the face's exit (the TUI's `waitUntil`, src/tui/lifecycle.ts), so
   * that the exit waits for a drive still under way (within its budget) rather than cutting it short.
   */
  readonly waitUntil?: (work: Promise<unknown>) => unknown;
}

/** The operations one context drives. */
export class OperationDrivers {
  readonly #dir: string;
  readonly #waitUntil: OperationDriversOptions['waitUntil'];
  readonly #held = new Map<string, HeldLock>();
  /** Drives of this context under way. */
  #drives = 0;
  /** Let-gos asked while a drive was under way: the operation's id and whether it ended. */
  readonly #letGo = new Map<string, boolean>();
  /** Every operation let go of ({@link releaseAll}) while a drive was under way. */
  #letGoAll = false;

  /** `dataDir`: keydeck's data dir (the locks live in its `locks/`). */
  constructor(dataDir: string, options: OperationDriversOptions = {}) {
    this.#dir = dataDir;
    this.#waitUntil = options.waitUntil;
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

  /**
   * Lets go of `id`; `ended`: the operation is over (its lock file goes too). Nothing when not
   * held. While a drive of this context is under way, it takes effect once the drives have settled.
   */
  release(id: string, ended = false): void {
    if (this.#drives > 0) {
      this.#letGo.set(id, ended || this.#letGo.get(id) === true);
      return;
    }
    const lock = this.#held.get(id);
    if (!lock) return;
    this.#held.delete(id);
    lock.release(ended);
  }

  /**
   * Lets go of every operation held (the face stops, a flow closes: an unfinished one is then
   * interrupted); those a drive under way takes meanwhile too, once the drives have settled.
   */
  releaseAll(): void {
    if (this.#drives > 0) {
      this.#letGoAll = true;
      return;
    }
    for (const id of [...this.#held.keys()]) this.release(id);
  }

  /**
   * Runs `work`, a drive of this context (./kit.ts `drive`), counted as under way from this call
   * until it settles: the let-gos asked meanwhile wait for it. Handed over to the face's exit
   * ({@link OperationDriversOptions.waitUntil}).
   * @returns what `work` returns (its failure included)
   */
  during<T>(work: () => Promise<T>): Promise<T> {
    this.#drives++;
    const run = (async () => {
      try {
        return await work();
      } finally {
        if (--this.#drives === 0) this.#settled();
      }
    })();
    this.#waitUntil?.(run);
    return run;
  }

  /** True when another keydeck drives `id` now (not this context). */
  async elsewhere(id: string): Promise<boolean> {
    return !this.#held.has(id) && (await drivenElsewhere(this.#dir, id));
  }

  /** No drive under way any more: the let-gos asked meanwhile take effect (an end first). */
  #settled(): void {
    const asked = [...this.#letGo];
    const all = this.#letGoAll;
    this.#letGo.clear();
    this.#letGoAll = false;
    for (const [id, ended] of asked) this.release(id, ended);
    if (all) this.releaseAll();
  }
}

/** True when some keydeck drives the operation `id` of the data dir `dataDir` now. */
export function drivenElsewhere(dataDir: string, id: string): Promise<boolean> {
  return isHeldElsewhere(heldLockPath(dataDir, id));
}
