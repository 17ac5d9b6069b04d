/**
 * `keydeck apply`: makes the changes of a plan (./policyPlan.ts), each through the machine that
 * owns it, so that each step is recorded before its effect and a crash anywhere is taken up by the
 * next `apply` (docs/crash-safety.md, `apply`): the profile's settings first (one write of the
 * config file under its lock), then each interrupted creation of a declared key finished and each
 * missing key created and delivered (./createKey.ts, record `operations.json`), then one pass of
 * the guardrails (./guardrailPass.ts: disable, re-enable, rotate, record `guardrails.json`, a
 * rotation's own `rotations.json`). `apply` keeps no record of its own: a run taken up plans again
 * from the world, and what a machine left unfinished is in the machine's record, which the next
 * plan lists ("finish") and the next apply finishes. Applying twice changes nothing the second time.
 */
import { updateConfig } from '../config/config.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { Destination } from '../delivery/destinations.js';
import { createKeyMachine, type CreateOutcome, type KeyOperationContext } from './createKey.js';
import type { GuardrailContext } from './guardrail.js';
import { runGuardrailPass, type GuardrailFigures, type GuardrailPassResult } from './guardrailPass.js';
import { drive, OperationError } from './kit.js';
import type { NewKey } from './mint.js';
import type { PolicyChange, PolicyPlan } from './policyPlan.js';

/** What `apply` works with. */
export interface ApplyContext {
  /** Key creations (their record, delivery, the delivery record). */
  readonly creation: KeyOperationContext;
  /** The guardrails (their record, the `--on-guardrail` hook, rotations). */
  readonly guardrail: GuardrailContext;
  /** The config file and the profile whose settings the plan changes. */
  readonly configPath: string;
  readonly profile: string;
  /** A new key shown to the user (a declared key without destination: a terminal or `--json`); resolves once it is seen. */
  readonly reveal?: ((key: NewKey) => Promise<void>) | undefined;
  /** True when a key without destination may be shown. */
  readonly canShow: boolean;
}

/** How one change went. */
export type AppliedChange =
  | { readonly change: PolicyChange; readonly ok: true; readonly outcome?: CreateOutcome }
  | { readonly change: PolicyChange; readonly ok: false; readonly error: unknown; readonly outcome?: CreateOutcome };

/** How `apply` went. */
export interface ApplyResult {
  readonly applied: readonly AppliedChange[];
  /** The guardrails' pass (their own changes and notices). */
  readonly pass?: GuardrailPassResult;
}

/** Writes the profile's settings the plan changes, in one update of the config file. */
async function applySettings(ctx: ApplyContext, changes: readonly PolicyChange[]): Promise<void> {
  await updateConfig(ctx.configPath, (config) => {
    const entry = (config.profiles[ctx.profile] ??= {});
    for (const c of changes) {
      if (c.kind === 'rules') entry.guardrails = c.to;
      else if (c.kind === 'alert_below') entry.alertBelowUsd = c.to;
      else if (c.kind === 'auto_top_up') {
        if (c.to) entry.autoTopUp = c.to;
        else delete entry.autoTopUp;
      }
    }
  });
}

/** Drives a creation until it is over (a key shown is revealed first). */
async function create(ctx: ApplyContext, change: Extract<PolicyChange, { kind: 'create' | 'finish' }>): Promise<CreateOutcome> {
  let outcome =
    change.kind === 'finish'
      ? await drive(createKeyMachine, ctx.creation, { op: change.op }, 'finish', { canShow: ctx.canShow })
      : await drive(createKeyMachine, ctx.creation, { plan: { kind: 'create', name: change.name, destinations: change.destinations } }, 'run', {});
  if (outcome.kind === 'reveal') {
    await ctx.reveal?.(outcome.key);
    outcome = await drive(createKeyMachine, ctx.creation, { op: outcome.op }, 'run', { shown: true });
  }
  return outcome;
}

/**
 * Applies `plan` (see the module comment) with the guardrails' `figures` (the keys listed again
 * after the creations); `destinationsOf` gives a rotated key's successor its destinations.
 * A change that fails does not stop the others (each is said in `applied`).
 * @throws OperationError `crashed` (the kit's failpoints: crash walks only); ConfigError when the
 *   settings cannot be written (nothing else is done then)
 */
export async function applyPolicy(
  ctx: ApplyContext,
  plan: PolicyPlan,
  figures: () => Promise<GuardrailFigures>,
  destinationsOf: (key: ConsumptionKey) => Promise<readonly Destination[]>,
): Promise<ApplyResult> {
  const applied: AppliedChange[] = [];
  const settings = plan.changes.filter((c) => c.kind === 'rules' || c.kind === 'alert_below' || c.kind === 'auto_top_up');
  if (settings.length > 0) {
    await applySettings(ctx, settings);
    for (const change of settings) applied.push({ change, ok: true });
  }
  try {
    for (const change of plan.changes) {
      if (change.kind !== 'create' && change.kind !== 'finish') continue;
      try {
        const outcome = await create(ctx, change);
        applied.push(outcome.kind === 'undelivered' ? { change, ok: false, error: undefined, outcome } : { change, ok: true, outcome });
      } catch (error) {
        if (error instanceof OperationError && error.code === 'crashed') throw error;
        applied.push({ change, ok: false, error });
      }
    }
  } finally {
    ctx.creation.drivers?.releaseAll();
  }
  // The guardrails, on the keys as they are now (new keys included), with the rules just stored.
  const pass = await runGuardrailPass(ctx.guardrail, await figures(), destinationsOf);
  return { applied, pass };
}
