/**
 * `keydeck --auto-topup` in the TUI (issue 47): after each balance read, auto top-up's runner
 * (src/operations/autoTopUpRunner.ts) acts on the profile's policy, and the Billing pane shows its
 * one line (the policy, then what it last did, or PAUSED). Every charge is told (a notification,
 * `--on-auto-topup`, the status line) and a credited one refreshes the balance at once. Mounted
 * with the Billing pane, which stays mounted while hidden: it acts whichever pane is shown.
 */
import { useEffect, useMemo, useState } from 'react';
import { hostOf } from '../../../api/baseUrl.js';
import type { CreditBalance } from '../../../api/schemas.js';
import { formatDollars } from '../../../billing/input.js';
import type { JournalEntry } from '../../../billing/journal.js';
import { dataDir } from '../../../config/paths.js';
import { AutoTopUpFeed, AutoTopUpRunner, type AutoTopUpView } from '../../../operations/autoTopUpRunner.js';
import { useBalanceRefresh } from '../../contexts/BalanceContext.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useSession } from '../../contexts/SessionContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { useTopUpDeps } from '../../flows/topup/TopUpDeps.js';
import type { PollState } from '../../hooks/poller.js';

/** The line to show (undefined: no `--auto-topup`, no policy, or nothing read yet). `poll`: the balance poll's state. */
export function useAutoTopUp(poll: Pick<PollState<CreditBalance>, 'data' | 'updatedAt'>, remember?: (entry: JournalEntry) => void): AutoTopUpView | undefined {
  const services = useServices();
  const session = useSession();
  const deps = useTopUpDeps();
  const flash = useFlash({ owned: false });
  const refreshBalance = useBalanceRefresh();
  const client = session.client;
  const baseUrl = session.baseUrl;
  const feed = useMemo(() => {
    const auto = services.autoTopUp;
    if (!auto || !client || !baseUrl) return undefined;
    const runner = new AutoTopUpRunner({
      journal: deps.journal,
      scope: { host: hostOf(baseUrl), profile: services.profile.name },
      dataDir: services.dataDir ?? dataDir(),
      readPolicy: auto.readPolicy,
      pausePolicy: auto.pausePolicy,
      cardMethodNames: auto.cardMethodNames,
      settle: auto.settle,
    });
    const withClock = { billing: client.billing, serviceNow: () => Date.now() + (client.serviceClockOffsetMs ?? 0) };
    return new AutoTopUpFeed(runner, withClock, (notice, entry) => {
      remember?.(entry);
      services.notify?.({ kind: 'auto_top_up', ...notice });
      if (notice.outcome === 'credited') {
        flash(`auto top-up charged ${formatDollars(notice.amount)} to the card on file`, 'ok');
        refreshBalance();
      } else {
        flash(notice.outcome === 'failed' ? `auto top-up: the charge of ${formatDollars(notice.amount)} failed${notice.paused ? '; paused' : ''}` : `auto top-up: a charge of ${formatDollars(notice.amount)} is not confirmed`, 'warning');
      }
    });
  }, [client, baseUrl]); // eslint-disable-line react-hooks/exhaustive-deps
  const [view, setView] = useState<AutoTopUpView | undefined>(undefined);
  useEffect(() => {
    setView(feed?.view);
    return feed?.subscribe(() => setView(feed.view));
  }, [feed]);
  useEffect(() => {
    if (feed && poll.data && poll.updatedAt !== undefined) void feed.afterReading(poll.data);
  }, [feed, poll.updatedAt]); // eslint-disable-line react-hooks/exhaustive-deps
  return view;
}
