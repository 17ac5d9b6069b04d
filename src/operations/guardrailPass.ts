/**
 * One pass of the guardrails over an account (docs/guardrails.md): from the rules
 * (src/config/guardrailRules.ts), the keys listed now and the last usage figures, what each rule
 * says of each key ({@link guardrailDecisions}, pure: `plan` lists them), then each decision driven
 * by the guardrail machine (./guardrail.ts) in turn ({@link runGuardrailPass}). Called wherever a
 * usage read completes (`apply`, `exporter --enforce`) and, for what time alone decides (a new
 * period, a deadline), whenever it runs. Entries of periods that ended are driven too: a key a
 * budget disabled comes back then, whether or not a read is made.
 */
import type { ConsumptionKey } from '../api/schemas.js';
import type { UsageReport } from '../api/usageSchemas.js';
import { budgetOf, budgetView, deadlines, namedRule, type BudgetView, type DeadlineView } from '../billing/guardrails.js';
import type { KeySample } from '../billing/runaway.js';
import type { KeyRule } from '../config/guardrailRules.js';
import type { Destination } from '../delivery/destinations.js';
import { entryOf, guardrailMachine, type GuardrailContext, type GuardrailInput, type GuardrailOutcome, type GuardrailPlan } from './guardrail.js';
import type { GuardrailEntry } from './guardrailRecord.js';
import { drive, OperationError } from './kit.js';

/** What a pass reads. Times the service's clock, ms. */
export interface GuardrailFigures {
  readonly rules: readonly KeyRule[];
  /** The account's thresholds (the policy file's `account.thresholds`). */
  readonly thresholds?: readonly number[] | undefined;
  /** The consumption keys listed now. */
  readonly keys: readonly ConsumptionKey[];
  /** The last usage figures and when they were read (undefined: none yet). */
  readonly report?: UsageReport | undefined;
  readonly at?: number | undefined;
  /** A key's earlier reads, oldest first (src/billing/keyHistory.ts). */
  readonly samplesOf: (keyId: string) => readonly KeySample[];
  readonly now: number;
  /** When the next usage read is due (the shared schedule). */
  readonly nextReadAt?: number | undefined;
}

/** What one rule says of one key now. */
export interface GuardrailDecision {
  readonly key: ConsumptionKey;
  readonly plan: GuardrailPlan;
  readonly input: GuardrailInput;
  /** The budget's figures (`budget`), or the deadline (`expiry`, `age`). */
  readonly budget?: BudgetView;
  readonly deadline?: DeadlineView;
  /** Its entry in the record, when it has one. */
  readonly entry?: GuardrailEntry;
  /** What a drive would change now (a plan's change), and what it would say. */
  readonly change?: 'disable' | 'enable' | 'rotate';
  readonly says: readonly string[];
}

const iso = (t: number) => new Date(t).toISOString();

/** What a drive of `entry` (or a new one) with `input` would do to `key` (the machine's moves, read only). */
export function expected(entry: GuardrailEntry | undefined, plan: GuardrailPlan, input: GuardrailInput, key: ConsumptionKey): Pick<GuardrailDecision, 'change' | 'says'> {
  const state = entry?.state ?? 'watching';
  const said = entry?.said ?? [];
  const action = entry?.action ?? plan.action;
  const periodEnd = entry?.periodEnd ?? plan.periodEnd;
  const over = periodEnd !== undefined && input.now >= Date.parse(periodEnd);
  const reenable = entry?.reenable ?? plan.reenable;
  if (state === 'enabling' || (state === 'disabled' && over && reenable)) return !key.isActive ? { change: 'enable', says: ['enabled'] } : { says: [] };
  if (over || state === 'overridden' || state === 'disabled') return { says: state === 'disabled' && key.isActive ? ['overridden'] : [] };
  if (state === 'disabling') return key.isActive ? { change: 'disable', says: ['disabled'] } : { says: [] };
  // An interrupted rotation is taken up whatever the key's state now (it is in the rotation's record).
  if (state === 'rotating') return { change: 'rotate', says: [] };
  if (!key.isActive) return { says: [] };
  const says = (input.crossed ?? []).map(String).filter((t) => !said.includes(t));
  if (input.warning && !input.atLimit && !said.includes('warning')) says.push('warning');
  if (!input.atLimit || said.includes('limit')) return { says };
  if (action === 'disable') return { change: 'disable', says: [...says, 'disabled'] };
  if (action === 'rotate') return { change: (input.destinations ?? []).length > 0 ? 'rotate' : plan.rule === 'budget' ? 'disable' : undefined, says };
  return { says: [...says, action === 'flag' ? 'flagged' : 'limit'] };
}

/**
 * What every rule says of every key now (see the module comment), with `entries` the record's
 * entries of this profile and origin; `destinationsOf` the destinations of a key's successor
 * (a rotation). Entries whose key or rule no decision names (a period that ended) come as
 * decisions of their own. Pure.
 */
export function guardrailDecisions(
  f: GuardrailFigures,
  entries: readonly GuardrailEntry[],
  scope: { profile: string; origin: string },
  destinationsOf: (key: ConsumptionKey) => readonly Destination[] = () => [],
): GuardrailDecision[] {
  const out: GuardrailDecision[] = [];
  const byId = new Map((f.report?.keys ?? []).map((k) => [k.id, k]));
  const decide = (key: ConsumptionKey, plan: GuardrailPlan, input: GuardrailInput, extra: Pick<GuardrailDecision, 'budget' | 'deadline'>) => {
    const entry = entryOf(entries, scope, plan);
    const wanted = (input.crossed ?? []).length > 0 || input.atLimit === true || input.warning === true;
    if (!entry && (!wanted || !key.isActive)) return;
    out.push({ key, plan, input, ...extra, ...(entry && { entry }), ...expected(entry, plan, input, key) });
  };
  for (const key of f.keys) {
    const rule = budgetOf(f.rules, key.name);
    if (rule) {
      const view = budgetView(rule, { usage: byId.get(key.id), samples: f.samplesOf(key.id), at: f.at, now: f.now, nextReadAt: f.nextReadAt, thresholds: f.thresholds });
      const plan: GuardrailPlan = {
        keyId: key.id,
        keyName: key.name,
        rule: 'budget',
        period: rule.period,
        periodStart: iso(view.start),
        periodEnd: iso(view.end),
        limitUsd: rule.limitUsd,
        action: rule.action,
        reenable: rule.reenable ?? true,
      };
      const input: GuardrailInput = {
        now: f.now,
        crossed: view.crossed,
        atLimit: view.atLimit,
        ...(view.spentUsd !== undefined && { spentUsd: view.spentUsd }),
        ...(view.overshootUsd !== undefined && { overshootUsd: view.overshootUsd }),
        ...(rule.action === 'rotate' && { destinations: destinationsOf(key) }),
      };
      decide(key, plan, input, { budget: view });
    }
    for (const d of deadlines(namedRule(f.rules, key.name), key, f.now)) {
      const plan: GuardrailPlan = { keyId: key.id, keyName: key.name, rule: d.kind, periodStart: iso(d.dueAt), action: d.action, reenable: false };
      const input: GuardrailInput = {
        now: f.now,
        warning: d.state === 'warning',
        atLimit: d.state === 'due',
        dueAt: iso(d.dueAt),
        ...(d.action === 'rotate' && { destinations: destinationsOf(key) }),
      };
      decide(key, plan, input, { deadline: d });
    }
  }
  // The entries no rule names now (a period that ended, a rule taken away, a key deleted): each driven once more.
  for (const entry of entries) {
    if (out.some((d) => d.entry?.id === entry.id)) continue;
    const listed = f.keys.find((k) => k.id === entry.keyId);
    const key = listed ?? ({ id: entry.keyId, name: entry.keyName, isActive: false, keyType: 'credit', keyPlan: '', createdAt: entry.startedAt } as ConsumptionKey);
    const plan: GuardrailPlan = {
      keyId: entry.keyId,
      keyName: entry.keyName,
      rule: entry.rule,
      periodStart: entry.periodStart,
      action: entry.action,
      reenable: entry.reenable,
      ...(entry.periodEnd !== undefined && { periodEnd: entry.periodEnd }),
    };
    const input: GuardrailInput = { now: f.now };
    // A key no longer listed (deleted): its entry only ends.
    out.push({ key, plan, input, entry, ...(listed ? expected(entry, plan, input, key) : { says: [] }) });
  }
  return out;
}

/** True when a rule of `key` may rotate it (a budget's `rotate`, a `maxAge` that rotates). */
function mayRotate(rules: readonly KeyRule[], key: ConsumptionKey): boolean {
  if (!key.isActive) return false;
  const named = namedRule(rules, key.name);
  return budgetOf(rules, key.name)?.action === 'rotate' || (named?.maxAgeSeconds !== undefined && (named.onMaxAge ?? 'rotate') === 'rotate');
}

/** How a pass went. */
export interface GuardrailPassResult {
  readonly decisions: readonly GuardrailDecision[];
  /** Decisions left to another keydeck acting on them now. */
  readonly skipped: readonly string[];
  /** Decisions that failed: the key's name and the error (a face words it). */
  readonly failed: ReadonlyArray<{ readonly name: string; readonly error: unknown }>;
}

/**
 * Drives every decision of `f` (see the module comment), one key at a time; one that fails does
 * not stop the others. The record is read once, first.
 * @throws OperationError `record` when the record cannot be read (nothing is done then)
 */
export async function runGuardrailPass(ctx: GuardrailContext, f: GuardrailFigures, destinationsOf?: (key: ConsumptionKey) => Promise<readonly Destination[]>): Promise<GuardrailPassResult> {
  const scope = { profile: ctx.profile, origin: ctx.origin };
  const entries = await ctx.record.list(scope);
  // A successor's destinations, looked up for the keys a rule may rotate only.
  const known = new Map<string, readonly Destination[]>();
  if (destinationsOf) for (const key of f.keys.filter((k) => mayRotate(f.rules, k))) known.set(key.id, await destinationsOf(key));
  const decisions = guardrailDecisions(f, entries, scope, (key) => known.get(key.id) ?? []);
  const skipped: string[] = [];
  const failed: Array<{ name: string; error: unknown }> = [];
  const held: string[] = [];
  try {
    for (const d of decisions) {
      try {
        const outcome: GuardrailOutcome = d.entry ? await drive(guardrailMachine, ctx, { op: d.entry }, 'run', d.input) : await drive(guardrailMachine, ctx, { plan: d.plan }, 'run', d.input);
        if (outcome.kind === 'idle') held.push(outcome.entry.id);
      } catch (error) {
        if (error instanceof OperationError && error.code === 'crashed') throw error;
        if (error instanceof OperationError && (error.code === 'guardrail_recorded' || error.code === 'in_progress')) skipped.push(d.key.name);
        else failed.push({ name: d.key.name, error });
      }
    }
  } finally {
    // What is not over is another keydeck's to take up from now on (the next pass of any of them).
    for (const id of [...held, ...decisions.flatMap((d) => (d.entry ? [d.entry.id] : []))]) ctx.drivers?.release(id);
  }
  return { decisions, skipped, failed };
}
