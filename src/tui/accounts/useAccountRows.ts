/**
 * The rows of the Accounts view, live: subscribed to every profile's account watcher (each
 * commits a new snapshot only when it changes), redrawn every few seconds for the ages, sorted by
 * what needs attention first (./accountRows.ts).
 */
import { useEffect, useMemo, useReducer } from 'react';
import type { ProfileWatch } from '../../watcher/profileWatchers.js';
import { accountRow, byAttention, type AccountRow } from './accountRows.js';

/** How often the ages are redrawn without any change, ms. */
export const ACCOUNTS_TICK_MS = 5000;

/** The rows of `watches` now, most urgent first. `now`: clock (epoch ms). */
export function useAccountRows(watches: readonly ProfileWatch[], now: () => number): AccountRow[] {
  const [version, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const offs = watches.map((w) => w.watcher.subscribe(bump));
    const timer = setInterval(bump, ACCOUNTS_TICK_MS);
    return () => {
      for (const off of offs) off();
      clearInterval(timer);
    };
  }, [watches]);
  return useMemo(() => {
    const t = now();
    return byAttention(watches.map((w) => accountRow(w.profile, w.watcher.snapshot, t)));
  }, [watches, version, now]); // eslint-disable-line react-hooks/exhaustive-deps
}
