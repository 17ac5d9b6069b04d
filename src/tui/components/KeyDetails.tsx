/**
 * The details of the selected consumption key: every the consumption key's fields field (never `apiKey`: the reader drops
 * it from lists), `lastUsedAt` where the service sends it, its limits (src/billing/keyLimits.ts), and what its money
 * means: a subscription's paid time left and how it goes on (src/api/keyStatus.ts `renewalWords`:
 * the spec's key is not extended; a pool key's time is its pledge's), or for a pool key whose blocks are known where it
 * stands in its reserved hours, a credit key's shared balance. Full layout: a bordered box of 5 lines (7 with the border); compact
 * layout: the limits on one line.
 */
import { Box, Text } from 'ink';
import type { ReservedHours } from '../../api/poolBlocks.js';
import type { ConsumptionKey } from '../../api/schemas.js';
import { formatUsd } from '../../api/money.js';
import type { Plan, UsagePeriod } from '../../api/usageSchemas.js';
import type { SpendRow } from '../../billing/spend.js';
import { periodWords } from '../../billing/usageWords.js';
import { keyStatus, paidTimeLeftMs, renewalWords, timeLeftWords } from '../../api/keyStatus.js';
import { countdownChangeAt, dateTime, displayWidth, earliest, expiresIn, expiresInChangeAt, HOUR, MINUTE, relativeAgo, relativeAgoChangeAt, shortDate, truncateTo } from '../format.js';
import { describeLimits, planOf, withoutSources } from '../../billing/keyLimits.js';
import { keyRowChangeAt, reservedHoursChangeAt, statusCell, timeLeftChangeAt } from '../panes/keys/keyRows.js';
import { visible } from '../../terminal/sanitize.js';
import { theme } from '../theme.js';

/** Lines of the full details panel (7 lines of text and the border). */
export const KEY_DETAILS_ROWS = 9;

/** What the usage views add to a key's details. */
export interface KeySpendDetails {
  /** The key's figures in the last usage answer (absent: not in it, or none read yet). */
  readonly spend?: SpendRow;
  /** The periods the answer gives. */
  readonly periods: readonly UsagePeriod[];
  /** The key's share of the account's spend over `period` (0–1). */
  readonly share?: number;
  readonly period?: UsagePeriod;
  /** The key's spend read by read, as bars (absent: fewer than two reads kept). */
  readonly spark?: string;
  /** The usage line: age, reads left, next read (and "older than the last balance change"). */
  readonly status: string;
}

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

/** The spend line of the details: each period's figure, the share, the bars of its reads. */
export function spendLine(usage: KeySpendDetails | undefined): string {
  if (!usage) return 'spend: usage not read';
  const row = usage.spend;
  if (row?.refused !== undefined) return `spend: ${row.refused}`;
  if (!row || usage.periods.length === 0) return 'spend: not in the last usage answer';
  const figures = usage.periods.map((p) => `${periodWords(p)} ${formatUsd(row.periods[p]?.spend ?? 0)}`).join(' · ');
  const share = usage.share !== undefined && usage.period ? ` · ${Math.round(usage.share * 100)}% of ${periodWords(usage.period)}` : '';
  return `spend: ${figures}${share}${usage.spark ? `  ${usage.spark}` : ''}`;
}

/**
 * The seven text lines of the details of `key` at `now` (epoch ms, the service's clock): name and
 * id; type, plan (and its price from `GET /api/plans`), status, dates; expiry; what its money is
 * (the shared balance and its budget, or how a subscription is renewed); its limits (the service's
 * plans when they answered, the service's limits otherwise); its spend; how old the usage figures are. A key a
 * guardrail governs (`budgetLine`, docs/guardrails.md) has its budget where its money is said.
 */
export function keyDetailLines(key: ConsumptionKey, now: number, usage?: KeySpendDetails, plans?: readonly Plan[], hours?: KeyHours, width = Number.POSITIVE_INFINITY, budgetLine?: string): string[] {
  // A line with a shorter form says it whole where the long one would be cut.
  const fits = (long: string, short: string) => (displayWidth(long) <= width ? long : short);
  const status = statusCell(keyStatus(key, now), hours?.at);
  const sub = key.subscriptionStatus !== undefined && key.subscriptionStatus !== keyStatus(key, now) ? ` (subscription: ${key.subscriptionStatus})` : '';
  const left = paidTimeLeftMs(key, now);
  const expiry =
    key.keyType === 'credit'
      ? 'no expiry: credit keys never expire while a balance remains'
      : keyStatus(key, now) === 'expired'
        ? `expired ${dateTime(key.subscriptionExpiresAt)}`
        : left === undefined
          ? `expires ${dateTime(key.subscriptionExpiresAt)} (${expiresIn(key.subscriptionExpiresAt, now)})`
          : `ends ${dateTime(key.subscriptionExpiresAt)} · ${timeLeftWords(left)} of paid time left`;
  const plan = planOf(key, plans);
  const renewal = `renewal: ${renewalWords(key, plan?.priceUsd !== undefined ? formatUsd(plan.priceUsd) : undefined)}`;
  const budget = usage?.spend?.usage.maxBudget;
  return [
    `${visible(key.name)}  ·  id ${visible(key.id)}`,
    // Whole at every width (only names are cut): the plan, then the date, left out before the last use is.
    [
      `${visible(key.keyType)} key · plan ${visible(key.keyPlan)} · ${status}${sub} · created ${shortDate(key.createdAt)}${lastUsed(key, now)}`,
      `${visible(key.keyType)} key · ${status}${sub} · created ${shortDate(key.createdAt)}${lastUsed(key, now)}`,
    ].find((line) => displayWidth(line) <= width) ?? `${visible(key.keyType)} key · ${status}${sub}${lastUsed(key, now)}`,
    expiry,
    budgetLine ??
      (key.keyType === 'credit'
        ? typeof budget === 'number'
          ? fits(`budget: the shared balance, max_budget ${formatUsd(budget)} (all top-ups) · top up: pane 3`, `budget: the shared balance, max_budget ${formatUsd(budget)} · top up: 3`)
          : 'spends the shared credit balance (top up on the Billing pane, 3)'
        : hours
          ? `reserved hours: ${visible(hours.text)}${hours.at.inside ? '' : ' (429 until then)'}`
          : renewal),
    fits(`limits: ${describeLimits(key, plans)}`, `limits: ${withoutSources(describeLimits(key, plans))}`),
    spendLine(usage),
    usage?.status ?? '',
  ];
}

/** A reserved block's length (ms): its name changes at each multiple of it (UTC). */
const BLOCK_MS = 8 * HOUR;

/**
 * When {@link keyDetailLines} of `key` may next say something else, at or after `now` (epoch ms,
 * the service's clock), but for the usage figures and a guardrail (their own: ../panes/keys/): its
 * status, its expiry or paid time left, its last use's age, where it stands in its reserved blocks
 * (`hours`: {@link KeyHours}' position, when they are known).
 */
export function keyDetailsChangeAt(key: ConsumptionKey, now: number, hours?: ReservedHours): number | undefined {
  const block = hours && reservedHoursChangeAt(hours);
  return earliest(
    keyRowChangeAt(key, now, hours),
    key.keyType === 'subscription' ? timeLeftChangeAt(key, now) : key.keyType === 'credit' ? undefined : expiresInChangeAt(key.subscriptionExpiresAt, now),
    typeof key.lastUsedAt === 'string' ? relativeAgoChangeAt(key.lastUsedAt, now) : undefined,
    // `in block europe, 3 h left`: hours, then minutes to the block's start or end; the block's name.
    block === undefined ? undefined : countdownChangeAt(block, now, (left) => (left >= HOUR ? HOUR : MINUTE)),
    hours?.inside ? (Math.floor(now / BLOCK_MS) + 1) * BLOCK_MS : undefined,
  );
}

/** Where a pool key stands in its reserved blocks: the phrase and the position. */
export interface KeyHours {
  /** `in block europe, 3 h left` / `outside its blocks: next asia in 5 h`. */
  readonly text: string;
  readonly at: ReservedHours;
}

/** Props of {@link KeyDetails}. */
export interface KeyDetailsProps {
  readonly item: ConsumptionKey | undefined;
  readonly columns: number;
  readonly compact: boolean;
  readonly now: number;
  /** The key's spend and the usage figures' age. */
  readonly usage?: KeySpendDetails | undefined;
  /** The service's plans (`GET /api/plans`), when they answered. */
  readonly plans?: readonly Plan[] | undefined;
  /** Where a pool key stands in its reserved blocks, when the service says its blocks. */
  readonly hours?: KeyHours | undefined;
  /** Its guardrails in one line (../panes/keys/keyBudget.ts), in place of what its money is. */
  readonly budget?: string | undefined;
}

/** See the module comment. */
export function KeyDetails({ item, columns, compact, now, usage, plans, hours, budget }: KeyDetailsProps) {
  if (compact) {
    const long = item ? `limits: ${describeLimits(item, plans)}` : ' ';
    return <Text color={theme.muted}>{truncateTo(displayWidth(long) <= columns ? long : withoutSources(long), columns)}</Text>;
  }
  const lines = item ? keyDetailLines(item, now, usage, plans, hours, columns - 4, budget) : ['no key selected', '', '', '', '', '', ''];
  return (
    // Plain frame and text: every style run on a line costs bytes each time a move redraws it.
    <Box flexDirection="column" borderStyle="round" paddingX={1} width={columns} height={KEY_DETAILS_ROWS}>
      {lines.map((l, i) => (
        <Text key={i}>{truncateTo(l, columns - 4)}</Text>
      ))}
    </Box>
  );
}
