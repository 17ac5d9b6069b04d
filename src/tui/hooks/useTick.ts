/**
 * Re-renders the calling component every `ms` (for "updated N s ago" style text); no timer
 * when `ms` is undefined. Coarse on purpose: every tick costs a frame.
 */
import { useEffect, useState } from 'react';

/** Returns a counter that increases every `ms` milliseconds. */
export function useTick(ms: number | undefined): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (ms === undefined) return;
    const timer = setInterval(() => setTick((t) => t + 1), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return tick;
}
