/**
 * `keydeck monitor`'s view of usage (issue 22): the tracker asked on every balance poll (a read
 * is spent only when the budget's schedule says so), its top spenders, the runaway alert line
 * (the monitor cannot deactivate: it names the command that does), and the balance alert between
 * usage reads (once per episode, the likely key named as such).
 */
import { useCallback, useMemo, useRef } from 'react';
import type { CreditBalance } from '../../../../api/schemas.js';
import type { AccountJudgement } from '../../../../billing/runaway.js';
import { sharePeriod, spendRows, topSpenders } from '../../../../billing/spend.js';
import type { UsageTracker } from '../../../../billing/usageTracker.js';
import { keyAlertSentence, periodWords } from '../../../../billing/usageWords.js';
import type { NotifyEvent } from '../../../../terminal/notify.js';
import { visible } from '../../../../terminal/sanitize.js';
import type { PollState } from '../../../hooks/poller.js';
import { useUsageTracker } from '../../../hooks/useUsageTracker.js';
import { spendCell } from '../../keyRows.js';
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
  readonly reportAccountBurn: (judgement: AccountJudgement | undefined) => void;
}

/** See the module comment. */
export function useMonitorUsage(tracker: UsageTracker | undefined, poll: Pick<PollState<CreditBalance>, 'data' | 'updatedAt'>, notify?: (event: NotifyEvent) => void): MonitorUsage {
  const tracked = useUsageTracker(tracker, poll.updatedAt, { notify });
  const { snapshot } = tracked;
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
      notify?.({ kind: 'account_burn', usdPerHour: judgement.usdPerHour, baselineUsdPerHour: judgement.baselineUsdPerHour, ...(likely && { likelyKeyId: likely.id, likelyKeyName: visible(likely.name) }) });
    },
    [notify],
  );
  const episodes = [...snapshot.episodes.values()];
  const newest = episodes[episodes.length - 1];
  const newestName = newest ? visible(rows.find((r) => r.id === newest.keyId)?.name ?? newest.keyId) : undefined;
  const alertShort = newest
    ? `⚠ ${keyAlertSentence(newestName!, { kind: newest.kind, usdPerHour: newest.usdPerHour, ...(newest.baselineUsdPerHour !== undefined && { baselineUsdPerHour: newest.baselineUsdPerHour }), from: newest.startedAt, at: newest.lastAt })}`
    : undefined;
  return {
    ...(tracker && { source: { rows, period, at: snapshot.at, budget: snapshot.budget, failed: snapshot.error !== undefined } }),
    offsetMs: tracker?.clockOffsetMs ?? 0,
    ...(alertShort && { alert: `${alertShort} · keydeck keys disable ${newest!.keyId}`, alertShort }),
    ...(top && period && { topLine: `top ${visible(top.row.name)} ${spendCell(top.spend)} (${Math.round(top.share * 100)}% of ${periodWords(period)})` }),
    readNow: () => void tracked.readNow(),
    reportAccountBurn,
  };
}
