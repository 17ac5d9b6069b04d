/**
 * `keydeck monitor`'s view of usage: the account watcher's usage (asked after every
 * balance poll: a read is spent only when the budget's schedule says so), its top spenders, the runaway alert line
 * (the monitor cannot deactivate: it names the command that does), and the balance alert between
 * usage reads (once per episode, the likely key named as such).
 */
import { useCallback, useMemo, useRef } from 'react';
import type { CreditBalance } from '../../../../api/schemas.js';
import type { AccountJudgement } from '../../../../billing/runaway.js';
import { sharePeriod, spendRows, topSpenders } from '../../../../billing/spend.js';
import type { Episode } from '../../../../billing/keyHistory.js';
import { keyAlertSentence, periodWords } from '../../../../billing/usageWords.js';
import type { NotifyEvent } from '../../../../terminal/notify.js';
import { MAX_NAME_WIDTH, plainId, visible } from '../../../../terminal/sanitize.js';
import type { AccountWatcher } from '../../../../watcher/accountWatcher.js';
import type { PollState } from '../../../../watcher/types.js';
import { NO_USAGE } from '../../../../watcher/usageSlice.js';
import { useWatcherEvents, useWatcherSlice } from '../../../hooks/useAccountWatcher.js';
import { alertEvent } from '../../../hooks/usageAlerts.js';
import { spendCell } from '../../keys/keyRows.js';
import type { SpenderSource } from '../topSpenders.js';

/** What the monitor draws of usage. */
export interface MonitorUsage {
  /** The top spenders' source (undefined without a tracker). */
  readonly source?: SpenderSource;
  /** The service's clock minus this machine's, ms (the figures' age is reckoned by it). */
  readonly offsetMs: number;
  /** `⚠ "batch" is spending $5.00/h, 10× its usual $0.50/h · keydeck keys disable ID` (the newest episode). */
  readonly alert?: string;
  /** The alert without the command. */
  readonly alertShort?: string;
  /** The small layout's line: `top batch $12.40 (62% of 24 h)`. */
  readonly topLine?: string;
  readonly readNow: () => void;
}

/**
 * The command the runaway line invites the user to copy: `keydeck keys disable ID` only for a
 * plain id (src/terminal/sanitize.ts `plainId`); an id with any other character (an escape that
 * hides text, a newline, a leading `-`) is never written into a command line to paste.
 */
export function disableHint(keyId: string): string {
  const id = plainId(keyId);
  return id !== undefined ? `keydeck keys disable ${id}` : 'its id is not safe to paste: disable it from the Keys pane (keydeck)';
}

/**
 * The monitor's runaway line of `episode` (the key's name from the usage answer, when it has
 * one, else its id, made visible): `⚠ "batch" is spending … · keydeck keys disable ID`, and the
 * same without the command for narrow layouts.
 */
export function runawayLines(episode: Pick<Episode, 'keyId' | 'kind' | 'usdPerHour' | 'baselineUsdPerHour' | 'startedAt' | 'lastAt'>, name: string | undefined): { alert: string; alertShort: string } {
  const alertShort = `⚠ ${keyAlertSentence(visible(name ?? episode.keyId, { maxWidth: MAX_NAME_WIDTH }), {
    kind: episode.kind,
    usdPerHour: episode.usdPerHour,
    ...(episode.baselineUsdPerHour !== undefined && { baselineUsdPerHour: episode.baselineUsdPerHour }),
    from: episode.startedAt,
    at: episode.lastAt,
  })}`;
  return { alert: `${alertShort} · ${disableHint(episode.keyId)}`, alertShort };
}

/** See the module comment. `watcher`: the monitor's account watcher; `poll`: its balance slice. */
export function useMonitorUsage(watcher: AccountWatcher | undefined, poll: Pick<PollState<CreditBalance>, 'data' | 'updatedAt'>, notify?: (event: NotifyEvent) => void): MonitorUsage {
  const usage = useWatcherSlice(watcher, (s) => s.usage, NO_USAGE);
  const { snapshot } = usage;
  const rows = useMemo(() => (snapshot.report ? spendRows(snapshot.report, undefined, poll.data?.totalTopUp) : []), [snapshot.report, poll.data?.totalTopUp]);
  const period = snapshot.report ? sharePeriod(snapshot.report.periods) : undefined;
  const top = period ? topSpenders(rows, period, 1)[0] : undefined;
  const open = useRef(false);
  const topRef = useRef(top);
  topRef.current = top;
  const reportAccountBurn = useCallback(
    (judgement: AccountJudgement | undefined) => {
      if (!judgement) {
        open.current = false;
        return;
      }
      if (open.current) return;
      open.current = true;
      const likely = topRef.current?.row;
      notify?.({
        kind: 'account_burn',
        usdPerHour: judgement.usdPerHour,
        baselineUsdPerHour: judgement.baselineUsdPerHour,
        ...(likely && { likelyKeyId: likely.id, likelyKeyName: visible(likely.name) }),
      });
    },
    [notify],
  );
  useWatcherEvents(watcher, (event) => {
    // Every runaway episode this process starts is told once.
    if (event.kind === 'usage') for (const alert of event.alerts) notify?.(alertEvent(alert, alert.name ?? alert.keyId));
    // Between usage reads: is the balance falling at N× its own baseline?
    else if (event.kind === 'account_burn') reportAccountBurn(event.judgement);
  });
  const episodes = [...snapshot.episodes.values()];
  const newest = episodes[episodes.length - 1];
  const lines = newest ? runawayLines(newest, rows.find((r) => r.id === newest.keyId)?.name) : undefined;
  return {
    ...(usage.available && { source: { rows, period, at: snapshot.at, budget: snapshot.budget, failed: snapshot.error !== undefined } }),
    offsetMs: watcher?.usageTracker?.clockOffsetMs ?? 0,
    ...(lines && { alert: lines.alert, alertShort: lines.alertShort }),
    ...(top && period && { topLine: `top ${visible(top.row.name)} ${spendCell(top.spend)} (${Math.round(top.share * 100)}% of ${periodWords(period)})` }),
    readNow: () => void watcher?.readUsage(),
  };
}
