/**
 * The top spenders, for the Billing pane and `keydeck monitor`: the keys that spent
 * most over the share period (24 h when the service gives it), each with its spend, its share of
 * the account's spend and a bar, under a title that says how old the figures are, how many usage
 * reads are left and when the next is allowed (and when the figures are older than the last
 * balance change). A deleted key says so. Fits its width: a line that would not fit is shortened
 * (the bar first, then the name), never cut mid-figure.
 */
import { Box, Text } from 'ink';
import type { UsagePeriod } from '../../../api/usageSchemas.js';
import { topSpenders, type SpendRow } from '../../../billing/spend.js';
import type { BudgetState } from '../../../billing/usageBudget.js';
import { durationWords, periodWords, usageStatusLine } from '../../../billing/usageWords.js';
import { visible } from '../../../terminal/sanitize.js';
import { displayWidth, fitWidth } from '../../format.js';
import { spendCell } from '../keys/keyRows.js';
import { theme } from '../../theme.js';

/** What the lines are drawn from. */
export interface SpenderSource {
  readonly rows: readonly SpendRow[];
  readonly period?: UsagePeriod | undefined;
  readonly at?: number | undefined;
  readonly budget?: BudgetState | undefined;
  readonly behindBalance?: boolean;
  /** The last read failed (the figures are the kept ones). */
  readonly failed?: boolean;
}

/** The title: `top spenders · 24 h · usage 12 min ago · 9 of 12 reads left · u reads now`. */
export function spendersTitle(source: SpenderSource, now: number, demand = 'u reads now'): string {
  const status = usageStatusLine(source.at, source.budget && { ...source.budget, now }, demand);
  return `top spenders${source.period ? ` · ${periodWords(source.period)}` : ''} · ${status}${source.behindBalance ? ' · older than the last balance change' : ''}${source.failed ? ' · the last read failed' : ''}`;
}

/**
 * When spend read before the balance last moved will be read again: `next read in 42
 * min · u reads now`, from the budget at `now` (service ms).
 */
export function nextSpendRead(budget: BudgetState | undefined, now: number): string {
  if (!budget) return 'u reads now';
  const auto = budget.nextAutoAt <= now ? 'at the next balance read' : `in ${durationWords(budget.nextAutoAt - now)}`;
  return budget.left > 0 && budget.blockedUntil === undefined ? `next read ${auto} · u reads now` : `next read ${auto}`;
}

/**
 * Up to `count` lines of the top spenders at `width` cells (none without figures). "No spend"
 * read before the balance last moved is not said as a fact: the spend since is not read yet, and
 * the line says when it will be (`now`: service ms).
 */
export function spenderLines(source: SpenderSource, count: number, width: number, now = Date.now()): string[] {
  if (!source.period || count <= 0) return [];
  const top = topSpenders(source.rows, source.period, count);
  if (top.length === 0 && source.behindBalance) {
    // Whole parts only: the figure of when comes before the key that reads now.
    const parts = ['  spend since the balance moved: not read yet', ...nextSpendRead(source.budget && { ...source.budget, now }, now).split(' · ')];
    while (parts.length > 1 && displayWidth(parts.join(' · ')) > width) parts.pop();
    return [fitWidth(parts.join(' · '), width)];
  }
  if (top.length === 0) return [`  no spend in the last ${periodWords(source.period)}`];
  return top.map((t) => {
    const name = visible(t.row.name) + (t.row.status === 'deleted' ? ' (deleted)' : '');
    const figures = `${spendCell(t.spend).padStart(8)} ${`${Math.round(t.share * 100)}%`.padStart(4)}`;
    const barWidth = Math.max(0, Math.min(12, width - 2 - 14 - 2 - figures.length));
    const filled = Math.round(t.share * barWidth);
    const bar = barWidth >= 4 ? ` ${'█'.repeat(filled)}${'░'.repeat(barWidth - filled)}` : '';
    const nameWidth = Math.max(4, width - 2 - 1 - figures.length - bar.length);
    return fitWidth(`  ${fitWidth(name, nameWidth)} ${figures}${bar}`, width);
  });
}

/** The title (shortened to fit) and the lines: `rows` in all (title included). */
export function TopSpenders({ source, rows, columns, now }: { readonly source: SpenderSource; readonly rows: number; readonly columns: number; readonly now: number }) {
  if (rows <= 0) return null;
  const full = spendersTitle(source, now);
  const title = displayWidth(full) <= columns ? full : fitWidth(spendersTitle({ ...source, behindBalance: false, failed: false }, now, 'u'), columns);
  const lines = source.rows.length > 0 ? spenderLines(source, rows - 1, columns, now) : [];
  return (
    <Box flexDirection="column">
      <Text color={source.behindBalance || source.failed ? theme.warning : theme.muted} wrap="truncate">
        {title}
      </Text>
      {lines.map((l, i) => (
        <Text key={i}>{l}</Text>
      ))}
    </Box>
  );
}
