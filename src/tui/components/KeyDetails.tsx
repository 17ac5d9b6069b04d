/**
 * The details of the selected consumption key: every §2.1 field (never `apiKey`: the reader drops
 * it from lists), `lastUsedAt` where the service sends it, its §8 limits, and what its money
 * means: a subscription's paid time left and how a subscription is renewed (§3: it is not
 * extended; a new payment creates a new key), a credit key's shared balance. Full layout: a bordered box of 5 lines (7 with the border); compact
 * layout: the limits on one line.
 */
import { Box, Text } from 'ink';
import type { ConsumptionKey } from '../../api/schemas.js';
import { paidTimeLeftMs, timeLeftWords } from '../../api/keyStatus.js';
import { dateTime, expiresIn, relativeAgo, shortDate, truncateTo } from '../format.js';
import { describeLimits, keyStatus } from '../limits.js';
import { statusCell } from '../panes/keyRows.js';
import { visible } from '../../terminal/sanitize.js';
import { theme } from '../theme.js';

/** Lines of the full details panel. */
export const KEY_DETAILS_ROWS = 7;

/**
 * ` · last used 3 d ago` when the service sent `lastUsedAt` (the newer documentation pages list
 * it on consumption keys; `keys list` shows the timestamp), ` · never used` for null, nothing
 * when absent.
 */
function lastUsed(key: ConsumptionKey, now: number): string {
  if (key.lastUsedAt === undefined) return '';
  if (key.lastUsedAt === null) return ' · never used';
  return ` · last used ${relativeAgo(key.lastUsedAt, now)}`;
}

/** The sentence on how a subscription is renewed (§3), in the details of every subscription key. */
export const RENEWAL_SENTENCE = 'renewal: not extended; a new subscription payment creates a new key';

/** The five text lines of the details of `key` at `now` (epoch ms, the service's clock). */
export function keyDetailLines(key: ConsumptionKey, now: number): string[] {
  const status = statusCell(keyStatus(key, now));
  const sub = key.subscriptionStatus !== undefined && !status.endsWith(key.subscriptionStatus) ? ` (subscription: ${key.subscriptionStatus})` : '';
  const left = paidTimeLeftMs(key, now);
  const expiry =
    key.keyType === 'credit'
      ? 'no expiry: credit keys never expire while a balance remains'
      : keyStatus(key, now) === 'expired'
        ? `expired ${dateTime(key.subscriptionExpiresAt)}`
        : left === undefined
          ? `expires ${dateTime(key.subscriptionExpiresAt)} (${expiresIn(key.subscriptionExpiresAt, now)})`
          : `ends ${dateTime(key.subscriptionExpiresAt)} · ${timeLeftWords(left)} of paid time left`;
  return [
    `${visible(key.name)}  ·  id ${visible(key.id)}`,
    `${visible(key.keyType)} key · plan ${visible(key.keyPlan)} · ${status}${sub} · created ${shortDate(key.createdAt)}${lastUsed(key, now)}`,
    expiry,
    key.keyType === 'credit' ? 'spends the shared credit balance (top up on the Billing pane, 3)' : RENEWAL_SENTENCE,
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
  const lines = item ? keyDetailLines(item, now) : ['no key selected', '', '', '', ''];
  return (
    // Plain frame and text: every style run on a line costs bytes each time a move redraws it.
    <Box flexDirection="column" borderStyle="round" paddingX={1} width={columns} height={KEY_DETAILS_ROWS}>
      {lines.map((l, i) => (
        <Text key={i}>{truncateTo(l, columns - 4)}</Text>
      ))}
    </Box>
  );
}
