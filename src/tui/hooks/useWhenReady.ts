/** An action a key asks for before what it needs exists: acted on once it does, never dropped. */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';

/**
 * Asked while `ready`, `action` runs at once; asked before (a key pressed while the session's
 * client is still being made), `waiting` is called to say so, and `action` runs once `ready`
 * turns true. @returns the function that asks for the action
 */
export function useWhenReady(ready: boolean, action: () => void, waiting: () => void): () => void {
  const [asked, setAsked] = useState(false);
  const latest = useRef(action);
  // In the commit, not after it: a key handled between a commit and its passive effects (no
  // later commit flushes them first) would otherwise act on the render before (a new key named
  // as one the list already holds).
  useLayoutEffect(() => {
    latest.current = action;
  });
  useEffect(() => {
    if (!asked || !ready) return;
    setAsked(false);
    latest.current();
  }, [asked, ready]);
  return useCallback(() => {
    if (ready) return latest.current();
    setAsked(true);
    waiting();
  }, [ready, waiting]);
}
