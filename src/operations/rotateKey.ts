/**
 * Rotating a consumption key without downtime: `keys rotate` and the TUI's `R` drive this machine
 * of the kit (./kit.ts), on the record ./rotationRecord.ts (`rotations.json`), made of the
 * mint-and-deliver sub-machine (./mint.ts) for the successor, then the handover from the old key.
 * `--finish`, `--undo`, a rerun of the same command and the TUI's next start take it up.
 *
 * By default the successor takes the old key's name and the old key is renamed
 * `NAME (rotated YYYY-MM-DD)` once the successor is delivered: the key in use keeps the name a job
 * names, so a rotation from cron can run again and again (`--name` picks another name; then the
 * old key keeps its own). An inactive key is not rotated (nothing uses it; its lineage's active
 * key is). No key is ever deactivated or deleted before its successor reached every destination.
 *
 * | state       | what is true                                                               | finish, rerun, the TUI's next start | undo |
 * |-------------|----------------------------------------------------------------------------|-------------------------------------|------|
 * | (none)      | the old key was checked (a credit key, active); the destinations too (I5)  | —                                   | —    |
 * | `creating`  | the successor may have been created (id and value unknown)                 | successors found by name and time are lost: a new one is created and delivered, the lost ones deleted once it is | successors found by name and time are deleted |
 * | `created`   | the successor exists (id, fingerprint); each destination `pending`, `writing` (its previous content kept beside it), `written`, `running`, `took` or `failed` | its value read back from a file that holds it, delivered to the rest; none holds it: lost, as above | every file holding the successor gets back what it held (the old key); the successor deleted, unless a command took it (kept, renamed `NAME (kept after undo)`, the command named) |
 * | `delivered` | every destination holds the successor; the grace, the last use and the old key's fate (`--old`) are next | the old key renamed (when the successor took its name), then the handover: the face's word on the old key (deactivate, delete or keep), then it is done | as `created`; the old key's name put back, and the old key reactivated if keydeck had deactivated it; once the old key was deleted, the rotation is complete |
 * | `ending`    | the old key handled; the copies of previous content are being removed      | the copies removed, the entry removed | the same: nothing can be undone once a copy is gone |
 * | (ended)     | the copies of previous content removed                                     |                                     |      |
 *
 * Crash points: the kit's (`rotate.<step>`) and the process's (src/failpoints: the record's writes
 * `file.renamed:rotations.json`, the create, each copy and file write, each command, the delivery
 * record, the renames and the old key's update or delete). docs/crash-safety.md has the tables.
 */
import { KeydeckApiError } from '../api/errors.js';
import { keyStatus } from '../api/keyStatus.js';
import { keyNameProblem, MAX_NAME_LENGTH, type ConsumptionKey } from '../api/schemas.js';
import { checkDestinations } from '../delivery/deliver.js';
import type { Destination } from '../delivery/destinations.js';
import { rotatedName } from '../delivery/rotation.js';
import { emit, OperationError, step, type DriveMode, type Machine, type Next, type Step } from './kit.js';
import { endStep, mintNext, mintUndoNext, listedKeys, MintMemo, undoListing, type MintConfig, type MintContext, type MintInput, type MintStop, type NewKey } from './mint.js';
import { rotationRecord, type OldKeyAction, type Rotation, type RotationRecord } from './rotationRecord.js';
import { pendingTargets } from './targets.js';

/**
 * What a rotation works with: the client's consumption keys (a `KeydeckClient`, or the TUI's
 * `AccountClient`) and the service's clock offset (`lastUsedAt` is the service's time), the
 * record, and delivery.
 */
export interface RotationContext extends MintContext {
  readonly client: MintContext['client'] & { readonly serviceClockOffsetMs?: number | undefined };
  readonly record: RotationRecord;
  readonly profile: string;
  /** The service origin (src/credentials/origin.ts `originOf`). */
  readonly origin: string;
}

/** What a new rotation needs. */
export interface RotationPlan {
  readonly old: ConsumptionKey;
  /** The successor's name: the old key's (default; the old key is then renamed) or another. */
  readonly successorName?: string | undefined;
  /** The other keys' names (for the old key's new name). */
  readonly taken?: readonly string[];
  readonly destinations: readonly Destination[];
  readonly oldAction?: OldKeyAction | undefined;
  /** `--grace`, ms after delivery before the old key is handled. */
  readonly graceMs?: number | undefined;
}

/** The face's word: the key shown is in place (./mint.ts), and what becomes of the old key. */
export interface RotateInput extends MintInput {
  /** `--old` given when taking a rotation up: recorded as its `oldAction` (the handover reads it). */
  readonly plannedOld?: OldKeyAction | undefined;
  /** `--grace` given when taking a rotation up, ms: it replaces the recorded one, counted from the delivery. */
  readonly plannedGrace?: number | undefined;
  /** The handover is decided: the old key is deactivated, deleted or kept now. */
  readonly handOver?: OldKeyAction | undefined;
}

/** How a drive of a rotation ended. */
export type RotateOutcome =
  | MintStop<Rotation>
  /** The successor is in place: the face decides the old key's fate (grace, last use), then drives on with `handOver` (`key`: the successor, when made or read back in this drive). */
  | { readonly kind: 'handover'; readonly op: Rotation; readonly key?: NewKey | undefined }
  /** Over: the old key handled (`action`, unless it was handled by an earlier run; `gone`: it no longer existed). */
  | { readonly kind: 'done'; readonly op: Rotation; readonly action?: OldKeyAction | undefined; readonly gone: boolean }
  /** Undone; or, the old key deleted already, complete. */
  | { readonly kind: 'undone' }
  | { readonly kind: 'complete' };

/** The old key's name as the service lists it once its successor is delivered (`web (rotated 2026-11-28)`, or its own). */
export function oldName(rotation: Rotation): string {
  return rotation.state === 'delivered' || rotation.state === 'ending' ? (rotation.old.rotatedName ?? rotation.old.name) : rotation.old.name;
}

/** `NAME (kept after undo)`, at most 128 characters. */
function keptName(name: string): string {
  const suffix = ' (kept after undo)';
  const kept = `${[...name].slice(0, MAX_NAME_LENGTH - suffix.length).join('')}${suffix}`;
  return keyNameProblem(kept) === undefined ? kept : name;
}

/** The old key as the undo's listing has it. */
function oldListed(op: Rotation, memo: MintMemo): ConsumptionKey | undefined {
  return memo.undo?.listed.find((k) => k.id === op.old.id);
}

/** The sub-machine configured for a successor. */
const CONFIG: MintConfig<Rotation, RotationContext> = {
  kind: 'rotate',
  record: (ctx) => ctx.record,
  newKey: (op) => op.successor,
  withNewKey: (op, key) => ({ successor: { name: op.successor.name, ...(key.id !== undefined && { id: key.id }), ...(key.fingerprint !== undefined && { fingerprint: key.fingerprint }) } }),
  mint: (ctx, op) => ctx.client.keys.createCredit({ name: op.successor.name }),
  mine: (op, k) => k.name === op.successor.name && k.id !== op.old.id,
  mintedState: () => 'created',
  // The grace runs from the delivery: the time the application has to pick up the successor.
  deliveredPatch: (op) => ({ deliveredAt: new Date().toISOString(), ...(op.graceMs !== undefined && { graceUntil: new Date(Date.now() + op.graceMs).toISOString() }) }),
  async keepOnUndo(ctx, op, id) {
    const name = keptName(op.successor.name);
    // The rename only tells the kept key apart; refused, the key is kept and named all the same.
    if (name !== op.successor.name) await ctx.client.keys.update(id, { name }).catch(() => undefined);
    return name;
  },
  async undoHost(ctx, op, memo) {
    const old = oldListed(op, memo);
    if (!old) return undefined;
    if (old.name !== op.old.name && !memo.done.has('name-back')) {
      return step('name-back', async () => {
        await ctx.client.keys.update(old.id, { name: op.old.name });
        emit(ctx, { type: 'old_name_back', name: op.old.name });
      });
    }
    if (!old.isActive && op.old.wasActive === true) {
      if (!memo.done.has('reactivate')) {
        return step('reactivate', async () => {
          await ctx.client.keys.update(old.id, { isActive: true });
          emit(ctx, { type: 'old_state', name: op.old.name, reactivated: true, active: true });
        });
      }
    } else if (!memo.done.has('old-state')) {
      memo.done.add('old-state');
      emit(ctx, { type: 'old_state', name: op.old.name, reactivated: false, active: old.isActive });
    }
    return undefined;
  },
};

/** The old key's last step: deactivated, deleted or kept (`gone`: it no longer exists). */
function oldKeyStep(ctx: RotationContext, op: Rotation, action: OldKeyAction, memo: MintMemo<RotateInput>): Step<Rotation> {
  return step('old-key', async () => {
    let gone = false;
    try {
      if (action === 'deactivate') await ctx.client.keys.update(op.old.id, { isActive: false });
      else if (action === 'delete') await ctx.client.keys.delete(op.old.id);
    } catch (err) {
      // Gone already (deleted elsewhere, or a delete whose answer was lost): what was asked is true.
      if (!(err instanceof KeydeckApiError) || err.code !== 'not_found') throw err;
      gone = true;
    }
    memo.done.add(gone ? 'old-gone' : 'old-there');
    emit(ctx, { type: 'old_handled', key: { id: op.old.id, name: oldName(op) }, rotation: op.old.name, action, gone });
  });
}

/** The machine (see the module comment). */
export const rotateKeyMachine: Machine<Rotation, RotationContext, RotationPlan, RotateInput, MintMemo<RotateInput>, RotateOutcome> = {
  name: 'rotate',
  kind: 'rotate',
  memo: (mode: DriveMode, input: RotateInput) => new MintMemo(mode, input),
  label: (op) => op.old.name,

  async begin(ctx, plan) {
    const old = plan.old;
    if (old.keyType === 'subscription') throw new OperationError({ code: 'subscription_key', key: { id: old.id, name: old.name } });
    if (keyStatus(old) !== 'active') throw new OperationError({ code: 'key_inactive', key: { id: old.id, name: old.name } });
    await checkDestinations(plan.destinations, { ...(ctx.delivery.env && { env: ctx.delivery.env }) });
    const name = plan.successorName ?? old.name;
    const keepsName = name === old.name;
    const rotation = await ctx.record.start({
      kind: 'consumption',
      profile: ctx.profile,
      origin: ctx.origin,
      old: { id: old.id, name: old.name, wasActive: true, ...(keepsName && { rotatedName: rotatedName(old.name, new Date(), plan.taken ?? []) }) },
      successor: { name },
      lost: [],
      destinations: plan.destinations.map((d) => (d.kind === 'command' ? { ...d, argv: [...d.argv] } : { ...d })),
      targets: pendingTargets(plan.destinations),
      ...(plan.oldAction && { oldAction: plan.oldAction }),
      ...(plan.graceMs !== undefined && plan.graceMs > 0 && { graceMs: plan.graceMs }),
    });
    await ctx.drivers?.take(rotation.id);
    emit(ctx, { type: 'rotation_started', old: { id: old.id, name: old.name }, successor: rotation.successor.name, rotatedName: rotation.old.rotatedName });
    return rotation;
  },

  async next(ctx, op, memo): Promise<Next<Rotation, RotateOutcome>> {
    if (op.state === 'ending') {
      // The old key was handled; its copies of previous content are being removed: nothing can be undone, it ends.
      if (memo.mode === 'undo' && !memo.done.has('complete')) {
        memo.done.add('complete');
        emit(ctx, { type: 'complete', kind: 'rotate', name: op.old.name });
      }
      return { step: endStep(ctx.record, op, memo, () => ({ kind: 'done', op, action: memo.input.handOver, gone: memo.done.has('old-gone') }) as const) };
    }
    if (memo.mode === 'undo') {
      const { listed } = await undoListing(CONFIG, ctx, op, memo);
      if (!listed.some((k) => k.id === op.old.id)) {
        // Deleted as the rotation asked (the record not yet cleared): the rotation is complete.
        if (op.state !== 'delivered') throw new OperationError({ code: 'old_key_deleted', name: op.old.name });
        if (!memo.done.has('complete')) {
          memo.done.add('complete');
          emit(ctx, { type: 'rotation_complete', old: op.old.name, successor: op.successor.name });
        }
        return { step: endStep(ctx.record, op, memo, () => ({ kind: 'complete' }) as const) };
      }
      return mintUndoNext(CONFIG, ctx, op, memo, () => ({ kind: 'undone' }) as const);
    }
    const takingUp = (how: 'new' | 'read_back' | 'delivered') => {
      if (memo.mode !== 'finish' || memo.done.has('taking-up')) return;
      memo.done.add('taking-up');
      emit(ctx, { type: 'taking_up', name: op.old.name, successor: op.successor.name, how });
    };
    const planned = memo.input.plannedOld;
    if (planned !== undefined && op.oldAction !== planned) return { step: step('plan-old', undefined, () => ctx.record.update(op.id, { oldAction: planned })) };
    const grace = memo.input.plannedGrace;
    if (grace !== undefined && op.graceMs !== grace) {
      const deliveredAt = op.deliveredAt !== undefined ? Date.parse(op.deliveredAt) : Number.NaN;
      const patch = { graceMs: grace, ...(Number.isFinite(deliveredAt) && { graceUntil: new Date(deliveredAt + grace).toISOString() }) };
      return { step: step('plan-grace', undefined, () => ctx.record.update(op.id, patch)) };
    }
    if (op.state !== 'delivered') {
      // Never undefined before `delivered`.
      const mint = (await mintNext(CONFIG, ctx, op, memo))!;
      if ('step' in mint && mint.step.name === 'mint') takingUp('new');
      else if (memo.readBack) takingUp('read_back');
      return 'stop' in mint ? { stop: mint.stop } : mint;
    }
    const cleanup = await mintNext(CONFIG, ctx, op, memo);
    if (cleanup) return 'stop' in cleanup ? { stop: cleanup.stop } : cleanup;
    const to = op.old.rotatedName;
    if (to !== undefined && !memo.done.has('rename-old')) {
      // Unreadable, the names are left for the finish: the handover still runs.
      const old = (await listedKeys(ctx, memo).catch(() => [])).find((k) => k.id === op.old.id);
      if (old && old.name !== to) {
        return {
          step: step('rename-old', async () => {
            try {
              await ctx.client.keys.update(op.old.id, { name: to });
              emit(ctx, { type: 'old_renamed', from: op.old.name, to, successor: op.successor.name, takenUp: memo.mode === 'finish' });
            } catch {
              // Left for the finish: the handover still runs.
            }
          }),
        };
      }
      memo.done.add('rename-old');
    }
    const action = memo.input.handOver;
    if (action === undefined) {
      takingUp('delivered');
      return { stop: { kind: 'handover', op, key: memo.key } };
    }
    if (!memo.done.has('old-key')) return { step: oldKeyStep(ctx, op, action, memo) };
    return { step: endStep(ctx.record, op, memo, () => ({ kind: 'done', op, action, gone: memo.done.has('old-gone') }) as const) };
  },
};

/** The context of a rotation in `dataDir` (the record there). */
export function rotationContext(fields: Omit<RotationContext, 'record'> & { readonly dataDir: string }): RotationContext {
  const { dataDir, ...rest } = fields;
  return { ...rest, record: rotationRecord(dataDir) };
}
