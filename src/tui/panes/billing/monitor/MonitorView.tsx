/**
 * `keydeck monitor`'s few lines (issue 6): the live §2.3 figures without the full screen, for
 * a tmux pane or a corner of the screen: remaining (with the low-balance word), total top-ups,
 * spent, credit keys, the sparkline, the burn rates and the run-out projection, and the
 * connection state. Polls through the shell's {@link usePolling} (interval ≥ 2 s, jitter,
 * backoff, one request in flight) and rings the bell once per crossing of the threshold.
 * `q` or ctrl-c leaves (through the key-action table's `quit` row), `r` polls now.
 */
import { Box, Text } from 'ink';
import { useMemo, useState } from 'react';
import type { CreditBalance } from '../../../../api/schemas.js';
import { trendOf } from '../../../../billing/history.js';
import { balanceSparkline } from '../../../../billing/sparkline.js';
import type { MonitorSettings } from '../../../../billing/settings.js';
import type { HistorySeries } from '../../../../billing/historyStore.js';
import { connectionState, hostLabel } from '../../../components/Header.js';
import { useKeymap } from '../../../contexts/KeymapContext.js';
import { formatUsd } from '../../../format.js';
import { usePolling } from '../../../hooks/usePolling.js';
import { useTick } from '../../../hooks/useTick.js';
import { theme } from '../../../theme.js';
import { balanceAlert } from '../BalanceSummary.js';
import { burnRatesLine, formatRunOut, spentSoFar } from '../billingFormat.js';
import { useBalanceMonitor } from '../useBalanceMonitor.js';

/** Props of {@link MonitorView}. */
export interface MonitorViewProps {
  readonly settings: MonitorSettings;
  /** Reads the balance (KeydeckClient.getCredits). */
  readonly getCredits: (options: { signal: AbortSignal }) => Promise<CreditBalance>;
  /** Asks the monitor to end (q). */
  readonly onQuit: () => void;
  /** Width in cells. */
  readonly columns: number;
  /** Clock (epoch ms). Default Date.now. */
  readonly now?: () => number;
  /** Rings the bell (default BEL to stdout). */
  readonly bell?: () => void;
  /** The balance history on disk: seeds the trend at start and keeps every reading (absent: memory only). */
  readonly series?: HistorySeries;
}

/** See the module comment. */
export function MonitorView({ settings, getCredits, onQuit, columns, now = Date.now, bell, series }: MonitorViewProps) {
  const poll = usePolling<CreditBalance>((signal) => getCredits({ signal }), { intervalMs: settings.intervalSeconds * 1000 });
  const [historyProblem, setHistoryProblem] = useState<string | undefined>(undefined);
  const monitor = useBalanceMonitor(poll, { alertBelowUsd: settings.alertBelowUsd, ...(bell && { bell }), series, onHistoryError: setHistoryProblem, now });
  useKeymap('global', { quit: onQuit, refresh: poll.refresh });
  useTick(5000);
  const t = now();
  const data = poll.data;
  const trend = useMemo(() => trendOf(monitor.history, data?.remaining, t), [monitor.history, monitor.history.version, data, t]); // eslint-disable-line react-hooks/exhaustive-deps
  const conn = connectionState(poll, false, t);
  const width = Math.max(20, columns);
  const title = `keydeck monitor · ${settings.profileName}@${hostLabel(settings.baseUrl)} · every ${settings.intervalSeconds} s${settings.alertBelowUsd !== undefined ? ` · alert below ${formatUsd(settings.alertBelowUsd)}` : ''} · q quits`;
  if (!data) {
    return (
      <Box flexDirection="column" width={width}>
        <Text color={theme.muted} wrap="truncate">{title}</Text>
        <Text color={conn.color} wrap="truncate">{poll.error === undefined ? 'reading the balance…' : conn.text}</Text>
      </Box>
    );
  }
  const alert = balanceAlert(data.remaining, settings.alertBelowUsd);
  const spark = balanceSparkline(monitor.history.samples(), width - 6);
  return (
    <Box flexDirection="column" width={width}>
      <Text color={theme.muted} wrap="truncate">{title}</Text>
      <Text wrap="truncate">
        <Text bold color={alert.color}>{`remaining ${formatUsd(data.remaining)}`}</Text>
        {alert.word ? <Text color={alert.color}>{`  ${alert.word}`}</Text> : null}
        {`  · total top-ups ${formatUsd(data.totalTopUp)} · spent ${formatUsd(spentSoFar(data.totalTopUp, data.remaining))} · credit keys ${data.creditKeyCount}`}
      </Text>
      <Text wrap="truncate">
        <Text color={theme.muted}>trend </Text>
        <Text color={theme.accent}>{spark || '…'}</Text>
      </Text>
      <Text wrap="truncate">{burnRatesLine(trend)}</Text>
      <Text wrap="truncate">{`runs out ${formatRunOut(trend.runOut)}`}</Text>
      {historyProblem ? <Text color={theme.warning} wrap="truncate">{`⚠ ${historyProblem}; the history is kept in memory`}</Text> : null}
      <Text color={conn.color} wrap="truncate">
        {conn.text}
        {poll.error !== undefined ? ' (last known figures)' : ''}
      </Text>
    </Box>
  );
}
