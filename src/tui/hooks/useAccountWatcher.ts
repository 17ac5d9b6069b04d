/**
 * React's side of the account watcher (src/watcher/accountWatcher.ts): a slice of its snapshot,
 * read through useSyncExternalStore, so a component commits only when its slice changes (the
 * header's balance does not redraw for a usage answer), and its events, heard while mounted. Used
 * by the TUI's providers (contexts/BalanceContext.tsx, UsageContext.tsx), the Billing pane and
 * `keydeck monitor`'s view.
 */
import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { AccountWatcher } from '../../watcher/accountWatcher.js';
import type { AccountEvent, AccountSnapshot } from '../../watcher/types.js';

function noSubscribe(): () => void {
  return () => {};
}

/**
 * The slice `select` picks of `watcher`'s snapshot (`fallback` without a watcher). `select` must
 * return a part of the snapshot as it is (a slice, or a field of one), never a new object. With
 * `live` false the caller is not re-rendered by the watcher (a pane not shown): it reads the
 * slice as it is when it renders for another reason.
 */
export function useWatcherSlice<T>(watcher: AccountWatcher | undefined, select: (snapshot: AccountSnapshot) => T, fallback: T, live = true): T {
  const selectRef = useRef(select);
  selectRef.current = select;
  return useSyncExternalStore(watcher && live ? watcher.subscribe : noSubscribe, () => (watcher ? selectRef.current(watcher.snapshot) : fallback));
}

/** Hears each event of `watcher` while mounted (the latest `listener` is called). */
export function useWatcherEvents(watcher: AccountWatcher | undefined, listener: (event: AccountEvent) => void): void {
  const listenerRef = useRef(listener);
  listenerRef.current = listener;
  useEffect(() => watcher?.on((event) => listenerRef.current(event)), [watcher]);
}
