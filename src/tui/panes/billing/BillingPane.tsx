/**
 * The Billing pane (`3`): the credit balance record balance record with the remaining balance large,
 * the low-balance alert (a word and the bell, once per crossing), the trend (sparkline, burn
 * rate over 15 min and 1 h, projected run-out), the top spenders with their share of the
 * account's spend, the recent top-ups of the local journal, the
 * `GET /api/billing/status` tree (`s`; `c` there cancels a renewal, as `keydeck billing cancel`:
 * ../../flows/CancelRenewalFlow.tsx), the top-up walk-through (`t`), and the pools view (`p`,
 * ./PoolsView.tsx; `c` there cancels the renewal of a pledge in the selected pool).
 *
 * The pane stays mounted while hidden (the shell's contract), so the history, the bell, card
 * payment watching and a walk-through in progress carry on while another pane is shown.
 */
import { useEffect, useEffectEvent, useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { BalanceHistory, trendOf } from '../../../billing/history.js';
import { isUnfinished, topUpPhase } from '../../../billing/journal.js';
import { useAccountWatcher, useBalance, useBalanceRefresh } from '../../contexts/BalanceContext.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { useClock, useServices } from '../../contexts/ServicesContext.js';
import { useSession } from '../../contexts/SessionContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { describeFailure } from '../../errors.js';
import { useResource } from '../../hooks/useResource.js';
import { useTick } from '../../hooks/useTick.js';
import { theme } from '../../theme.js';
import { TopUpDialog } from '../../flows/topup/TopUpDialog.js';
import { useTopUpDeps } from '../../flows/topup/TopUpDeps.js';
import { useTopUpFlow } from '../../flows/topup/useTopUpFlow.js';
import type { PaneProps } from '../registry.js';
import { nextWindow, type ChartWindow } from '../../../billing/chart.js';
import { BalanceChart, MIN_CHART_ROWS } from './BalanceChart.js';
import { BalanceSummary } from './BalanceSummary.js';
import { PoolsView } from './PoolsView.js';
import { RecentTopUps } from './RecentTopUps.js';
import { StatusTree, treeLines, type TreeLine } from './StatusTree.js';
import { summarizeBillingStatus } from '../../../api/reader.js';
import { visible } from '../../../terminal/sanitize.js';
import { statusSummaryLines } from '../../../billing/statusSummary.js';
import { TrendLines } from './TrendLines.js';
import { useBalanceAlerts } from './useBalanceAlerts.js';
import { useWatcherEvents, useWatcherSlice } from '../../hooks/useAccountWatcher.js';
import { TopSpenders } from './topSpenders.js';
import { topSpenders } from '../../../billing/spend.js';
import { useUsage } from '../../contexts/UsageContext.js';
import { useAutoTopUp } from './useAutoTopUp.js';
import { CancelRenewalFlow } from '../../flows/CancelRenewalFlow.js';
import { guarded, useChangeGuard } from '../../hooks/useChangeGuard.js';
import { formatUsd } from '../../../api/money.js';

/**
 * The status as the documentation pages show it, summarised (subscriptions, pool pledges,
 * credit balance: src/billing/statusSummary.ts), or the key/value tree of any other shape.
 */
function statusTreeLines(data: unknown): TreeLine[] {
  const summary = summarizeBillingStatus(data);
  if (!summary) return treeLines(data);
  return statusSummaryLines(summary, { mintHint: () => 'n on the Keys pane (1) mints it' }).map((l) => ({
    depth: l.depth,
    key: visible(l.key, { maxWidth: 64 }),
    ...(l.value !== undefined && { value: visible(l.value) }),
  }));
}

/** See the module comment. */
export function BillingPane({ size, active }: PaneProps) {
  const services = useServices();
  const clock = useClock();
  const session = useSession();
  // Read live while shown; a hidden pane is not re-rendered by polls (each commit is a frame).
  const poll = useBalance(active);
  const refreshBalance = useBalanceRefresh();
  const deps = useTopUpDeps();
  const alertBelowUsd = services.profile.alertBelowUsd;
  const flash = useFlash();
  const usage = useUsage();
  // The balance history the account watcher keeps (seeded from the history database once it opens).
  const watcher = useAccountWatcher()?.watcher;
  const noTrend = useMemo(() => ({ history: new BalanceHistory(), version: 0 }), []);
  // The history is a mutable store: the slice is a new object when it changed (its version).
  const trendSlice = useWatcherSlice(watcher, (s) => s.trend, noTrend, active);
  const history = trendSlice.history;
  useBalanceAlerts(watcher, { bell: deps.bell, notify: services.notify });
  useWatcherEvents(watcher, (event) => {
    if (event.kind === 'history_failed') flash(`${event.problem}; the history is kept in memory`, 'warning');
    else if (event.kind === 'history_unavailable') flash(`balance history not kept: ${event.error instanceof Error ? event.error.message : String(event.error)}`, 'warning');
  });
  const flow = useTopUpFlow({ active });
  const autoTopUp = useAutoTopUp(flow.remember);
  // The key rejected (401): said once per rejection through the notification channels.
  const sayRejected = useEffectEvent(() => services.notify?.({ kind: 'key_rejected' }));
  useEffect(() => {
    if (session.rejected) sayRejected();
  }, [session.rejected]);
  const [showStatus, setShowStatus] = useState(false);
  const [showPools, setShowPools] = useState(false);
  // `c` (status view or pools view): the renewal cancel, in place of the pane; `pool`: that pool's pledges only.
  const [cancelling, setCancelling] = useState<{ pool?: string } | undefined>(undefined);
  const guard = useChangeGuard();
  const [selected, setSelected] = useState(0);
  const [statusOffset, setStatusOffset] = useState(0);
  useTick(active ? 5000 : undefined);
  const now = clock();

  const client = session.client;
  const status = useResource<unknown>((signal) => client!.billing.status({ signal }), { key: client, enabled: showStatus && client !== undefined });
  const statusLines = useMemo(() => (status.data === undefined && status.updatedAt === undefined ? [] : statusTreeLines(status.data)), [status.data, status.updatedAt]);

  const entries = flow.entries;
  const chosen = Math.min(selected, Math.max(0, entries.length - 1));
  const unfinished = entries.find((e) => isUnfinished(e.state));
  // An unfinished top-up is selected when it appears, so that enter takes it up (one key away).
  const unfinishedAt = unfinished ? entries.indexOf(unfinished) : -1;
  // Selected when an unfinished top-up appears (its id), not each time the list moves: where it is, an event.
  const selectUnfinished = useEffectEvent(() => {
    if (unfinishedAt >= 0) setSelected(unfinishedAt);
  });
  const unfinishedId = unfinished?.id;
  useEffect(() => {
    if (unfinishedId !== undefined) selectUnfinished();
  }, [unfinishedId]);
  const compact = size.mode === 'compact';
  const data = poll.data;
  const trend = useMemo(() => trendOf(trendSlice.history, data?.remaining, now), [trendSlice, data, now]);

  const [chartWindow, setChartWindow] = useState<ChartWindow>('24h');
  const paneKeys = active && !flow.open && !showPools && !cancelling;
  useKeymap(
    'billing',
    {
      'billing.topup': guarded(guard, 'top up', client ? flow.start : undefined),
      'billing.resume': guarded(guard, 'take up a top-up', entries.length > 0 || flow.view ? () => flow.resume(flow.view ? undefined : (entries[chosen]?.id ?? unfinished?.id)) : undefined),
      'billing.cancel': guarded(guard, 'cancel a renewal', showStatus && client ? () => setCancelling({}) : undefined),
      'billing.status': () => {
        setShowStatus((s) => !s);
        setStatusOffset(0);
      },
      'billing.refresh': () => {
        refreshBalance();
        if (showStatus) void status.reload();
      },
      'billing.down': () => (showStatus ? setStatusOffset((o) => Math.min(o + 1, Math.max(0, statusLines.length - 1))) : setSelected((s) => Math.min(s + 1, Math.max(0, entries.length - 1)))),
      'billing.up': () => (showStatus ? setStatusOffset((o) => Math.max(0, o - 1)) : setSelected((s) => Math.max(0, s - 1))),
      'billing.window': compact ? undefined : () => setChartWindow(nextWindow),
      'billing.pools': client?.pools ? () => setShowPools(true) : undefined,
    },
    { active: paneKeys },
  );

  if (!active) return null;
  if (cancelling) {
    return (
      <CancelRenewalFlow
        columns={size.columns}
        rows={size.rows}
        pool={cancelling.pool}
        onClose={(changed) => {
          setCancelling(undefined);
          if (changed && showStatus) void status.reload();
        }}
      />
    );
  }
  if (showPools) {
    return (
      <PoolsView
        columns={size.columns}
        rows={size.rows}
        onClose={() => setShowPools(false)}
        onCancelRenewal={(pool) => {
          if (guard.allows('cancel a renewal')) setCancelling({ pool });
        }}
      />
    );
  }
  if (flow.open) return <TopUpDialog flow={flow} remaining={data?.remaining} totalTopUp={data?.totalTopUp} columns={size.columns} rows={size.rows} />;

  const summaryRows = 3;
  // Full size: the burn rates and run-out (2 lines), then the chart; compact: sparkline and one line.
  const trendRows = 2;
  const bannerRows = (flow.view || unfinished ? 1 : 0) + (autoTopUp ? 1 : 0) + (flow.damaged !== undefined ? 1 : 0);
  const gap = compact ? 0 : 1;
  const spaceBelowTrend = Math.max(0, size.rows - summaryRows - trendRows - bannerRows - gap * 2);
  // The top spenders: a title and the lines it has (up to 5 keys, or the one line saying
  // why there are none), fewer in small panes; never rows reserved and left blank.
  const spenderLineCount = usage.period ? Math.max(1, Math.min(5, topSpenders(usage.rows, usage.period, 5).length)) : 0;
  const spenderRows = usage.available && !showStatus ? Math.min(1 + spenderLineCount, Math.max(2, Math.floor(spaceBelowTrend / 3))) : 0;
  const belowTrend = Math.max(0, spaceBelowTrend - (spenderRows > 0 ? spenderRows + gap : 0));
  // The chart takes what the recent top-ups (a title and up to three rows) and the status tree
  // leave; where a chart does not fit, BalanceChart draws a sparkline in 2 lines.
  const topUpRows = Math.min(4, entries.length + 1);
  const chartRows = compact || showStatus ? 0 : Math.min(16, Math.max(0, belowTrend - topUpRows - 1));
  const drawnChartRows = chartRows >= MIN_CHART_ROWS ? chartRows : chartRows >= 2 ? 2 : 0;
  const restRows = drawnChartRows > 0 ? belowTrend - drawnChartRows - 1 : belowTrend;
  const stale = poll.error !== undefined;

  return (
    <Box flexDirection="column" width={size.columns} height={size.rows} paddingX={1}>
      <BalanceSummary data={data} updatedAt={poll.updatedAt} stale={stale} alertBelowUsd={alertBelowUsd} now={now} columns={size.columns - 2} big={!compact} />
      {gap ? <Text> </Text> : null}
      <TrendLines history={history} trend={trend} columns={size.columns - 2} compact={compact} now={now} />
      {gap ? <Text> </Text> : null}
      {spenderRows > 0 ? (
        <>
          <TopSpenders
            source={{ rows: usage.rows, period: usage.period, at: usage.snapshot.at, budget: usage.snapshot.budget, behindBalance: usage.behindBalance, failed: usage.snapshot.error !== undefined }}
            rows={spenderRows}
            columns={size.columns - 2}
            now={now + (client?.serviceClockOffsetMs ?? 0)}
          />
          {gap ? <Text> </Text> : null}
        </>
      ) : null}
      {chartRows >= 2 ? (
        <>
          <BalanceChart history={history} window={chartWindow} now={now} columns={size.columns - 2} rows={chartRows} />
          <Text> </Text>
        </>
      ) : null}
      {flow.damaged !== undefined ? (
        <Text color={theme.danger} wrap="truncate">
          {`✕ ${visible(flow.damaged)}`}
        </Text>
      ) : null}
      {autoTopUp ? (
        <Text color={autoTopUp.tone === 'success' ? theme.ok : autoTopUp.tone === 'muted' ? theme.muted : theme[autoTopUp.tone]} wrap="truncate">
          {visible(autoTopUp.line)}
        </Text>
      ) : null}
      {flow.view || unfinished ? (
        <Text color={theme.warning} wrap="truncate">
          {flow.view && flow.entry
            ? `⚠ top-up in progress: ${formatUsd(flow.entry.amount)} · enter resumes it`
            : flow.view
              ? '⚠ a top-up walk-through is open · enter resumes it'
              : topUpPhase(unfinished!) === 'pay' || unfinished!.method !== 'usdc'
                ? `⚠ unfinished top-up of ${formatUsd(unfinished!.amount)} · ${chosen === unfinishedAt ? 'enter takes it up' : 'select it, enter takes it up'}`
                : `⚠ top-up of ${formatUsd(unfinished!.amount)} sent, not credited yet · ${chosen === unfinishedAt ? 'enter verifies it' : 'select it, enter verifies it'}`}
        </Text>
      ) : null}
      {showStatus ? (
        <Box flexDirection="column">
          <Text color={theme.muted} wrap="truncate">{`billing status (GET /api/billing/status)${status.loading ? ' · loading…' : ''} · s hides · r reloads · c cancels a renewal`}</Text>
          {status.error !== undefined ? <Text color={theme.danger} wrap="wrap">{`✕ ${describeFailure(status.error)}`}</Text> : null}
          <StatusTree lines={statusLines} offset={statusOffset} rows={Math.max(1, restRows - 1 - (status.error !== undefined ? 1 : 0))} columns={size.columns - 2} />
        </Box>
      ) : (
        <RecentTopUps entries={entries} selected={chosen} rows={restRows} columns={size.columns - 2} damaged={flow.damaged !== undefined} />
      )}
    </Box>
  );
}
