/**
 * Texts that move with a clock ("updated N s ago", "usage 2 min ago", a key's "⚠ 5 h left") re-render
 * their component only when the text changes: a wake at the text's next change (its own step
 * boundary, worked out again at each render), not a fixed tick nor another clock's minute. What the
 * text is read from may move without a render (the header's latest poll, kept in a ref): when the
 * wake comes and the text is as drawn (a newer time, or a clock corrected meanwhile), nothing is
 * committed (each commit is a whole frame for Ink) and the next change is waited for.
 *
 * The texts of an app share one timer ({@link WakeProvider}): those whose change is due together (a
 * key's end changes its row's status and the pane tabs' notice) are told in one task, so React
 * commits them as one frame.
 */
import { createContext, createElement, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { clampTimerMs } from '../../api/retry.js';
import { nextAgeChangeMs, updatedAgo } from '../format.js';

/** One text waiting for its next change: `due` (performance.now() ms) and what to do then. */
interface Wake {
  readonly due: number;
  readonly run: () => void;
}

/** Wakes due this close after the first one are run with it (each is still past its boundary: see `look`). */
const TOGETHER_MS = 30;

/** The timer the texts of one app share: `wakeIn(ms, run)` runs `run` after `ms`, and returns its cancel. */
interface WakeTimer {
  readonly wakeIn: (ms: number, run: () => void) => () => void;
}

/** A {@link WakeTimer}: one `setTimeout` at the earliest wake, the wakes due together run in one task. */
function createWakeTimer(): WakeTimer {
  const wakes = new Set<Wake>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerDue = Number.POSITIVE_INFINITY;
  /** Sets the timer to the earliest wake (none left: no timer). */
  const setTimer = () => {
    let first = Number.POSITIVE_INFINITY;
    for (const w of wakes) first = Math.min(first, w.due);
    if (first === timerDue) return;
    clearTimeout(timer);
    timer = undefined;
    timerDue = first;
    if (first !== Number.POSITIVE_INFINITY) timer = setTimeout(fire, clampTimerMs(first - performance.now()));
  };
  /** Runs every wake that is due (in one task: React commits their renders as one), then sets the timer again. */
  const fire = () => {
    timer = undefined;
    timerDue = Number.POSITIVE_INFINITY;
    const until = performance.now() + TOGETHER_MS;
    const due = [...wakes].filter((w) => w.due <= until);
    for (const w of due) wakes.delete(w);
    for (const w of due) w.run();
    setTimer();
  };
  return {
    wakeIn(ms, run) {
      const wake = { due: performance.now() + ms, run };
      wakes.add(wake);
      setTimer();
      return () => {
        if (wakes.delete(wake)) setTimer();
      };
    },
  };
}

const WakeContext = createContext<WakeTimer | undefined>(undefined);

/** Gives the texts below it one shared timer (the app's root); a text outside one has a timer of its own. */
export function WakeProvider({ children }: { readonly children?: ReactNode }) {
  const [timer] = useState(createWakeTimer);
  return createElement(WakeContext.Provider, { value: timer }, children);
}

/**
 * The text `text(now())` and `recheck`, its component rendered again when the text changes (see the
 * module comment). `changeAt(t)`: when the text may next change after time `t` (`now`'s clock, ms;
 * undefined: it does not move with the clock); a time too early costs a look, never a commit.
 * Both are read afresh at each wake. `drawnAt`: the time (`now`'s clock) the caller drew with, when
 * it read the clock and draws by itself: the text is then worked out only at a wake (at `drawnAt`
 * for what is drawn, even across a boundary between the two reads), and not returned.
 * `recheck()` (stable) looks at once and waits anew: for a clock that moved meanwhile (the
 * service's, corrected at each answer), so a wait worked out on the old clock does not leave the
 * text wrong.
 */
export function useTimedTextCheck(
  text: (t: number) => string | undefined,
  changeAt: (t: number) => number | undefined,
  now: () => number,
  drawnAt?: number,
): readonly [string | undefined, () => void] {
  const [, setTick] = useState(0);
  const shared = useContext(WakeContext);
  const [own] = useState(() => (shared ? undefined : createWakeTimer()));
  const { wakeIn } = shared ?? own!;
  // A caller that draws by itself (`drawnAt`) is not given the text: it is worked out only at a
  // wake, from the closure it drew with, so a render costs no words.
  const shown = drawnAt === undefined ? text(now()) : undefined;
  const latest = useRef({ text, changeAt, now, drawn: () => shown });
  latest.current = { text, changeAt, now, drawn: drawnAt === undefined ? () => shown : () => text(drawnAt) };
  const cancel = useRef<() => void>(undefined);
  /** Commits when the text is no longer the one drawn, else waits for its next change. */
  const look = useCallback(() => {
    cancel.current?.();
    cancel.current = undefined;
    const { text: textAt, changeAt: nextAt, now: clock, drawn } = latest.current;
    const t = clock();
    if (textAt(t) !== drawn()) {
      setTick((n) => n + 1);
      return;
    }
    const at = nextAt(t);
    // Just past the boundary: the clock read at the wake is on the new side of it.
    if (at !== undefined) cancel.current = wakeIn(at - t + 50, look);
  }, [wakeIn]);
  useEffect(() => {
    const { changeAt: nextAt, now: clock } = latest.current;
    const t = clock();
    const at = nextAt(t);
    if (at !== undefined) cancel.current = wakeIn(at - t + 50, look);
    return () => {
      cancel.current?.();
      cancel.current = undefined;
    };
  });
  return [shown, look];
}

/** The text of {@link useTimedTextCheck}, without its `recheck`. */
export function useTimedText(text: (t: number) => string | undefined, changeAt: (t: number) => number | undefined, now: () => number): string | undefined {
  return useTimedTextCheck(text, changeAt, now)[0];
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
