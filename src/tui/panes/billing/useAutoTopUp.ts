/**
 * `keydeck --auto-topup` in the TUI: after each balance read, the account watcher runs auto
 * top-up's runner (src/operations/autoTopUpRunner.ts) on the profile's policy, and the Billing
 * pane shows its one line (the policy, then what it last did, or PAUSED). Every charge is told (a
 * notification, `--on-auto-topup`, the status line) and a credited one refreshes the balance at
 * once. Mounted with the Billing pane, which stays mounted while hidden: it is heard whichever pane
 * is shown.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { JournalEntry } from '../../../billing/journal.js';
import { AutoTopUpFeed, type AutoTopUpView } from '../../../operations/index.js';
import { useAccountWatcher, useBalanceRefresh } from '../../contexts/BalanceContext.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { useWatcherEvents } from '../../hooks/useAccountWatcher.js';
import { formatUsd } from '../../../api/money.js';

/** The line to show (undefined: no `--auto-topup`, no policy, or nothing read yet). `remember`: shows a charge's record in the list. */
export function useAutoTopUp(remember?: (entry: JournalEntry) => void): AutoTopUpView | undefined {
  const services = useServices();
  const flash = useFlash({ owned: false });
  const refreshBalance = useBalanceRefresh();
  const watcher = useAccountWatcher()?.watcher;
  // The latest `remember` (the walk-through's, whose identity may change) hears each charge.
  const rememberRef = useRef(remember);
  rememberRef.current = remember;
  const feed = useMemo(
    () =>
      services.autoTopUp && watcher
        ? new AutoTopUpFeed((notice, entry) => {
            rememberRef.current?.(entry);
            services.notify?.({ kind: 'auto_top_up', ...notice });
            if (notice.outcome === 'credited') {
              flash(`auto top-up charged ${formatUsd(notice.amount)} to the card on file`, 'ok');
              refreshBalance();
            } else {
              flash(
                notice.outcome === 'failed'
                  ? `auto top-up: the charge of ${formatUsd(notice.amount)} failed${notice.paused ? '; paused' : ''}`
                  : `auto top-up: a charge of ${formatUsd(notice.amount)} is not confirmed`,
                'warning',
              );
            }
          })
        : undefined,
    [watcher, services, flash, refreshBalance],
  );
  const [view, setView] = useState<AutoTopUpView | undefined>(undefined);
  useEffect(() => {
    setView(feed?.view);
    return feed?.subscribe(() => setView(feed.view));
  }, [feed]);
  useWatcherEvents(watcher, (event) => {
    if (event.kind === 'auto_top_up') feed?.took(event.step);
    else if (event.kind === 'auto_top_up_failed') feed?.failed(event.error);
  });
  return view;
}
