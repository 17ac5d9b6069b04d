/**
 * The sandbox's one clock: real time plus an offset that only moves forward
 * (`POST /sandbox/clock`). Subscription expiry, rate-limit windows and every timestamp the
 * sandbox writes read it, so tests move time instead of sleeping.
 */

/**
 * Farthest the sandbox clock may run ahead of real time, ms (100 years): its dates stay valid
 * (JavaScript dates end in the year 275760) and its arithmetic exact, whatever is asked.
 */
export const MAX_CLOCK_OFFSET_MS = 100 * 365 * 24 * 3600 * 1000;

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
  // A database written before the bound existed starts within it (never a permanent 500).
  let offset = Number.isFinite(initialOffsetMs) ? Math.min(MAX_CLOCK_OFFSET_MS, Math.max(0, initialOffsetMs)) : 0;
  return {
    now: () => Date.now() + offset,
    offsetMs: () => offset,
    advance(seconds: number) {
      offset = Math.min(MAX_CLOCK_OFFSET_MS, offset + Math.round(seconds * 1000));
      persist(offset);
    },
  };
}
