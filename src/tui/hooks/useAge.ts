/**
 * "updated N s ago" that re-renders its component only when the text changes (a timer to the
 * next step boundary, re-armed when `updatedAt` changes), not on a fixed tick.
 */
import { useEffect, useState } from 'react';
import { clampTimerMs } from '../../api/retry.js';
import { nextAgeChangeMs, updatedAgo } from '../format.js';

/** The age text of `updatedAt` (epoch ms) at `now()`, in steps of `stepSeconds`; undefined while `updatedAt` is. */
export function useAge(updatedAt: number | undefined, now: () => number, stepSeconds = 5): string | undefined {
  const [, setTick] = useState(0);
  const t = now();
  useEffect(() => {
    if (updatedAt === undefined) return;
    const timer = setTimeout(() => setTick((n) => n + 1), clampTimerMs(nextAgeChangeMs(updatedAt, now(), stepSeconds) + 50));
    return () => clearTimeout(timer);
  });
  return updatedAt === undefined ? undefined : updatedAgo(updatedAt, t, stepSeconds);
}
