/**
 * What the Keys pane shows of the guardrails (docs/guardrails.md): each governed key's budget as
 * a bar in its row (`███░░ 64%`), and in the selected key's details its figures, its period, what
 * happens at the limit, the soft cap's worst case before the next usage read, its deadlines, and
 * whether a guardrail has it disabled (until when). The rules are those `keydeck apply` stored
 * (the profile's, read when the TUI started); the figures are the usage context's; which keys a
 * guardrail disabled is the guardrail record's, read again with the key list. The TUI shows the
 * guardrails and acts on none (`apply --once`, `exporter --enforce` do).
 */
import { useEffect, useMemo, useRef } from 'react';
import type { ConsumptionKey } from '../../../api/schemas.js';
import { formatUsd } from '../../../api/money.js';
import { budgetBar, budgetWords, deadlineWords, percentWords, periodWords, spanWords, utcTime } from '../../../billing/guardrailWords.js';
import { budgetOf, budgetView, deadlines, namedRule, type BudgetView, type DeadlineView } from '../../../billing/guardrails.js';
import { guardrailEntries, guardrailMark, type GuardrailEntry, type GuardrailMark } from '../../../operations/index.js';
import { LIST_RELOAD_EVERY_POLLS, useAccountData } from '../../contexts/AccountDataContext.js';
import { usePollSucceeded } from '../../contexts/BalanceContext.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useSession } from '../../contexts/SessionContext.js';
import { useUsage } from '../../contexts/UsageContext.js';
import { useChangedState } from '../../hooks/useChangedState.js';
import { displayWidth } from '../../format.js';

/** The Keys pane's view of the guardrails. */
export interface KeyBudgets {
  /** Some rule governs some key: the budget column is shown. */
  readonly any: boolean;
  readonly budgetOf: (key: ConsumptionKey, now: number) => BudgetView | undefined;
  readonly deadlinesOf: (key: ConsumptionKey, now: number) => readonly DeadlineView[];
  /** A guardrail has the key disabled: why, until when. */
  readonly markOf: (key: ConsumptionKey) => GuardrailMark | undefined;
}

/** The budget cell of a row: `███░░ 64%`, `off:budget` for a key a guardrail disabled (`off:expiry`, `off:age`), '' without a budget. */
export function budgetCell(view: BudgetView | undefined, mark: GuardrailMark | undefined): string {
  if (mark) return `off:${mark.reason === 'budget' ? 'budget' : mark.reason}`;
  if (!view) return '';
  return `${budgetBar(view.ratio, 5)} ${percentWords(view.ratio).replace(' ', '')}`;
}

/** The short form of a budget: `$3.20 of $5.00 today (64 %) · disables at the limit until 00:00 UTC · +$0.80 by the next read`. */
function shortBudget(view: BudgetView, now: number): string {
  const spent =
    view.spentUsd === undefined
      ? `limit ${formatUsd(view.rule.limitUsd)} ${periodWords(view.rule.period)}, no figures yet`
      : `${formatUsd(view.spentUsd)} of ${formatUsd(view.rule.limitUsd)} ${periodWords(view.rule.period)} (${percentWords(view.ratio)})`;
  const at =
    view.rule.action === 'disable'
      ? `disables at the limit${view.rule.reenable === false ? '' : ` until ${utcTime(view.end).slice(11)}`}`
      : view.rule.action === 'rotate'
        ? 'rotates at the limit'
        : 'warns at the limit';
  const over =
    view.overshootUsd !== undefined && view.nextReadAt !== undefined
      ? ` · +${formatUsd(view.overshootUsd)} by the next read${view.nextReadAt > now ? ` (${spanWords(view.nextReadAt - now)})` : ''}`
      : '';
  return `${spent} · ${at}${over}`;
}

/** The tightest form: `$4.50/$5.00 today · off at limit till 00:00 · +$0.27 by next read`. */
function tightBudget(view: BudgetView): string {
  const spent = `${view.spentUsd === undefined ? '—' : formatUsd(view.spentUsd)}/${formatUsd(view.rule.limitUsd)} ${periodWords(view.rule.period)}`;
  const back = view.rule.period === 'day' ? utcTime(view.end).slice(11, 16) : utcTime(view.end).slice(5, 10);
  const at = view.rule.action === 'disable' ? `off at limit${view.rule.reenable === false ? '' : ` till ${back}`}` : `${view.rule.action === 'warn' ? 'warns' : 'rotates'} at limit`;
  return `${spent} · ${at}${view.overshootUsd !== undefined ? ` · +${formatUsd(view.overshootUsd)} by next read` : ''}`;
}

/**
 * The details' guardrail line of a key at `now`, or undefined when no rule governs it: a key a
 * guardrail disabled says so first (with when it comes back), then its budget (its figures, its
 * period, what happens at the limit, the soft cap's worst case before the next read), then a
 * deadline near or passed. The longest form that fits `width` cells.
 */
export function budgetLine(view: BudgetView | undefined, due: readonly DeadlineView[], mark: GuardrailMark | undefined, now: number, width = Number.POSITIVE_INFINITY): string | undefined {
  const rule = mark && (mark.reason === 'budget' ? 'budget' : mark.reason === 'expiry' ? 'expiresIn' : 'maxAge');
  const off = mark && `disabled by its ${rule}${mark.until !== null ? ` until ${utcTime(Date.parse(mark.until))} (space enables it now)` : ''}`;
  const tightOff = mark && `off by its ${rule}${mark.until !== null ? ` till ${utcTime(Date.parse(mark.until)).slice(5)}` : ''} · space enables it`;
  const near = due.filter((d) => d.state !== 'ok').map((d) => deadlineWords(d, now));
  if (!off && !view && near.length === 0) return undefined;
  const forms = [
    [off, view && budgetWords(view, now), ...near],
    [off, view && shortBudget(view, now), ...near],
    [off ?? (view && shortBudget(view, now)), ...near],
    [tightOff ?? (view && tightBudget(view)), ...near],
  ].map((parts) => `budget: ${parts.filter((p): p is string => p !== undefined).join(' · ')}`);
  return forms.find((f) => displayWidth(f) <= width) ?? forms[forms.length - 1];
}

/** See the module comment. */
export function useKeyBudgets(): KeyBudgets {
  const services = useServices();
  const { baseUrl } = useSession();
  const { keys } = useAccountData();
  const usage = useUsage();
  const rules = services.profile.guardrails;
  // Read every fourth poll, mostly the same: a state set to itself calls no setState (see useChangedState).
  const [entries, setEntries] = useChangedState<readonly GuardrailEntry[]>([]);
  // Read again with each key list, and with each background read of the lists (every
  // LIST_RELOAD_EVERY_POLLS-th poll, which leaves an unchanged list as it was): a guardrail of
  // another keydeck (cron, an exporter) acts meanwhile. Kept as it was when read the same (no frame).
  const read = useRef<() => () => void>(() => () => {});
  read.current = () => {
    if (!rules || baseUrl === undefined) return () => {};
    let live = true;
    const keep = (e: readonly GuardrailEntry[]) => live && setEntries((held) => (JSON.stringify(held) === JSON.stringify(e) ? held : e));
    guardrailEntries(services.dataDir, { profile: services.profile.name, origin: new URL(baseUrl).origin })
      .then(keep)
      .catch(() => keep([])); // a guardrail record that cannot be read shows no budget entries
    return () => {
      live = false;
    };
  };
  useEffect(() => read.current(), [rules, baseUrl, services, keys.data]);
  const polls = useRef(0);
  usePollSucceeded(() => {
    polls.current += 1;
    if (polls.current % LIST_RELOAD_EVERY_POLLS === 0) read.current();
  });
  const { snapshot, samplesOf } = usage;
  return useMemo(() => {
    const byId = new Map((snapshot.report?.keys ?? []).map((k) => [k.id, k]));
    return {
      any: (rules ?? []).length > 0,
      budgetOf: (key, now) => {
        const rule = rules && budgetOf(rules, key.name);
        return rule ? budgetView(rule, { usage: byId.get(key.id), samples: samplesOf(key.id), at: snapshot.at, now, nextReadAt: snapshot.budget?.nextAutoAt }) : undefined;
      },
      deadlinesOf: (key, now) => (rules ? deadlines(namedRule(rules, key.name), key, now) : []),
      markOf: (key) => (key.isActive ? undefined : guardrailMark(entries, key.id)),
    };
  }, [rules, snapshot, samplesOf, entries]);
}
