/**
 * Usage in an account watcher: the credential's usage tracker (src/billing/usageTracker.ts: reads
 * within the shared usage read budget), one refresh at a time, and the usage slice replaced only
 * when what it shows changes ({@link sameUsage}), so a screen is drawn again only for that.
 */
import { isAbortError } from '../api/errors.js';
import type { UsageSnapshot, UsageTracker } from '../billing/usageTracker.js';
import type { AccountEvent, UsageSlice } from './types.js';

/**
 * True when two usage snapshots show the same: the figures and their time, the failure, the
 * budget (reads left and whose they are, a wait the service asked for to the minute, the next read
 * and the next automatic one: "now", or the minute they come), and the open runaway episodes with
 * their figures. A next read allowed now is the same in any minute: while a read is left each
 * refresh finds it "now", and the figures' age drawn moves on a timer of its own
 * (src/tui/contexts/UsageContext.tsx), not with a new slice a minute. Why a read was declined is
 * not shown: it is the answer to that read, which `readUsage()` returns (the slice does not hold
 * it, see {@link WatchedUsage}).
 */
export function sameUsage(a: UsageSnapshot, b: UsageSnapshot): boolean {
  if (a === b) return true;
  const minute = (t: number | undefined) => (t === undefined ? undefined : Math.floor(t / 60_000));
  const [x, y] = [a.budget, b.budget];
  const ahead = (now: number, t: number) => (t <= now ? 'now' : minute(t));
  const sameBudget =
    x === y ||
    (x !== undefined &&
      y !== undefined &&
      x.left === y.left &&
      x.shared === y.shared &&
      minute(x.blockedUntil) === minute(y.blockedUntil) &&
      ahead(x.now, x.nextAt) === ahead(y.now, y.nextAt) &&
      ahead(x.now, x.nextAutoAt) === ahead(y.now, y.nextAutoAt));
  return a.report === b.report && a.at === b.at && a.error === b.error && sameBudget && (a.episodes === b.episodes || JSON.stringify([...a.episodes]) === JSON.stringify([...b.episodes]));
}

/** `snapshot` without `declined` (what a slice holds). */
function shown(snapshot: UsageSnapshot): UsageSnapshot {
  if (snapshot.declined === undefined) return snapshot;
  const { declined: _declined, ...rest } = snapshot;
  return rest;
}

/** The usage slice before any tracker. */
export const NO_USAGE: UsageSlice = { available: false, snapshot: { episodes: new Map() }, reading: false };

/** A watcher's usage (see the module comment); `slice()` and `publish()` are the watcher's. */
export class WatchedUsage {
  #tracker: UsageTracker | undefined;
  #busy = false;
  readonly #slice: () => UsageSlice;
  readonly #publish: (slice: UsageSlice) => void;
  readonly #emit: (event: AccountEvent) => void;

  constructor(slice: () => UsageSlice, publish: (slice: UsageSlice) => void, emit: (event: AccountEvent) => void) {
    this.#slice = slice;
    this.#publish = publish;
    this.#emit = emit;
  }

  get tracker(): UsageTracker | undefined {
    return this.#tracker;
  }

  /** Takes `tracker` up, its kept answer loaded at once (no read spent); undefined lets it go. */
  take(tracker: UsageTracker | undefined): void {
    this.#tracker = tracker;
    if (!tracker) return;
    try {
      tracker.load();
    } catch {
      // The record cannot be read now: the first refresh says why (its snapshot's error).
    }
    this.#set({ available: true, snapshot: tracker.snapshot });
  }

  /** Says a read on demand is under way (or over). */
  reading(reading: boolean): void {
    this.#set({ reading });
  }

  /** One refresh (a read spent only when `mode` and the shared budget allow one), unless one is under way. */
  async refresh(mode: 'auto' | 'demand', signal: AbortSignal): Promise<UsageSnapshot> {
    const tracker = this.#tracker;
    if (!tracker || this.#busy) return tracker?.snapshot ?? this.#slice().snapshot;
    this.#busy = true;
    let read: Awaited<ReturnType<UsageTracker['refresh']>>;
    try {
      read = await tracker.refresh(mode, signal);
    } catch (error) {
      this.#busy = false;
      if (signal.aborted || isAbortError(error)) return tracker.snapshot;
      const snapshot = { ...tracker.snapshot, error };
      if (tracker === this.#tracker) this.#set({ snapshot });
      this.#emit({ kind: 'usage_failed', error });
      return snapshot;
    }
    this.#busy = false;
    const { snapshot, alerts } = read;
    if (tracker !== this.#tracker) return snapshot;
    this.#set({ snapshot });
    this.#emit({ kind: 'usage', snapshot, alerts });
    return snapshot;
  }

  #set(patch: Partial<UsageSlice>): void {
    const before = this.#slice();
    const next = { ...before, ...patch, ...(patch.snapshot && { snapshot: shown(patch.snapshot) }) };
    const same = sameUsage(before.snapshot, next.snapshot);
    if (next.reading === before.reading && next.available === before.available && same) return;
    // A slice told only that a read starts or ends keeps the snapshot it shows (its readers' memos hold).
    this.#publish(same ? { ...next, snapshot: before.snapshot } : next);
  }
}
