/**
 * `keydeck monitor`'s few lines: the live the credit balance record figures without the full screen, for
 * a tmux pane or a corner of the screen: remaining (with the low-balance word), total top-ups,
 * spent, credit keys, the sparkline, the burn rates and the run-out projection, and the
 * connection state. Shows the account watcher the command started (src/watcher: interval ≥ 2 s,
 * jitter, backoff, one request in flight) and rings the bell once per crossing of the threshold.
 * `q` or ctrl-c leaves (through the key-action table's `quit` row), `r` polls now.
 *
 * It fits its pane and never cuts a figure: from 80 columns and 8 rows the figures
 * share lines; below that it reflows to one figure a line, most important first (remaining,
 * runs out, spend, then the rest) and shows as many as the rows hold. A line that would not fit
 * whole is shortened by dropping parts (the title) or left out, never cut with "…".
 */
import { Box, Text } from 'ink';
import { useEffect, useEffectEvent, useMemo, useState } from 'react';
import { trendOf } from '../../../../billing/history.js';
import { balanceSparkline } from '../../../../billing/sparkline.js';
import type { MonitorSettings } from '../../../../billing/settings.js';
import type { AutoTopUpFeed, AutoTopUpView } from '../../../../operations/index.js';
import type { NotifyEvent } from '../../../../terminal/notify.js';
import { isUnauthorized } from '../../../errors.js';
import { connectionState } from '../../../components/Header.js';
import { hostLabel } from '../../../components/HeaderView.js';
import { useKeymap } from '../../../contexts/KeymapContext.js';
import { displayWidth, truncateTo, wrapWords } from '../../../format.js';
import { visible } from '../../../../terminal/sanitize.js';
import { useWatcherSlice } from '../../../hooks/useAccountWatcher.js';
import type { AccountWatcher } from '../../../../watcher/accountWatcher.js';
import { useTick } from '../../../hooks/useTick.js';
import { theme } from '../../../theme.js';
import { balanceAlert } from '../BalanceSummary.js';
import { burnRatesLine, formatRunOut, spentSoFar } from '../billingFormat.js';
import { useBalanceAlerts } from '../useBalanceAlerts.js';
import { useMonitorUsage } from './useMonitorUsage.js';
import { TopSpenders } from '../topSpenders.js';
import { formatUsd } from '../../../../api/money.js';

/** Props of {@link MonitorView}. */
export interface MonitorViewProps {
  readonly settings: MonitorSettings;
  /**
   * The account watcher the monitor shows (src/watcher/accountWatcher.ts, started by its owner):
   * its balance, history (seeded from the disk, every reading kept), usage and what the readings tell.
   */
  readonly watcher: AccountWatcher;
  /** Asks the monitor to end (q). */
  readonly onQuit: () => void;
  /** Width in cells. */
  readonly columns: number;
  /** Height of the terminal in rows (default: as many as the full layout needs). */
  readonly rows?: number;
  /** Clock (epoch ms). Default Date.now. */
  readonly now?: () => number;
  /** Rings the bell (default BEL to stdout). */
  readonly bell?: () => void;
  /** Notifications: the low-balance crossing, top-ups credited, the key rejected (once per rejection), runaway keys. */
  readonly notify?: (event: NotifyEvent) => void;
  /** `--auto-topup`: its line, fed by the command with what the watcher's runs did (src/operations/autoTopUpRunner.ts). */
  readonly autoTopUp?: Pick<AutoTopUpFeed, 'view' | 'subscribe'>;
}

/** See the module comment. */
/** Rows and columns from which the figures share lines. */
export const MONITOR_FULL_LAYOUT = { columns: 80, rows: 8 } as const;

/** The longest of `variants` (in order of preference) that fits `width` cells; undefined when none does. */
function fitting(variants: readonly string[], width: number): string | undefined {
  return variants.find((v) => displayWidth(v) <= width);
}

/** See the module comment. */
export function MonitorView({ settings, watcher, onQuit, columns, rows = MONITOR_FULL_LAYOUT.rows, now = Date.now, bell, notify, autoTopUp: feed }: MonitorViewProps) {
  const [auto, setAuto] = useState<AutoTopUpView | undefined>(feed?.view);
  useEffect(() => feed?.subscribe(() => setAuto(feed.view)), [feed]);
  const autoColor = auto === undefined ? undefined : auto.tone === 'success' ? theme.ok : auto.tone === 'muted' ? theme.muted : theme[auto.tone];
  const autoLine = auto === undefined ? undefined : visible(auto.line);
  const poll = useWatcherSlice(watcher, (s) => s.poll, watcher.snapshot.poll);
  // The history is a mutable store: the slice is a new object when it changed (its version).
  const trendSlice = useWatcherSlice(watcher, (s) => s.trend, watcher.snapshot.trend);
  const { history, problem: historyProblem } = trendSlice;
  const usage = useMonitorUsage(watcher, poll, notify);
  useBalanceAlerts(watcher, { bell, notify });
  const hasUsage = useWatcherSlice(watcher, (s) => s.usage.available, false);
  const rejected = poll.error !== undefined && isUnauthorized(poll.error);
  // Said once per rejection: the notifier as it is then, an event.
  const sayRejected = useEffectEvent(() => notify?.({ kind: 'key_rejected' }));
  useEffect(() => {
    if (rejected) sayRejected();
  }, [rejected]);
  useKeymap('global', { quit: onQuit, refresh: () => watcher.refresh(), ...(hasUsage && { 'usage.read': usage.readNow }) });
  useTick(5000);
  const t = now();
  const data = poll.data;
  const trend = useMemo(() => trendOf(trendSlice.history, data?.remaining, t), [trendSlice, data, t]);
  const conn = connectionState(poll, false, t);
  const width = Math.max(10, columns);
  const host = `${settings.profileName}@${hostLabel(settings.baseUrl)}`;
  const alertPart = settings.alertBelowUsd !== undefined ? ` · alert below ${formatUsd(settings.alertBelowUsd)}` : '';
  const title = fitting(
    [
      `keydeck monitor · ${host} · every ${settings.intervalSeconds} s${alertPart} · q quits`,
      `keydeck monitor · ${host} · every ${settings.intervalSeconds} s · q quits`,
      `keydeck monitor · ${host} · q quits`,
      'keydeck monitor · q quits',
      'q quits',
    ],
    width,
  );
  const connText = `${conn.text}${poll.error !== undefined && data ? ' (last known figures)' : ''}`;
  if (!data) {
    return (
      <Box flexDirection="column" width={width}>
        {title !== undefined && rows > 1 ? <Text color={theme.muted}>{title}</Text> : null}
        <Text color={conn.color}>{wrapWords(poll.error === undefined ? 'reading the balance…' : conn.text, width, Math.max(1, rows - 1)).join('\n')}</Text>
        {/* With a history on disk, the trend is known before the first read. */}
        {history.size > 1 && rows > 3 ? <Text wrap="truncate">{burnRatesLine(trend, width)}</Text> : null}
        {history.size > 1 && rows > 4 ? <Text wrap="truncate">{`runs out ${formatRunOut(trend.runOut)} (last known balance)`}</Text> : null}
      </Box>
    );
  }
  const alert = balanceAlert(data.remaining, settings.alertBelowUsd);
  const remaining = `remaining ${formatUsd(data.remaining)}`;
  const spent = `spent ${formatUsd(spentSoFar(data.totalTopUp, data.remaining))}`;
  const runsOut = `runs out ${formatRunOut(trend.runOut)}`;
  const burn = burnRatesLine(trend);
  const full = width >= MONITOR_FULL_LAYOUT.columns && rows >= MONITOR_FULL_LAYOUT.rows;
  // What the six lines of the full layout leave: the top spenders (a title and up to 5 keys).
  const spenderRows = Math.min(6, rows - 6 - (historyProblem ? 1 : 0) - (usage.alert ? 1 : 0) - (autoLine ? 1 : 0));
  if (full) {
    const spark = balanceSparkline(history.samples(), width - 6);
    return (
      <Box flexDirection="column" width={width}>
        {title !== undefined ? <Text color={theme.muted}>{title}</Text> : null}
        <Text wrap="wrap">
          <Text bold color={alert.color}>
            {remaining}
          </Text>
          {alert.word ? <Text color={alert.color}>{`  ${alert.word}`}</Text> : null}
          {`  · total top-ups ${formatUsd(data.totalTopUp)} · ${spent} · credit keys ${data.creditKeyCount}`}
        </Text>
        <Text wrap="truncate">
          <Text color={theme.muted}>trend </Text>
          <Text color={theme.accent}>{spark || '…'}</Text>
        </Text>
        <Text wrap="wrap">{burn}</Text>
        <Text wrap="wrap">{runsOut}</Text>
        {usage.alert ? (
          <Text color={theme.danger} wrap="wrap">
            {usage.alert}
          </Text>
        ) : null}
        {autoLine ? (
          <Text color={autoColor} wrap="truncate">
            {autoLine}
          </Text>
        ) : null}
        {historyProblem ? <Text color={theme.warning} wrap="wrap">{`⚠ ${historyProblem}; the history is kept in memory`}</Text> : null}
        {usage.source && spenderRows >= 2 ? <TopSpenders source={usage.source} rows={spenderRows} columns={width} now={t + usage.offsetMs} /> : null}
        <Text color={conn.color} wrap="wrap">
          {connText}
        </Text>
      </Box>
    );
  }
  // One figure a line, most important first; each line whole or not at all.
  const candidates: Array<{ text: string | undefined; color?: string; bold?: boolean }> = [
    { text: fitting([alert.word ? `${remaining}  ${alert.word}` : remaining, remaining], width), color: alert.color, bold: true },
    ...(alert.word && displayWidth(`${remaining}  ${alert.word}`) > width ? [{ text: fitting([alert.word], width), color: alert.color }] : []),
    { text: fitting([runsOut, `runs out ${formatRunOut(trend.runOut).replace(/ \(.*\)$/, '')}`], width) },
    ...(usage.alert ? [{ text: fitting([usage.alert, usage.alertShort ?? ''], width), color: theme.danger }] : []),
    ...(autoLine
      ? [{ text: fitting([autoLine, autoLine.replace(/^auto top-up: [^·]*· /, 'auto top-up: ')], width) ?? truncateTo(autoLine, width), ...(autoColor !== undefined && { color: autoColor }) }]
      : []),
    { text: fitting([spent], width) },
    ...(usage.topLine ? [{ text: fitting([usage.topLine, usage.topLine.replace(/ \(.*\)$/, '')], width) }] : []),
    { text: fitting([`total top-ups ${formatUsd(data.totalTopUp)}`, `top-ups ${formatUsd(data.totalTopUp)}`], width) },
    { text: fitting([`credit keys ${data.creditKeyCount}`], width) },
    { text: fitting([connText, conn.text, conn.text.split(' · ')[0] ?? conn.text], width), color: conn.color },
    { text: title, color: theme.muted },
  ];
  const shown = candidates.filter((c) => c.text !== undefined).slice(0, Math.max(1, rows - 1));
  return (
    <Box flexDirection="column" width={width}>
      {shown.map((c, i) => (
        <Text key={i} {...(c.color !== undefined && { color: c.color })} bold={c.bold ?? false}>
          {c.text}
        </Text>
      ))}
    </Box>
  );
}
