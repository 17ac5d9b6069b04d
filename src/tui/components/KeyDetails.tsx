/**
 * The details of the selected consumption key: every §2.1 field (never `apiKey`: the reader drops
 * it from lists), `lastUsedAt` where the service sends it, and its §8 limits. Full layout: a bordered box of 4 lines (6 with the border);
 * compact layout: the limits on one line.
 */
import { Box, Text } from 'ink';
import type { ConsumptionKey } from '../../api/schemas.js';
import { dateTime, expiresIn, relativeAgo, truncateTo } from '../format.js';
import { describeLimits, keyStatus } from '../limits.js';
import { statusCell } from '../panes/keyRows.js';
import { visible } from '../../terminal/sanitize.js';
import { theme } from '../theme.js';

/** Lines of the full details panel. */
export const KEY_DETAILS_ROWS = 6;

/**
 * ` · last used 2026-01-20 08:00 (3 d ago)` when the service sent `lastUsedAt` (the newer
 * documentation pages list it on consumption keys), ` · never used` for null, nothing when absent.
 */
function lastUsed(key: ConsumptionKey, now: number): string {
  if (key.lastUsedAt === undefined) return '';
  if (key.lastUsedAt === null) return ' · never used';
  return ` · last used ${dateTime(key.lastUsedAt)} (${relativeAgo(key.lastUsedAt, now)})`;
}

/** The four text lines of the details of `key` at `now`. */
export function keyDetailLines(key: ConsumptionKey, now: number): string[] {
  const status = statusCell(keyStatus(key, now));
  const sub = key.subscriptionStatus !== undefined ? ` (subscription: ${key.subscriptionStatus})` : '';
  const expiry =
    key.keyType === 'credit'
      ? 'no expiry: credit keys never expire while a balance remains'
      : keyStatus(key, now) === 'expired'
        ? `expired ${dateTime(key.subscriptionExpiresAt)}`
        : `expires ${dateTime(key.subscriptionExpiresAt)} (${expiresIn(key.subscriptionExpiresAt, now)})`;
  return [
    `${visible(key.name)}  ·  id ${visible(key.id)}`,
    `${visible(key.keyType)} key · plan ${visible(key.keyPlan)} · ${status}${sub}`,
    `created ${dateTime(key.createdAt)}${lastUsed(key, now)} · ${expiry}`,
    `limits: ${describeLimits(key)}`,
  ];
}

/** Props of {@link KeyDetails}. */
export interface KeyDetailsProps {
  readonly item: ConsumptionKey | undefined;
  readonly columns: number;
  readonly compact: boolean;
  readonly now: number;
}

/** See the module comment. */
export function KeyDetails({ item, columns, compact, now }: KeyDetailsProps) {
  if (compact) {
    return <Text color={theme.muted}>{item ? truncateTo(`limits: ${describeLimits(item)}`, columns) : ' '}</Text>;
  }
  const lines = item ? keyDetailLines(item, now) : ['no key selected', '', '', ''];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.muted} paddingX={1} width={columns} height={KEY_DETAILS_ROWS}>
      {lines.map((l, i) => (
        <Text key={i} bold={i === 0}>
          {truncateTo(l, columns - 4)}
        </Text>
      ))}
    </Box>
  );
}
