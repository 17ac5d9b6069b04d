/**
 * Billing pane placeholder: shows the shared §2.3 balance record (the same polled state as the
 * header). The Billing pane of issue 6 replaces this file (balance monitor, history, top-ups),
 * keeping the {@link PaneProps} contract and binding its keys in the `billing` scope.
 */
import { Box, Text } from 'ink';
import { useBalance } from '../contexts/BalanceContext.js';
import { useClock } from '../contexts/ServicesContext.js';
import { formatUsd, updatedAgo } from '../format.js';
import { useTick } from '../hooks/useTick.js';
import { theme } from '../theme.js';
import type { PaneProps } from './registry.js';

/** See the module comment. */
export function BillingPane({ size, active }: PaneProps) {
  useTick(active ? 5000 : undefined);
  const now = useClock()();
  const { data, updatedAt } = useBalance();
  if (!data) {
    return (
      <Box width={size.columns} height={size.rows}>
        <Text color={theme.muted}>reading the balance…</Text>
      </Box>
    );
  }
  const rows: Array<[string, string]> = [
    ['remaining', formatUsd(data.remaining)],
    ['total topped up', formatUsd(data.totalTopUp)],
    ['spent so far', formatUsd(data.totalTopUp - data.remaining)],
    ['active credit keys', String(data.creditKeyCount)],
    ['has a credit key', data.hasCreditKey ? 'yes' : 'no'],
    ['user id', data.userId ?? '— (until the first top-up)'],
    ['updated', updatedAt !== undefined ? updatedAgo(updatedAt, now) : '—'],
  ];
  return (
    <Box flexDirection="column" width={size.columns} height={size.rows} paddingX={1}>
      <Text bold>Credit balance</Text>
      {rows.map(([k, v]) => (
        <Text key={k}>
          <Text color={theme.muted}>{k.padEnd(20)}</Text>
          {v}
        </Text>
      ))}
    </Box>
  );
}
