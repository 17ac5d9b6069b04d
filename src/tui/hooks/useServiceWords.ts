/**
 * Words that move with the service's clock (a key's status and time left, the figures' age), drawn
 * again when they change: src/tui/hooks/useAge.ts `useTimedTextCheck` on the service's clock
 * (this machine's, corrected by the offset the client reads from each answer's `Date` header).
 * Each successful balance poll (an answer, so maybe a corrected offset) looks again at once when
 * the offset moved by more than the `Date` header's second (its readings jitter by that much from
 * answer to answer, and a look at each would draw words across a boundary back and forth): a wait
 * worked out on the old offset leaves the words wrong until the next poll at most.
 */
import { useRef } from 'react';
import { usePollSucceeded } from '../contexts/BalanceContext.js';
import { useServiceClock } from '../contexts/SessionContext.js';
import { useTimedTextCheck } from './useAge.js';

/** A move of the service's clock this small is the Date header's jitter, not a correction (ms). */
const JITTER_MS = 1500;

/**
 * `text(t)` at the service's time now, the caller rendered again when it changes; `changeAt(t)`:
 * when it may next change after service time `t` (ms; undefined: not with the clock). `drawnAt`:
 * the service time a caller that draws by itself drew with (then nothing is returned; see
 * `useTimedTextCheck`).
 */
export function useServiceWords(text: (t: number) => string | undefined, changeAt: (t: number) => number | undefined, drawnAt?: number): string | undefined {
  const now = useServiceClock();
  const [shown, recheck] = useTimedTextCheck(text, changeAt, now, drawnAt);
  // The service's clock against this machine's monotonic one, as the wait was worked out.
  const skew = useRef(0);
  skew.current = now() - performance.now();
  usePollSucceeded(() => {
    const moved = now() - performance.now();
    if (Math.abs(moved - skew.current) < JITTER_MS) return;
    skew.current = moved;
    recheck();
  });
  return shown;
}
