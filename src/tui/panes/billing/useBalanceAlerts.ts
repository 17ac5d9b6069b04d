/**
 * What a balance reading tells, said: the account watcher (src/watcher/readingAlerts.ts) judges
 * each reading, and this rings the terminal bell once per downward crossing of the low-balance
 * threshold and sends the notifications (the crossing, a top-up credited). Shared by the Billing
 * pane (which stays mounted while hidden, so the bell rings whichever pane is shown) and
 * `keydeck monitor`.
 */
import { useStdout } from 'ink';
import { BELL } from '../../../billing/alert.js';
import type { NotifyEvent } from '../../../terminal/notify.js';
import type { AccountWatcher } from '../../../watcher/accountWatcher.js';
import { useWatcherEvents } from '../../hooks/useAccountWatcher.js';

/** Options of {@link useBalanceAlerts}. */
export interface BalanceAlertOptions {
  /** Rings the bell (default: writes BEL, `\x07`, to Ink's stdout). */
  readonly bell?: (() => void) | undefined;
  /** Notifications (src/terminal/notify.ts): the low-balance crossing and each top-up credited. */
  readonly notify?: ((event: NotifyEvent) => void) | undefined;
}

/** See the module comment. */
export function useBalanceAlerts(watcher: AccountWatcher | undefined, options: BalanceAlertOptions): void {
  const { stdout } = useStdout();
  useWatcherEvents(watcher, (event) => {
    if (event.kind === 'low_balance') {
      if (options.bell) options.bell();
      else stdout.write(BELL);
      options.notify?.({ kind: 'low_balance', remaining: event.remaining, threshold: event.threshold, totalTopUp: event.totalTopUp });
    } else if (event.kind === 'top_up_credited') {
      // A rise of totalTopUp between two readings: a top-up was credited.
      options.notify?.({ kind: 'top_up_credited', amount: event.amount, remaining: event.remaining, totalTopUp: event.totalTopUp });
    }
  });
}
