/**
 * The rows of the Accounts view, live: subscribed to every profile's account watcher (each
 * commits a new snapshot only when it changes), redrawn every few seconds for the ages, sorted by
 * what needs attention first (./accountRows.ts).
 */
import { useCallback, useEffect, useState } from 'react';
import type { ProfileWatch } from '../../watcher/profileWatchers.js';
import { accountRow, byAttention, type AccountRow } from './accountRows.js';

/** How often the ages are redrawn without any change, ms. */
export const ACCOUNTS_TICK_MS = 5000;

/**
 * The rows of `watches` now, most urgent first. `now`: clock (epoch ms). `live`: false while the
 * rows are not on screen (a hidden pane): then no snapshot and no tick commits anything, and the
 * rows are read again when they are shown.
 */
export function useAccountRows(watches: readonly ProfileWatch[], now: () => number, live = true): AccountRow[] {
  const read = useCallback(() => byAttention(watches.map((w) => accountRow(w.profile, w.watcher.snapshot, now()))), [watches, now]);
  const [rows, setRows] = useState(read);
  useEffect(() => {
    if (!live) return undefined;
    const update = () => setRows(read());
    update();
    const offs = watches.map((w) => w.watcher.subscribe(update));
    const timer = setInterval(update, ACCOUNTS_TICK_MS);
    return () => {
      for (const off of offs) off();
      clearInterval(timer);
    };
  }, [watches, live, read]);
  return rows;
}
