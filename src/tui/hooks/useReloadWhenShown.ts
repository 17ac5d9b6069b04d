/**
 * Reads a list again when its pane is shown (switching to it with 1-3 or tab), so what a pane
 * shows is never older than the moment it came into view. Not on the first showing (the list
 * loads at start) and not while a load is in flight.
 */
import { useEffect, useRef } from 'react';
import { stateOf, type Resource, type ResourceStore } from './useResource.js';

/** Calls `resource.reload()` each time `shown` turns from false to true. */
export function useReloadWhenShown(resource: Resource<unknown> | ResourceStore<unknown>, shown: boolean): void {
  const wasShown = useRef(shown);
  const resourceRef = useRef(resource);
  resourceRef.current = resource;
  useEffect(() => {
    const before = wasShown.current;
    wasShown.current = shown;
    if (shown && !before && !stateOf(resourceRef.current).loading) void resourceRef.current.reload();
  }, [shown]);
}
