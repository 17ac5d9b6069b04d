/**
 * The credit balance record balance record on the Billing pane: `remaining` large (and as text), with the
 * low-balance word when below the threshold (never colour alone), `totalTopUp`, spent so far
 * (`totalTopUp − remaining`), the active credit keys, and how old the figure is.
 */
import { Box, Text } from 'ink';
import type { CreditBalance } from '../../../api/schemas.js';
import { updatedAgo } from '../../format.js';
import { symbols, theme, type ThemeColor } from '../../theme.js';
import { BigAmount, bigTextWidth } from './BigAmount.js';
import { spentSoFar } from './billingFormat.js';
import { isBelowThreshold } from '../../../billing/alert.js';
import { formatUsd } from '../../../api/money.js';

/** The balance's alert word and colour: EMPTY, LOW (below $X), or nothing. */
export function balanceAlert(remaining: number, alertBelowUsd: number | undefined): { word?: string; color: ThemeColor } {
  if (remaining <= 0) return { word: `${symbols.warning} EMPTY: top up (t) to use credit keys again`, color: theme.danger };
  if (alertBelowUsd !== undefined && isBelowThreshold(remaining, alertBelowUsd)) {
    return { word: `${symbols.warning} LOW: below ${formatUsd(alertBelowUsd)}`, color: theme.warning };
  }
  return { color: theme.ok };
}

/** Props of {@link BalanceSummary}. */
export interface BalanceSummaryProps {
  readonly data?: CreditBalance | undefined;
  readonly updatedAt?: number | undefined;
  /** A poll is failing (the figures are the last known ones). */
  readonly stale: boolean;
  readonly alertBelowUsd?: number | undefined;
  readonly now: number;
  readonly columns: number;
  /** Big digits (full layout) or one line (compact). */
  readonly big: boolean;
}

/** See the module comment. */
export function BalanceSummary({ data, updatedAt, stale, alertBelowUsd, now, columns, big }: BalanceSummaryProps) {
  if (!data) return <Text color={theme.muted}>{stale ? 'the balance could not be read yet (see the header)' : 'reading the balance…'}</Text>;
  const remaining = formatUsd(data.remaining);
  const alert = balanceAlert(data.remaining, alertBelowUsd);
  const age = updatedAt !== undefined ? `${stale ? 'last known, ' : ''}updated ${updatedAgo(updatedAt, now)}` : '';
  const figures = `total top-ups ${formatUsd(data.totalTopUp)} · spent ${formatUsd(spentSoFar(data.totalTopUp, data.remaining))}`;
  const keys = `credit keys ${data.creditKeyCount} active`;
  const showBig = big && columns >= bigTextWidth(remaining) + 40;
  return (
    <Box gap={3}>
      {showBig ? <BigAmount text={remaining} color={alert.color} /> : null}
      <Box flexDirection="column" flexShrink={1}>
        <Text wrap="truncate">
          {'remaining '}
          <Text bold color={alert.color}>
            {remaining}
          </Text>
          {alert.word ? <Text color={alert.color}>{`  ${alert.word}`}</Text> : null}
        </Text>
        <Text wrap="truncate">{figures}</Text>
        <Text wrap="truncate" color={stale ? theme.warning : theme.muted}>{`${keys} · ${age}`}</Text>
      </Box>
    </Box>
  );
}
