/**
 * `useState` whose setter hands React a change only: a value, or an updater's result, that is the
 * state already set (`Object.is`) calls no `setState` at all.
 *
 * React keeps each update on its hook's queue until the component renders again, an update that
 * changed nothing included (with its updater function and all that function holds): React then
 * renders nothing, so nothing takes it off. A component told the same thing at every poll and
 * re-rendered by nothing else (a provider while the account stays the same) would hold every
 * update it was given, for as long as the app runs (docs/performance.md, "The TUI's memory
 * (round 5)": the day's soak grew V8's heap by ~54 MB so).
 */
import { useCallback, useRef, useState } from 'react';

/** The setter of {@link useChangedState}: a new state, or an updater of the state last set. */
export type SetChangedState<S> = (next: S | ((state: S) => S)) => void;

/**
 * `[state, set]` as React's `useState(initial)` (`initial` not a function; the state never one),
 * but `set` works out the new state from the state last set (what the next render shows) and
 * calls React's setter only when it differs. Updaters run at once, in the order called.
 */
export function useChangedState<S>(initial: S): readonly [S, SetChangedState<S>] {
  const [state, setState] = useState(initial);
  const latest = useRef(state);
  const set = useCallback<SetChangedState<S>>((next) => {
    const value = typeof next === 'function' ? (next as (state: S) => S)(latest.current) : next;
    if (Object.is(value, latest.current)) return;
    latest.current = value;
    setState(() => value);
  }, []);
  return [state, set] as const;
}
