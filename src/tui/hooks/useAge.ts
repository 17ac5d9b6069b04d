/**
 * Texts that move with a clock ("updated N s ago", "usage 2 min ago") re-render their component
 * only when the text changes: a timer to the text's next change (its own step boundary, re-armed at
 * each render), not a fixed tick nor another clock's minute. What the text is read from may move
 * without a render (the header's latest poll, kept in a ref): when the timer fires and the text is
 * as drawn (a newer time, or a clock corrected meanwhile), nothing is committed (each commit is a
 * whole frame for Ink) and the timer waits for the next change.
 */
import { useEffect, useRef, useState } from 'react';
import { clampTimerMs } from '../../api/retry.js';
import { nextAgeChangeMs, updatedAgo } from '../format.js';

/**
 * The text `text(now())`, its component rendered again when it changes (see the module comment).
 * `changeAt(t)`: when the text may next change after time `t` (`now`'s clock, ms; undefined: it
 * does not move with the clock). Both are read afresh when the timer fires.
 */
export function useTimedText(text: (t: number) => string | undefined, changeAt: (t: number) => number | undefined, now: () => number): string | undefined {
  const [, setTick] = useState(0);
  const latest = useRef({ text, changeAt });
  latest.current = { text, changeAt };
  const shown = text(now());
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      const t = now();
      const at = latest.current.changeAt(t);
      if (at === undefined) return;
      // Just past the boundary: the clock read when it fires is on the new side of it.
      timer = setTimeout(
        () => {
          if (latest.current.text(now()) === shown) arm();
          else setTick((n) => n + 1);
        },
        clampTimerMs(at - t + 50),
      );
    };
    arm();
    return () => clearTimeout(timer);
  });
  return shown;
}

/**
 * The age text of `updatedAt` (epoch ms, or a function reading it) at `now()`, in steps of
 * `stepSeconds` (src/tui/format.ts `updatedAgo`); undefined while `updatedAt` is.
 */
export function useAge(updatedAt: number | undefined | (() => number | undefined), now: () => number, stepSeconds = 5): string | undefined {
  const read = typeof updatedAt === 'function' ? updatedAt : () => updatedAt;
  return useTimedText(
    (t) => {
      const at = read();
      return at === undefined ? undefined : updatedAgo(at, t, stepSeconds);
    },
    (t) => {
      const at = read();
      return at === undefined ? undefined : t + nextAgeChangeMs(at, t, stepSeconds);
    },
    now,
  );
}
