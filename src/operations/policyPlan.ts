/**
 * `keydeck plan`: what applying a policy file (src/config/policyFile.ts) would change, from the
 * world as it is (the service's keys, the profile's settings, the unfinished operations, the
 * guardrail record, the last usage figures), the way `terraform plan` compares a configuration
 * with its state. Read only: `keydeck apply` (./applyPolicy.ts) makes the changes listed here, each
 * through its machine. docs/guardrails.md.
 *
 * Changes (what `plan -detailed-exitcode` counts): a declared key to create (or whose interrupted
 * creation to finish), a key a guardrail disables, re-enables or rotates (a budget at its limit, a
 * new period, `maxAge`, `expiresIn`), and the profile's settings the file declares (its guardrail
 * rules, the low-balance threshold, auto top-up). Notes change nothing: thresholds a guardrail
 * will say, deadlines near, keys keydeck does not manage (left alone, listed), and problems that
 * stop a plan (a name several active keys have; a destination that cannot be used).
 */
import { keyStatus } from '../api/keyStatus.js';
import type { ConsumptionKey } from '../api/schemas.js';
import { budgetOf, budgetView, deadlines, matchesName, namedRule, type BudgetView, type DeadlineView } from '../billing/guardrails.js';
import { AutoTopUpPolicySchema, resolveAutoTopUpPolicy, type AutoTopUpPolicy } from '../config/autoTopUp.js';
import { sameRules, type Guardrails, type KeyRule } from '../config/guardrailRules.js';
import type { PolicyFile } from '../config/policyFile.js';
import { DeliveryError, parseCommandDestination, parseFileDestination, type Destination } from '../delivery/destinations.js';
import type { GuardrailEntry } from './guardrailRecord.js';
import { guardrailDecisions, type GuardrailDecision, type GuardrailFigures } from './guardrailPass.js';
import type { KeyOperation } from './keyOperationRecord.js';
import type { Rotation } from './rotationRecord.js';

/** One change of a plan. */
export type PolicyChange =
  | { readonly kind: 'create'; readonly name: string; readonly destinations: readonly Destination[] }
  /** A declared key's creation was interrupted: apply finishes it. */
  | { readonly kind: 'finish'; readonly name: string; readonly op: KeyOperation }
  | { readonly kind: 'guardrail'; readonly decision: GuardrailDecision }
  | { readonly kind: 'rules'; readonly from?: Guardrails | undefined; readonly to: Guardrails }
  | { readonly kind: 'alert_below'; readonly from?: number | undefined; readonly to: number }
  | { readonly kind: 'auto_top_up'; readonly from?: AutoTopUpPolicy | undefined; readonly to?: AutoTopUpPolicy | undefined };

/** One note of a plan (nothing changes by it). */
export type PolicyNote =
  /** A guardrail will say something (a threshold, the limit with `warn`, a deadline near). */
  | { readonly kind: 'says'; readonly decision: GuardrailDecision }
  /** A key keydeck does not manage: left alone (a pattern's budget may still govern it). */
  | { readonly kind: 'unmanaged'; readonly key: ConsumptionKey }
  /** A declared key keydeck cannot make (a subscription key is made by a payment). */
  | { readonly kind: 'cannot_create'; readonly name: string }
  /** A declared key is inactive (a person or a guardrail disabled it): it exists, nothing is made. */
  | { readonly kind: 'inactive'; readonly key: ConsumptionKey };

/** A problem that stops the plan (exit 1): a name several active keys have, a destination that cannot be used. */
export interface PolicyProblem {
  readonly name: string;
  readonly sentence: string;
}

/** A plan. */
export interface PolicyPlan {
  readonly changes: readonly PolicyChange[];
  readonly notes: readonly PolicyNote[];
  readonly problems: readonly PolicyProblem[];
  /** The rules the file declares (what `apply` stores). */
  readonly rules: Guardrails;
  /** The declared keys as found on the service (by name). */
  readonly managed: ReadonlyMap<string, ConsumptionKey>;
  /** Each key's budget and deadlines under the file's rules, as they stand (the keys a rule governs). */
  readonly views: readonly KeyGuardrailView[];
}

/** A key's budget and deadlines as they stand. */
export interface KeyGuardrailView {
  readonly key: ConsumptionKey;
  readonly budget?: BudgetView;
  readonly deadlines: readonly DeadlineView[];
}

/** The budget and deadlines of every key `rules` govern, with the figures `f` (for the faces' words). */
export function guardrailViews(f: GuardrailFigures): KeyGuardrailView[] {
  const byId = new Map((f.report?.keys ?? []).map((k) => [k.id, k]));
  const out: KeyGuardrailView[] = [];
  for (const key of f.keys) {
    const rule = budgetOf(f.rules, key.name);
    const budget = rule && budgetView(rule, { usage: byId.get(key.id), samples: f.samplesOf(key.id), at: f.at, now: f.now, nextReadAt: f.nextReadAt, thresholds: f.thresholds });
    const due = deadlines(namedRule(f.rules, key.name), key, f.now);
    if (budget || due.length > 0) out.push({ key, ...(budget && { budget }), deadlines: due });
  }
  return out;
}

/** The world a plan is made from. */
export interface PolicyWorld {
  /** The profile's settings as they are. */
  readonly profile: { readonly name: string; readonly alertBelowUsd?: number | undefined; readonly autoTopUp?: AutoTopUpPolicy | undefined; readonly guardrails?: Guardrails | undefined };
  readonly scope: { readonly profile: string; readonly origin: string };
  /** The usage figures, the keys and the clock (`rules` are the file's: set by {@link planPolicy}). */
  readonly figures: Omit<GuardrailFigures, 'rules' | 'thresholds'>;
  /** The unfinished key creations of the profile and origin. */
  readonly creations: readonly KeyOperation[];
  /** The guardrail record's entries of the profile and origin. */
  readonly entries: readonly GuardrailEntry[];
  /** Where keydeck delivered a key (a rotation of a key the file gives no destination). */
  readonly recalled?: ReadonlyMap<string, readonly Destination[]>;
  /** The unfinished rotations of consumption keys (a successor shares its old key's name until it is handed over). */
  readonly rotations?: readonly Rotation[];
}

/** The rules a policy file declares: its keys (by name), then its patterns, in its order. */
export function rulesOf(file: PolicyFile, now: Date): Guardrails {
  const thresholds = file.account.thresholds;
  const budget = (b: PolicyFile['keys'][number]['budget']) =>
    b && {
      limitUsd: b.limit,
      period: b.period,
      ...((b.thresholds ?? thresholds) !== undefined && { thresholds: [...(b.thresholds ?? thresholds)!] }),
      action: b.action,
      ...(b.reenable !== undefined && { reenable: b.reenable }),
    };
  const rules: KeyRule[] = [
    ...file.keys.map((k) => ({
      name: k.name,
      ...(k.budget && { budget: budget(k.budget)! }),
      ...(k.maxAgeSeconds !== undefined && { maxAgeSeconds: k.maxAgeSeconds }),
      ...(k.onMaxAge !== undefined && { onMaxAge: k.onMaxAge }),
      ...(k.expiresInSeconds !== undefined && { expiresInSeconds: k.expiresInSeconds }),
      ...(k.warnBeforeSeconds !== undefined && { warnBeforeSeconds: k.warnBeforeSeconds }),
    })),
    ...file.budgets.map((b) => ({ match: b.match, budget: budget(b)! })),
  ];
  return { file: file.path, appliedAt: now.toISOString(), rules };
}

/**
 * The destinations a declared key's `to` names, relative paths from the file's directory.
 * @throws DeliveryError `invalid_destination`
 */
export function destinationsOf(file: PolicyFile, name: string, env: NodeJS.ProcessEnv = process.env): Destination[] {
  const key = file.keys.find((k) => k.name === name);
  return (key?.to ?? []).map((d) => ('file' in d ? parseFileDestination(d.file, { cwd: file.dir, env }) : parseCommandDestination(d.command, { env })));
}

/**
 * The key of the service that a declared `name` is: the old key of a rotation under way (its
 * successor, made and not yet handed over, has the same name), else the one active key of that
 * name, else its newest inactive one.
 */
function found(keys: readonly ConsumptionKey[], name: string, now: number, rotations: readonly Rotation[]): { key?: ConsumptionKey; ambiguous?: ConsumptionKey[] } {
  const named = keys.filter((k) => k.name === name && keyStatus(k, now) !== 'expired');
  const rotating = named.find((k) => rotations.some((r) => r.old.id === k.id));
  if (rotating) return { key: rotating };
  const active = named.filter((k) => k.isActive);
  if (active.length > 1) return { ambiguous: active };
  if (active.length === 1) return { key: active[0]! };
  const newest = [...named].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))[0];
  return newest ? { key: newest } : {};
}

/** The auto top-up policy the file declares: undefined (not declared: left as it is), `off`, or the policy. */
function declaredAutoTopUp(file: PolicyFile, now: Date): { off: true } | { policy: AutoTopUpPolicy } | { problem: string } | undefined {
  const a = file.account.autoTopUp;
  if (a === undefined) return undefined;
  if (a === 'off' || a === false) return { off: true };
  const r = resolveAutoTopUpPolicy({ belowUsd: a.below, amountUsd: a.amount, toUsd: a.to, maxPerDayUsd: a.maxPerDay, maxPerMonthUsd: a.maxPerMonth, method: a.method }, now);
  return 'problem' in r
    ? { problem: `account.autoTopUp: ${r.problem.replace(/--(below|amount|to|max-per-day|max-per-month)\b/g, (_, f: string) => f.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase()))}` }
    : { policy: r.policy };
}

/** The same auto top-up settings (when it was set, and a pause, aside). */
function sameAutoTopUp(a: AutoTopUpPolicy | undefined, b: AutoTopUpPolicy | undefined): boolean {
  const strip = (p: AutoTopUpPolicy | undefined) => p && JSON.stringify(AutoTopUpPolicySchema.parse({ ...p, since: '', paused: undefined }));
  return strip(a) === strip(b);
}

/** The plan of `file` against `world` (see the module comment). Pure but for the clock `now`. */
export function planPolicy(file: PolicyFile, world: PolicyWorld, now = new Date(world.figures.now)): PolicyPlan {
  const changes: PolicyChange[] = [];
  const notes: PolicyNote[] = [];
  const problems: PolicyProblem[] = [];
  const managed = new Map<string, ConsumptionKey>();
  const keys = world.figures.keys;
  const destinations = new Map<string, Destination[]>();
  for (const declared of file.keys) {
    try {
      destinations.set(declared.name, destinationsOf(file, declared.name));
    } catch (err) {
      if (!(err instanceof DeliveryError)) throw err;
      problems.push({ name: declared.name, sentence: `keys "${declared.name}" (line ${declared.line}): ${err.message.replace(/^--to-(file|command)/, 'to')}` });
      continue;
    }
    const creation = world.creations.find((o) => o.name === declared.name && o.subscriptionId === undefined);
    if (creation) {
      changes.push({ kind: 'finish', name: declared.name, op: creation });
      continue;
    }
    const { key, ambiguous } = found(keys, declared.name, world.figures.now, world.rotations ?? []);
    if (ambiguous) {
      problems.push({
        name: declared.name,
        sentence: `${ambiguous.length} active keys are named "${declared.name}" (${ambiguous.map((k) => k.id).join(', ')}): keydeck cannot tell which one the file declares; rename or delete the others`,
      });
      continue;
    }
    if (key) {
      managed.set(declared.name, key);
      if (!key.isActive) notes.push({ kind: 'inactive', key });
    } else if (declared.type === 'subscription') notes.push({ kind: 'cannot_create', name: declared.name });
    else changes.push({ kind: 'create', name: declared.name, destinations: destinations.get(declared.name)! });
  }
  const rules = rulesOf(file, now);
  if (!sameRules(world.profile.guardrails, rules)) changes.push({ kind: 'rules', ...(world.profile.guardrails && { from: world.profile.guardrails }), to: rules });
  if (file.account.alertBelow !== undefined && file.account.alertBelow !== world.profile.alertBelowUsd)
    changes.push({ kind: 'alert_below', from: world.profile.alertBelowUsd, to: file.account.alertBelow });
  const auto = declaredAutoTopUp(file, now);
  if (auto && 'problem' in auto) problems.push({ name: 'account', sentence: auto.problem });
  if (auto && 'off' in auto && world.profile.autoTopUp) changes.push({ kind: 'auto_top_up', from: world.profile.autoTopUp });
  if (auto && 'policy' in auto && !sameAutoTopUp(auto.policy, world.profile.autoTopUp)) changes.push({ kind: 'auto_top_up', from: world.profile.autoTopUp, to: auto.policy });
  // The guardrails as the file has them, on the keys as they are.
  const successorGoes = (key: ConsumptionKey) => {
    const own = destinations.get(key.name) ?? [];
    return own.length > 0 ? own : (world.recalled?.get(key.id) ?? []);
  };
  for (const d of guardrailDecisions({ ...world.figures, rules: rules.rules, thresholds: file.account.thresholds }, world.entries, world.scope, (k) =>
    managed.get(k.name)?.id === k.id || !file.keys.some((f) => f.name === k.name) ? successorGoes(k) : [],
  )) {
    if (d.change) changes.push({ kind: 'guardrail', decision: d });
    else if (d.says.length > 0) notes.push({ kind: 'says', decision: d });
  }
  const declared = new Set(file.keys.map((k) => k.name));
  for (const k of keys) if (!declared.has(k.name) && keyStatus(k, world.figures.now) !== 'expired') notes.push({ kind: 'unmanaged', key: k });
  const views = guardrailViews({ ...world.figures, rules: rules.rules, thresholds: file.account.thresholds });
  return { changes, notes, problems, rules, managed, views };
}

/** True when a pattern of `rules` governs the key named `name` (for the words of an unmanaged key). */
export function governedByPattern(rules: readonly KeyRule[], name: string): boolean {
  return rules.some((r) => r.match !== undefined && matchesName(r.match, name));
}
