/**
 * "updated N s ago" that re-renders its component only when the text changes (a timer to the
 * next step boundary, re-armed when `updatedAt` changes), not on a fixed tick. `updatedAt` may be
 * a reader of a time that moves without a render (the header's latest poll, kept in a ref): when
 * the timer fires and a newer time leaves the text as it is drawn, nothing is committed (each
 * commit is a whole frame for Ink) and the timer waits for that time's next step.
 */
import { useEffect, useRef, useState } from 'react';
import { clampTimerMs } from '../../api/retry.js';
import { nextAgeChangeMs, updatedAgo } from '../format.js';

/**
 * The age text of `updatedAt` (epoch ms, or a function reading it) at `now()`, in steps of
 * `stepSeconds`; undefined while `updatedAt` is.
 */
export function useAge(updatedAt: number | undefined | (() => number | undefined), now: () => number, stepSeconds = 5): string | undefined {
  const [, setTick] = useState(0);
  const read = typeof updatedAt === 'function' ? updatedAt : () => updatedAt;
  const readRef = useRef(read);
  readRef.current = read;
  const at = read();
  const text = at === undefined ? undefined : updatedAgo(at, now(), stepSeconds);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (from: number) => {
      timer = setTimeout(
        () => {
          const latest = readRef.current();
          if (latest !== undefined && updatedAgo(latest, now(), stepSeconds) === text) arm(latest);
          else setTick((n) => n + 1);
        },
        clampTimerMs(nextAgeChangeMs(from, now(), stepSeconds) + 50),
      );
    };
    if (at !== undefined) arm(at);
    return () => clearTimeout(timer);
  });
  return text;
}
