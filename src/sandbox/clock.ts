/**
 * The sandbox's one clock: real time plus an offset that only moves forward
 * (`POST /sandbox/clock`). Subscription expiry, rate-limit windows and every timestamp the
 * sandbox writes read it, so tests move time instead of sleeping.
 */

/** A clock in epoch milliseconds. */
export interface SandboxClock {
  /** Current sandbox time, epoch ms (real time + offset). */
  now(): number;
  /** The offset from real time, ms (≥ 0). */
  offsetMs(): number;
  /** Moves the clock forward by `seconds` (≥ 0) and persists the new offset. */
  advance(seconds: number): void;
}

/**
 * A clock starting at `initialOffsetMs`; `persist` is called with the new offset after every
 * {@link SandboxClock.advance} (the sandbox stores it in its database, so a restart keeps it).
 */
export function createClock(initialOffsetMs: number, persist: (offsetMs: number) => void = () => {}): SandboxClock {
  let offset = initialOffsetMs;
  return {
    now: () => Date.now() + offset,
    offsetMs: () => offset,
    advance(seconds: number) {
      offset += Math.round(seconds * 1000);
      persist(offset);
    },
  };
}
