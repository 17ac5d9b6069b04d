/**
 * A guardrail acting on one key (docs/guardrails.md): a machine of the kit (./kit.ts) on the
 * record ./guardrailRecord.ts (`guardrails.json`), one entry per key, rule and period. Each drive
 * is given what the rule says now ({@link GuardrailInput}: thresholds reached, the limit, a
 * deadline near or passed, from src/billing/guardrails.ts) and observes the key on the service;
 * its steps say each thing once (recorded before it is said: a crash between the two loses the
 * word rather than say it twice) and change the key at most once per period.
 *
 * | state       | what is true                                                          | the next drive (a usage read, `apply`, a new period) |
 * |-------------|-----------------------------------------------------------------------|------------------------------------------------------|
 * | `watching`  | the thresholds in `said` were said; the key was not touched           | new thresholds said; at the limit: `warn` says it, `disable` → `disabling`, `rotate` → `rotating`; the period over: ended |
 * | `disabling` | the deactivation is next (recorded before it is sent)                 | the key deactivated (idempotent), `disabled`, said; the period over first: ended |
 * | `disabled`  | the service has the key inactive because of this rule                 | seen active in the period: a person enabled it, `overridden`; the period over: `enabling` (unless `reenable: false`: ended) |
 * | `overridden`| a person's `enable` wins until the period ends                        | the period over: ended |
 * | `enabling`  | the reactivation is next (recorded before it is sent)                 | the key reactivated, said, ended |
 * | `rotating`  | a rotation of the key is next or under way (its own record: ./rotationRecord.ts) | the rotation driven to its end (its successor to the key's destinations, the old key deactivated), said, ended; no destination known: back to `watching`, the key disabled instead (a budget) or flagged (`maxAge`) |
 *
 * A key no longer listed ends its entries. Crash points: the kit's (`guardrail.<step>`) and the
 * process's (`file.renamed:guardrails.json`, the key's update request); docs/crash-safety.md.
 */
import { keyStatus } from '../api/keyStatus.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { Destination } from '../delivery/destinations.js';
import type { GuardrailNotice } from './events.js';
import { DriveMemo, drive, emit, step, type DriveMode, type KitContext, type Machine, type Next, type Step } from './kit.js';
import { guardrailRecord, samePeriod, type GuardrailEntry, type GuardrailRecord } from './guardrailRecord.js';
import { pendingRotationOf } from './queries.js';
import { rotateKeyMachine, type RotateOutcome, type RotationContext } from './rotateKey.js';

/** What a guardrail works with. */
export interface GuardrailContext extends KitContext {
  readonly client: { readonly keys: { list(): Promise<ConsumptionKey[]>; update(id: string, patch: { isActive: boolean }): Promise<unknown> } };
  readonly record: GuardrailRecord;
  readonly profile: string;
  /** The service origin. */
  readonly origin: string;
  /** Tells a notice (the face's words, the `--on-guardrail` hook); awaited; never throws. */
  readonly tell?: ((notice: GuardrailNotice) => Promise<void>) | undefined;
  /** The rotation machine's context (a budget's `rotate`, `maxAge`); absent: no rotation, the key is disabled or flagged instead. */
  readonly rotation?: RotationContext | undefined;
}

/** A new entry: the key, its rule and period (src/billing/guardrails.ts gives them). */
export type GuardrailPlan = Pick<GuardrailEntry, 'keyId' | 'keyName' | 'rule' | 'period' | 'periodStart' | 'periodEnd' | 'limitUsd' | 'action' | 'reenable'>;

/** What the rule says now, for one drive. USD; times the service's clock, ms. */
export interface GuardrailInput {
  readonly now: number;
  /** Thresholds reached (a budget). */
  readonly crossed?: readonly number[];
  /** The limit reached, or the deadline passed. */
  readonly atLimit?: boolean;
  /** The deadline is near (`warnBefore`). */
  readonly warning?: boolean;
  readonly spentUsd?: number;
  readonly overshootUsd?: number;
  /** When the deadline passes (`expiry`, `age`), ISO 8601. */
  readonly dueAt?: string;
  /** Where a rotation's successor goes (the policy file's `to`, else where keydeck delivered the key). */
  readonly destinations?: readonly Destination[];
}

/** How a drive ended: nothing more to do now (`entry`: as recorded), or the entry ended. */
export type GuardrailOutcome = { readonly kind: 'idle'; readonly entry: GuardrailEntry } | { readonly kind: 'ended' };

/** One drive's memory: the notices recorded and not yet told. */
class GuardrailMemo extends DriveMemo<GuardrailInput> {
  readonly tells: GuardrailNotice[] = [];
}

/** The notice `what` of `op` with the input's figures. */
function notice(op: GuardrailEntry, input: GuardrailInput, what: GuardrailNotice['what'], extra: Partial<GuardrailNotice> = {}): GuardrailNotice {
  return {
    what,
    rule: op.rule,
    key: { id: op.keyId, name: op.keyName },
    action: op.action,
    ...(op.period && { period: op.period }),
    ...(op.limitUsd !== undefined && { limitUsd: op.limitUsd }),
    ...(input.spentUsd !== undefined && { spentUsd: input.spentUsd }),
    ...(input.overshootUsd !== undefined && { overshootUsd: input.overshootUsd }),
    ...((op.periodEnd ?? input.dueAt) !== undefined && { until: op.periodEnd ?? input.dueAt }),
    ...extra,
  };
}

/** A step that records `said` (and a state) before the notices are told, and queues them. */
function sayStep(
  ctx: GuardrailContext,
  op: GuardrailEntry,
  memo: GuardrailMemo,
  name: string,
  said: readonly string[],
  notices: readonly GuardrailNotice[],
  patch: Partial<GuardrailEntry> = {},
): Step<GuardrailEntry> {
  return step(name, undefined, async () => {
    const next = await ctx.record.update(op.id, { ...patch, said: [...new Set([...op.said, ...said])] });
    memo.tells.push(...notices);
    return next;
  });
}

/** The end of the entry. */
function endStep(ctx: GuardrailContext, op: GuardrailEntry): Step<GuardrailEntry> {
  return step<GuardrailEntry, undefined>('end', undefined, async () => {
    await ctx.record.remove(op.id);
    return { ended: { kind: 'ended' } satisfies GuardrailOutcome };
  });
}

/** Sets the key active or not, as a step whose commit records `patch` and queues `told`. */
function keyStep(ctx: GuardrailContext, op: GuardrailEntry, memo: GuardrailMemo, active: boolean, patch: Partial<GuardrailEntry>, told: GuardrailNotice): Step<GuardrailEntry> {
  return step(
    active ? 'enable' : 'disable',
    () => ctx.client.keys.update(op.keyId, { isActive: active }),
    async () => {
      const next = await ctx.record.update(op.id, { ...patch, said: [...new Set([...op.said, told.what])] });
      memo.tells.push(told);
      return next;
    },
  );
}

/** The rotation of `key` to `destinations` (or the one under way taken up), driven to its end; its outcome in the guardrail's words. */
async function rotate(rctx: RotationContext, key: ConsumptionKey, keys: readonly ConsumptionKey[], destinations: readonly Destination[]): Promise<{ ok: true; successor: string } | { ok: false }> {
  const pending = pendingRotationOf(
    (await rctx.record.list({ profile: rctx.profile, origin: rctx.origin })).filter((r) => r.kind === 'consumption'),
    keys,
    key.id,
  );
  let outcome: RotateOutcome = pending
    ? await drive(rotateKeyMachine, rctx, { op: pending }, 'finish', { plannedOld: 'deactivate', canShow: false })
    : await drive(rotateKeyMachine, rctx, { plan: { old: key, taken: keys.map((k) => k.name), destinations, oldAction: 'deactivate' } }, 'run', { canShow: false });
  // The handover of a rotation a guardrail makes: the old key is deactivated at once (it spent its budget, or its time).
  while (outcome.kind === 'handover') outcome = await drive(rotateKeyMachine, rctx, { op: outcome.op }, 'finish', { handOver: 'deactivate' });
  return outcome.kind === 'done' ? { ok: true, successor: outcome.op.successor.name } : { ok: false };
}

/** The machine (see the module comment). */
export const guardrailMachine: Machine<GuardrailEntry, GuardrailContext, GuardrailPlan, GuardrailInput, GuardrailMemo, GuardrailOutcome> = {
  name: 'guardrail',
  kind: 'guardrail',
  memo: (mode: DriveMode, input: GuardrailInput) => new GuardrailMemo(mode, input),
  label: (op) => op.keyName,

  async begin(ctx, plan) {
    const entry = await ctx.record.start({ ...plan, profile: ctx.profile, origin: ctx.origin, said: [] });
    await ctx.drivers?.take(entry.id);
    return entry;
  },

  async next(ctx, op, memo): Promise<Next<GuardrailEntry, GuardrailOutcome>> {
    const input = memo.input;
    const told = memo.tells.shift();
    if (told) {
      return {
        step: step(`tell:${told.what}${told.threshold !== undefined ? `-${told.threshold}` : ''}`, async () => {
          emit(ctx, { type: 'guardrail', notice: told });
          await ctx.tell?.(told);
        }),
      };
    }
    const keys = await memo.observe('keys', () => ctx.client.keys.list());
    const key = keys.find((k) => k.id === op.keyId);
    if (!key) return { step: endStep(ctx, op) };
    const active = keyStatus(key, input.now) === 'active';
    const over = op.periodEnd !== undefined && input.now >= Date.parse(op.periodEnd);
    const idle = { stop: { kind: 'idle', entry: op } } as const;
    switch (op.state) {
      case 'enabling':
        if (!key.isActive && !op.said.includes('enabled')) return { step: keyStep(ctx, op, memo, true, {}, notice(op, input, 'enabled')) };
        return { step: endStep(ctx, op) };
      case 'disabled':
        if (over) return op.reenable && !key.isActive ? { step: sayStep(ctx, op, memo, 'enabling', [], [], { state: 'enabling' }) } : { step: endStep(ctx, op) };
        if (key.isActive) return { step: sayStep(ctx, op, memo, 'overridden', ['overridden'], [notice(op, input, 'overridden')], { state: 'overridden' }) };
        return idle;
      case 'overridden':
        return over ? { step: endStep(ctx, op) } : idle;
      case 'disabling':
        if (over) return { step: endStep(ctx, op) };
        if (key.isActive) return { step: keyStep(ctx, op, memo, false, { state: 'disabled' }, notice(op, input, 'disabled')) };
        return { step: sayStep(ctx, op, memo, 'disabled', [], [], { state: 'disabled' }) };
      case 'rotating':
        return rotatingNext(ctx, op, memo, key, keys, over);
      case 'watching':
        break;
    }
    if (over || !active) return over ? { step: endStep(ctx, op) } : idle;
    const crossed = (input.crossed ?? []).filter((t) => !op.said.includes(String(t)));
    if (crossed.length > 0)
      return {
        step: sayStep(
          ctx,
          op,
          memo,
          'thresholds',
          crossed.map(String),
          crossed.map((t) => notice(op, input, 'threshold', { threshold: t })),
        ),
      };
    if (input.warning && !input.atLimit && !op.said.includes('warning')) return { step: sayStep(ctx, op, memo, 'warning', ['warning'], [notice(op, input, 'warning')]) };
    if (!input.atLimit || op.said.includes('limit')) return idle;
    switch (op.action) {
      case 'warn':
        return { step: sayStep(ctx, op, memo, 'limit', ['limit'], [notice(op, input, 'limit')]) };
      case 'flag':
        return { step: sayStep(ctx, op, memo, 'flagged', ['limit'], [notice(op, input, 'flagged')]) };
      case 'disable':
        return { step: sayStep(ctx, op, memo, 'limit', ['limit'], [], { state: 'disabling' }) };
      case 'rotate':
        return { step: sayStep(ctx, op, memo, 'limit', ['limit'], [], { state: 'rotating' }) };
    }
  },
};

/** `rotating`: the rotation (one under way taken up first), or its fallback when it cannot be made. */
async function rotatingNext(
  ctx: GuardrailContext,
  op: GuardrailEntry,
  memo: GuardrailMemo,
  key: ConsumptionKey,
  keys: readonly ConsumptionKey[],
  over: boolean,
): Promise<Next<GuardrailEntry, GuardrailOutcome>> {
  const input = memo.input;
  if (op.said.includes('rotated')) return { step: endStep(ctx, op) };
  const rctx = ctx.rotation;
  // A rotation of the key under way (this entry's, interrupted) is finished whatever else holds.
  const pending =
    rctx &&
    (await memo.observe('rotation', async () =>
      pendingRotationOf(
        (await rctx.record.list({ profile: rctx.profile, origin: rctx.origin })).filter((r) => r.kind === 'consumption'),
        keys,
        key.id,
      ),
    ));
  if (!pending && (over || !key.isActive)) return { step: endStep(ctx, op) };
  const destinations = input.destinations ?? [];
  if (!pending && (!rctx || destinations.length === 0)) {
    // Nowhere to put a successor: a budget disables the key instead (the next turn, from
    // `watching` at the limit), `maxAge` flags it.
    const fallback = op.rule === 'budget' ? 'disable' : 'flag';
    const said = [...op.said.filter((s) => s !== 'limit'), 'no_destination', ...(fallback === 'flag' ? ['limit'] : [])];
    return {
      step: step('no-destination', undefined, async () => {
        const next = await ctx.record.update(op.id, { state: 'watching', action: fallback, said });
        memo.tells.push(notice(next, input, 'no_destination'));
        return next;
      }),
    };
  }
  if (memo.done.has('rotate') || !rctx) return { stop: { kind: 'idle', entry: op } };
  return {
    step: step(
      'rotate',
      () => rotate(rctx, key, keys, destinations),
      async (result) => {
        const r = result as Awaited<ReturnType<typeof rotate>>;
        const told = notice(op, input, r.ok ? 'rotated' : 'rotate_failed', r.ok ? { successor: r.successor } : {});
        // A rotation that failed stays recorded (its own record): the next drive takes it up; it is said once.
        if (!r.ok && op.said.includes('rotate_failed')) return op;
        const next = await ctx.record.update(op.id, { said: [...new Set([...op.said, r.ok ? 'rotated' : 'rotate_failed'])] });
        memo.tells.push(told);
        return next;
      },
    ),
  };
}

/** The entry of `plan`'s key, rule and period among `entries`, if any. */
export function entryOf(entries: readonly GuardrailEntry[], scope: { profile: string; origin: string }, plan: Pick<GuardrailPlan, 'keyId' | 'rule' | 'periodStart'>): GuardrailEntry | undefined {
  return entries.find((e) => samePeriod(e, { ...scope, ...plan }));
}

/** The context of the guardrails in `dataDir` (the record there). */
export function guardrailContext(fields: Omit<GuardrailContext, 'record'> & { readonly dataDir: string }): GuardrailContext {
  const { dataDir, ...rest } = fields;
  return { ...rest, record: guardrailRecord(dataDir) };
}
