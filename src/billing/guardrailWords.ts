/**
 * A key's guardrails in words and bars, the same in every face (`plan`, `keys show`, the Keys
 * pane): its budget's figures and period, what happens at the limit, the soft cap's worst case
 * beside the limit, its deadlines. Figures from ./guardrails.ts; amounts to the cent, cut. Names
 * are the caller's to sanitise.
 */
import { formatUsd } from '../api/money.js';
import type { BudgetAction, BudgetPeriod, BudgetRule } from '../config/guardrailRules.js';
import type { BudgetView, DeadlineView } from './guardrails.js';

const usd = (n: number) => formatUsd(n);

/** `today`, `this week`, `this month`. */
export function periodWords(period: BudgetPeriod): string {
  return period === 'day' ? 'today' : period === 'week' ? 'this week' : 'this month';
}

/** `2026-06-02 00:00 UTC`. */
export function utcTime(t: number): string {
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `1 h 12 min`, `40 min`, `3 d 2 h`. */
export function spanWords(ms: number): string {
  const min = Math.max(0, Math.round(ms / 60_000));
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h${min % 60 > 0 ? ` ${min % 60} min` : ''}`;
  return `${Math.floor(h / 24)} d${h % 24 > 0 ? ` ${h % 24} h` : ''}`;
}

/** What a budget does at its limit: `warns`, `disables the key until the period ends`, `rotates the key`. */
export function atLimitWords(rule: Pick<BudgetRule, 'action' | 'reenable'>): string {
  const words: Record<BudgetAction, string> = {
    warn: 'warns',
    disable: rule.reenable === false ? 'disables the key (until enabled by hand)' : 'disables the key until the period ends',
    rotate: 'rotates the key',
  };
  return words[rule.action];
}

/** A bar of `width` cells for `ratio` (cut at 1): `█████░░░░░`. */
export function budgetBar(ratio: number | undefined, width: number): string {
  if (ratio === undefined || !Number.isFinite(ratio)) return '·'.repeat(width);
  const full = Math.min(width, Math.floor(Math.max(0, ratio) * width));
  return `${'█'.repeat(full)}${'░'.repeat(width - full)}`;
}

/** `64 %`, `>999 %`. */
export function percentWords(ratio: number | undefined): string {
  if (ratio === undefined) return '—';
  const p = Math.floor(ratio * 100);
  return p > 999 ? '>999 %' : `${p} %`;
}

/**
 * The soft cap's worst case beside the limit: `up to $0.80 more before the next usage read (in
 * 1 h 12 min)`; undefined when the rate or the next read is unknown.
 */
export function overshootWords(view: BudgetView, now: number): string | undefined {
  if (view.overshootUsd === undefined || view.nextReadAt === undefined) return undefined;
  return `up to ${usd(view.overshootUsd)} more before the next usage read (${view.nextReadAt <= now ? 'due now' : `in ${spanWords(view.nextReadAt - now)}`})`;
}

/**
 * A budget in one line: `$3.20 of $5.00 today (64 %); disables the key until the period ends;
 * resets 2026-06-02 00:00 UTC; up to $0.80 more before the next usage read (in 1 h 12 min)`.
 */
export function budgetWords(view: BudgetView, now: number): string {
  const spent =
    view.spentUsd === undefined
      ? `no figures yet, limit ${usd(view.rule.limitUsd)} ${periodWords(view.rule.period)}`
      : `${usd(view.spentUsd)} of ${usd(view.rule.limitUsd)} ${periodWords(view.rule.period)} (${percentWords(view.ratio)})`;
  const over = overshootWords(view, now);
  return [spent, `at the limit it ${atLimitWords(view.rule)}`, `resets ${utcTime(view.end)}`, ...(over ? [over] : [])].join('; ');
}

/** A deadline in words: `passes its maxAge on 2026-08-30 00:00 UTC (in 5 d): rotated then`. */
export function deadlineWords(d: DeadlineView, now: number): string {
  const what = d.kind === 'age' ? 'maxAge' : 'expiresIn';
  const then = d.action === 'disable' ? 'disabled' : d.action === 'rotate' ? 'rotated' : 'flagged';
  if (d.state === 'due') return `past its ${what} since ${utcTime(d.dueAt)}: ${then}`;
  return `${what} passes ${utcTime(d.dueAt)} (in ${spanWords(d.dueAt - now)}): ${then} then`;
}
