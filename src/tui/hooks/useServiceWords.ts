/**
 * Words that move with the service's clock (a key's status and time left, the figures' age), drawn
 * again when they change: src/tui/hooks/useAge.ts `useTimedTextCheck` on the service's clock
 * (this machine's, corrected by the offset the client reads from each answer's `Date` header).
 * Each successful balance poll (an answer, so maybe a corrected offset) looks again at once: a
 * wait worked out on the old offset leaves the words wrong until the next poll at most.
 */
import { usePollSucceeded } from '../contexts/BalanceContext.js';
import { useServiceClock } from '../contexts/SessionContext.js';
import { useTimedTextCheck } from './useAge.js';

/**
 * `text(t)` at the service's time now, the caller rendered again when it changes; `changeAt(t)`:
 * when it may next change after service time `t` (ms; undefined: not with the clock).
 */
export function useServiceWords(text: (t: number) => string | undefined, changeAt: (t: number) => number | undefined): string | undefined {
  const [shown, recheck] = useTimedTextCheck(text, changeAt, useServiceClock());
  usePollSucceeded(recheck);
  return shown;
}
