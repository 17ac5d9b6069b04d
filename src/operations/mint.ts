/**
 * The mint-and-deliver sub-machine: make a new consumption key and bring it to its destinations,
 * of which creating a key (`keys create`, the TUI's `n`), a pledge's key (`keys create
 * --subscription`) and a rotation's successor (`keys rotate`, the TUI's `R`) are configurations
 * ({@link MintConfig}). Its states are its host's first ones:
 *
 * | state       | what is true | run, finish (each turn observes, then one step) | undo |
 * |-------------|--------------|----------------------------------------|------|
 * | `creating`  | the create may have been sent: a key may exist, its value unknown | taken up: the keys it may have made (by name, since it started: {@link keysMadeBy}) are lost (recorded, deleted once a new key is delivered); then `mint` | those keys are deleted |
 * | `created`   | the key exists (id, fingerprint); each destination's progress in `targets` (./targets.ts) | taken up: its value read back from a file that holds it (by fingerprint); none does: the key is lost, back to `creating`. Then each destination's steps; all hold it: `delivered`. One failed: stopped (`undelivered`) | each file holding it gets back what it held; the key deleted unless a command took it (kept, named) |
 * | `delivered` | every destination holds it (or the user has it) | where it went remembered, the lost keys deleted (one step each); the host goes on | as `created` |
 *
 * One of each, shared: the found-by-name window and finder (./kit.ts `keysMadeBy`), the create
 * with its salvage (an answer read only in part that holds the value goes on with it, I2), the
 * read-back on resume, the delete that takes `not_found` as done, and the undo loop. Nothing here
 * holds a key value beyond the drive that made or read it ({@link MintMemo.key}).
 */
import type { KeysResource } from '../api/client.js';
import { KeydeckApiError } from '../api/errors.js';
import { salvagedKeyOf } from '../api/salvage.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { DeliveryOptions, DeliveryOutcome } from '../delivery/deliver.js';
import type { DeliveryRecord } from '../delivery/deliveryRecord.js';
import { samePlaces, type Destination } from '../delivery/destinations.js';
import { keyFingerprint } from '../delivery/fingerprint.js';
import type { TargetState } from '../delivery/recordSchemas.js';
import type { OperationKind } from './events.js';
import { deleteQuietly, DriveMemo, emit, keysMadeBy, OperationError, step, type Ended, type KitContext, type Next, type Step } from './kit.js';
import type { MachineRecord, OperationPatch, RecordedOperation } from './record.js';
import { allDelivered, dropBackups, nextTargetStep, nextUndoTargetStep, resetTargets, valueFromFiles } from './targets.js';

/** The fields of an operation the sub-machine works on. */
export interface MintOp extends RecordedOperation {
  readonly lost: readonly string[];
  readonly destinations: readonly Destination[];
  readonly targets: readonly TargetState[];
}

/** A key just made (or read back): its value, for the drive that delivers or shows it. */
export interface NewKey {
  /** Undefined only when an answer that could not be read had no id and the list did not tell. */
  readonly id: string | undefined;
  readonly name: string;
  readonly apiKey: string;
  /** What the service said of it, without the value (for `--json`). */
  readonly answer: Record<string, unknown>;
}

/** The face's word to a drive: the key shown is with the user; a new key may be shown (a terminal, or `--json`). */
export interface MintInput {
  /** The key on the screen was seen and kept (acknowledged in the TUI, printed by a command, put in place). */
  readonly shown?: boolean;
  /** False when a key made while taking the operation up could not be shown (no terminal): refused first. */
  readonly canShow?: boolean;
}

/** One drive's memory (see ./kit.ts DriveMemo). */
export class MintMemo<Input extends MintInput = MintInput> extends DriveMemo<Input> {
  /** The new key with its value, once made or read back in this drive. */
  key?: NewKey;
  /** The key's value was read back from a file in this drive. */
  readBack = false;
  readonly outcomes = new Map<number, DeliveryOutcome>();
  readonly keepFailed = new Map<number, string>();
  readonly holders: Destination[] = [];
  readonly keptBackups: string[] = [];
  /** Undo: the keys listed when it began, and the new keys it found among them. */
  undo?: { readonly listed: readonly ConsumptionKey[]; readonly current: readonly string[] };
  /** Events emitted in this drive (an undo that did nothing says so). */
  emitted = 0;
}

/** What the sub-machine works with. */
export interface MintContext extends KitContext {
  readonly client: { readonly keys: Pick<KeysResource, 'list' | 'createCredit' | 'createSubscription' | 'update' | 'delete'> };
  readonly delivery: DeliveryOptions;
  /** Where keys were delivered: the new key is remembered there once delivered (best effort). */
  readonly deliveries?: DeliveryRecord | undefined;
}

/** Where the sub-machine stops for its face. */
export type MintStop<Op> =
  /** The key goes to the screen: the face shows it, then drives on with `shown`. */
  | { readonly kind: 'reveal'; readonly op: Op; readonly key: NewKey }
  /** A destination failed: the operation stays recorded (finish or undo it). */
  | { readonly kind: 'undelivered'; readonly op: Op; readonly key: NewKey; readonly outcomes: readonly DeliveryOutcome[] };

/** What differs between the sub-machine's configurations. */
export interface MintConfig<Op extends MintOp, Ctx extends MintContext> {
  readonly kind: OperationKind;
  record(ctx: Ctx): MachineRecord<Op, Op['state']>;
  /** The new key as recorded. */
  newKey(op: Op): { readonly name: string; readonly id?: string | undefined; readonly fingerprint?: string | undefined };
  /** The patch that records the new key's id and fingerprint (`{}`: forgets them). */
  withNewKey(op: Op, key: { readonly id?: string | undefined; readonly fingerprint?: string | undefined }): OperationPatch<Op>;
  /** Sends the creating request. @throws KeydeckApiError */
  mint(ctx: Ctx, op: Op): Promise<{ readonly apiKey: string; readonly id: string; readonly name?: unknown }>;
  /** True for a listed key `op` may have made (its name, or its subscription). */
  mine(op: Op, key: ConsumptionKey): boolean;
  /** The state a new key is recorded in (`created`; `showing` for a key that goes to the screen). */
  mintedState(op: Op): Op['state'];
  /** Before a mint (a pledge's refusal and its lost keys deactivated): the next step, if any. */
  beforeMint?(ctx: Ctx, op: Op, memo: MintMemo): Promise<Step<Op> | undefined>;
  /** What else is recorded at `delivered` (a rotation's time of delivery and grace). */
  deliveredPatch?(op: Op): OperationPatch<Op>;
  /** Undo, a destination holding the new key: keeps it (a rotation renames it); its name now. */
  keepOnUndo?(ctx: Ctx, op: Op, id: string): Promise<string>;
  /** The extra undo steps of the host before the end (a rotation's old key), then undefined. */
  undoHost?(ctx: Ctx, op: Op, memo: MintMemo): Promise<Step<Op> | undefined>;
}

/** True when a failed creating call may have made a key: anything but a refusal (an unknown outcome, an answer that came but could not be read). */
export function mayHaveCreated(err: unknown): boolean {
  return !(err instanceof KeydeckApiError) || err.outcomeUnknown === true || err.code === 'invalid_response';
}

/** The keys the service lists now, read once until the next effect. */
export function listedKeys(ctx: MintContext, memo: DriveMemo<unknown>): Promise<ConsumptionKey[]> {
  return memo.observe('keys', () => ctx.client.keys.list());
}

/** The keys `op` may have made without learning of them. */
function madeBy<Op extends MintOp, Ctx extends MintContext>(cfg: MintConfig<Op, Ctx>, op: Op, listed: readonly ConsumptionKey[]): ConsumptionKey[] {
  const id = cfg.newKey(op).id;
  return keysMadeBy(listed, { startedAt: op.startedAt, known: [...op.lost, ...(id !== undefined ? [id] : [])] }, (k) => cfg.mine(op, k));
}

/** A patch of the sub-machine's fields, for any host's record (their fields are the sub-machine's). */
function patchOf<Op>(patch: Record<string, unknown>): OperationPatch<Op> {
  return patch as unknown as OperationPatch<Op>;
}

/** Emits and counts. */
function say<Ctx extends MintContext>(ctx: Ctx, memo: MintMemo, event: Parameters<typeof emit>[1]): void {
  memo.emitted++;
  emit(ctx, event);
}

/** The `mint` step: create the key (salvaging an answer read in part), record it. */
function mintStep<Op extends MintOp, Ctx extends MintContext>(cfg: MintConfig<Op, Ctx>, ctx: Ctx, op: Op, memo: MintMemo): Step<Op> {
  const record = cfg.record(ctx);
  const name = cfg.newKey(op).name;
  return step<Op, { made?: Awaited<ReturnType<typeof cfg.mint>>; err?: unknown }>(
    'mint',
    async () => {
      try {
        return { made: await cfg.mint(ctx, op) };
      } catch (err) {
        return { err };
      }
    },
    async ({ made, err }) => {
      let key: NewKey;
      if (made) {
        const { apiKey, ...answer } = made;
        key = { id: made.id, name: typeof made.name === 'string' ? made.name : name, apiKey, answer };
      } else {
        const salvaged = salvagedKeyOf(err);
        if (!salvaged) {
          // Refused: nothing was made, and a fresh operation ends. Else a key may exist: it stays at `creating`.
          if (!mayHaveCreated(err) && op.lost.length === 0 && op.targets.every((t) => t.state === 'pending' && t.ran !== true)) {
            await record.remove(op.id);
            ctx.drivers?.release(op.id, true);
          }
          throw err;
        }
        let id = salvaged.id;
        if (id === undefined) {
          // A list that cannot be read leaves the id unknown: the warning says so.
          const found = madeBy(cfg, op, await ctx.client.keys.list().catch(() => []));
          if (found.length === 1) id = found[0]!.id;
        }
        say(ctx, memo, { type: 'salvaged', kind: cfg.kind, problem: err instanceof Error ? err.message.replace(/\.$/, '') : String(err), field: salvaged.field, idKnown: id !== undefined });
        key = { id, name: salvaged.name ?? name, apiKey: salvaged.apiKey, answer: { ...(id !== undefined && { id }), name: salvaged.name ?? name } };
      }
      memo.key = key;
      const next = await record.update(
        op.id,
        patchOf<Op>({ state: cfg.mintedState(op), ...cfg.withNewKey(op, { ...(key.id !== undefined && { id: key.id }), fingerprint: keyFingerprint(key.apiKey) }), targets: resetTargets(op.targets) }),
      );
      say(ctx, memo, { type: 'minted', kind: cfg.kind, key: { id: key.id, name: key.name }, destinations: op.destinations.length });
      return next;
    },
  );
}

/**
 * The sub-machine's next step from `creating` or `created` (see the module comment), or its stop;
 * undefined at `delivered` once its cleanup is done (the host goes on).
 * @throws KeydeckApiError from the create and the lists; OperationError from the record
 */
export async function mintNext<Op extends MintOp, Ctx extends MintContext>(cfg: MintConfig<Op, Ctx>, ctx: Ctx, op: Op, memo: MintMemo): Promise<Next<Op, MintStop<Op>> | undefined> {
  const record = cfg.record(ctx);
  const current = cfg.newKey(op);
  if (op.state === 'creating') {
    if (memo.mode !== 'run' && !memo.done.has('find-made')) {
      memo.done.add('find-made');
      const made = madeBy(cfg, op, await listedKeys(ctx, memo));
      if (made.length > 0) {
        return {
          step: step('lose-made', undefined, async () => {
            say(ctx, memo, { type: 'made_unseen', kind: cfg.kind, keys: made.map((k) => ({ id: k.id, name: k.name })) });
            return record.update(op.id, patchOf<Op>({ lost: [...new Set([...op.lost, ...made.map((k) => k.id)])] }));
          }),
        };
      }
    }
    // A new key taken up without a destination goes to the screen: refused first where none can show it.
    if (memo.mode === 'finish' && op.destinations.length === 0 && memo.input.canShow === false) throw new OperationError({ code: 'cannot_show', kind: cfg.kind, name: current.name });
    const before = await cfg.beforeMint?.(ctx, op, memo);
    if (before) return { step: before };
    return { step: mintStep(cfg, ctx, op, memo) };
  }
  if (op.state === 'created') {
    if (!memo.key) {
      if (op.destinations.length === 0 && memo.input.shown) return { step: deliveredStep(cfg, ctx, op) };
      const listed = await listedKeys(ctx, memo);
      const isListed = current.id === undefined || listed.some((k) => k.id === current.id);
      const held = isListed ? await valueFromFiles(op.destinations, op.targets, current.fingerprint) : undefined;
      if (!held) {
        const lost = current.id !== undefined && isListed ? [current.id] : [];
        return {
          step: step('lose-value', undefined, async () => {
            if (lost.length > 0) say(ctx, memo, { type: 'value_lost', kind: cfg.kind, key: { id: lost[0]!, name: listed.find((k) => k.id === lost[0])?.name ?? current.name } });
            return record.update(op.id, patchOf<Op>({ state: 'creating', ...cfg.withNewKey(op, {}), lost: [...new Set([...op.lost, ...lost])], targets: resetTargets(op.targets) }));
          }),
        };
      }
      const answer = listed.find((k) => k.id === current.id) ?? { name: current.name };
      memo.key = { id: current.id, name: current.name, apiKey: held.value, answer: { ...answer } };
      memo.readBack = true;
      say(ctx, memo, { type: 'read_back', kind: cfg.kind, key: { id: current.id, name: current.name }, from: held.from });
    }
    if (op.destinations.length === 0) return memo.input.shown ? { step: deliveredStep(cfg, ctx, op) } : { stop: { kind: 'reveal', op, key: memo.key } };
    const next = await nextTargetStep({ ctx, op, save: (targets) => record.update(op.id, patchOf<Op>({ targets })) }, memo, memo.key.apiKey);
    if (next) return { step: next };
    if (allDelivered(op.targets, op.destinations)) return { step: deliveredStep(cfg, ctx, op) };
    return { stop: { kind: 'undelivered', op, key: memo.key, outcomes: [...memo.outcomes.entries()].sort(([a], [b]) => a - b).map(([, o]) => o) } };
  }
  if (op.state !== 'delivered') return undefined;
  if (ctx.deliveries && current.id !== undefined && op.destinations.length > 0 && !memo.done.has('remember')) {
    const deliveries = ctx.deliveries;
    const which = { profile: op.profile, origin: op.origin, keyId: current.id };
    const known = await deliveries.entry(which);
    // Remembered so that the next rotation goes to the same places (a failure costs only that); once is enough.
    if (!known || known.fingerprint !== current.fingerprint || !samePlaces(known.destinations, op.destinations)) {
      return { step: step('remember', () => deliveries.remember(which, op.destinations, current.fingerprint).catch(() => undefined)) }; // remembered for the next rotation only; a failure costs only that
    }
    memo.done.add('remember');
  }
  const lost = op.lost.find((id) => !memo.done.has(`delete-lost:${id}`));
  if (lost !== undefined) {
    return {
      step: step(
        `delete-lost:${lost}`,
        () => deleteQuietly(() => ctx.client.keys.delete(lost)),
        async (gone: boolean) => (gone ? record.update(op.id, patchOf<Op>({ lost: op.lost.filter((id) => id !== lost) })) : op),
      ),
    };
  }
  return undefined;
}

/** The step that records `delivered`. */
function deliveredStep<Op extends MintOp, Ctx extends MintContext>(cfg: MintConfig<Op, Ctx>, ctx: Ctx, op: Op): Step<Op> {
  return step('delivered', undefined, async () => cfg.record(ctx).update(op.id, patchOf<Op>({ state: 'delivered', ...cfg.deliveredPatch?.(op) })));
}

/**
 * What an undo reads once, at its first turn: the keys listed, and the new keys of the operation
 * among them (its own by id; while `creating`, those it may have made).
 * @throws KeydeckApiError from the list
 */
export async function undoListing<Op extends MintOp, Ctx extends MintContext>(cfg: MintConfig<Op, Ctx>, ctx: Ctx, op: Op, memo: MintMemo): Promise<NonNullable<MintMemo['undo']>> {
  if (!memo.undo) {
    const listed = await ctx.client.keys.list();
    const id = cfg.newKey(op).id;
    memo.undo = { listed, current: id !== undefined ? [id] : op.state === 'creating' ? madeBy(cfg, op, listed).map((k) => k.id) : [] };
  }
  return memo.undo;
}

/**
 * The next step of an undo (see the module comment), ending with the host's own undo steps, the
 * copies of previous content removed and the record's entry removed (`undone` is the outcome).
 * @throws KeydeckApiError from the list
 */
export async function mintUndoNext<Op extends MintOp, Ctx extends MintContext, Out>(cfg: MintConfig<Op, Ctx>, ctx: Ctx, op: Op, memo: MintMemo, undone: () => Out): Promise<Next<Op, Out>> {
  const current = cfg.newKey(op);
  const { listed, current: made } = await undoListing(cfg, ctx, op, memo);
  const isListed = (id: string) => listed.some((k) => k.id === id);
  const counted = { ...ctx, emit: (e: Parameters<typeof emit>[1]) => say(ctx, memo, e) };
  const restore = nextUndoTargetStep<Op>(counted, op, current.fingerprint, memo);
  if (restore) return { step: restore };
  for (const id of made.filter(isListed)) {
    if (memo.done.has(`undo-key:${id}`)) continue;
    if (memo.holders.length > 0) {
      const holders = [...memo.holders];
      if (cfg.keepOnUndo) {
        const keep = cfg.keepOnUndo;
        return { step: step(`undo-key:${id}`, async () => say(ctx, memo, { type: 'kept', kind: cfg.kind, key: { id, name: await keep(ctx, op, id) }, holders })) };
      }
      memo.done.add(`undo-key:${id}`);
      say(ctx, memo, { type: 'kept', kind: cfg.kind, key: { id, name: current.name }, holders });
      continue;
    }
    return {
      step: step(`undo-key:${id}`, async () => say(ctx, memo, { type: 'deleted', kind: cfg.kind, key: { id, name: current.name }, ok: await deleteQuietly(() => ctx.client.keys.delete(id)) })),
    };
  }
  const ran = op.destinations.some((d, i) => d.kind === 'command' && op.targets[i]?.ran === true);
  for (const id of op.lost.filter(isListed)) {
    if (memo.done.has(`undo-lost:${id}`)) continue;
    if (ran) {
      memo.done.add(`undo-lost:${id}`);
      say(ctx, memo, { type: 'earlier', kind: cfg.kind, id, deleted: false });
      continue;
    }
    return {
      step: step(`undo-lost:${id}`, async () => {
        if (await deleteQuietly(() => ctx.client.keys.delete(id))) say(ctx, memo, { type: 'earlier', kind: cfg.kind, id, deleted: true });
      }),
    };
  }
  const host = await cfg.undoHost?.(ctx, op, memo);
  if (host) return { step: host };
  return { step: endStep(cfg.record(ctx), op, memo, undone, memo.keptBackups) };
}

/**
 * The last steps of an operation: the copies of previous content removed (but `keep`), then its
 * record's entry removed; the drive's outcome is `outcome()`. Going forward (not an undo), the
 * operation is recorded `ending` first: once a copy is gone its destination cannot be put back, so
 * from there a finish and an undo both end it.
 */
export function endStep<Op extends MintOp, Out>(record: MachineRecord<Op, Op['state']>, op: Op, memo: DriveMemo<unknown>, outcome: () => Out, keep: readonly string[] = []): Step<Op> {
  if (memo.mode !== 'undo' && op.state !== 'ending') return step('ending', undefined, () => record.update(op.id, patchOf<Op>({ state: 'ending' })));
  if (!memo.done.has('drop-backups') && op.targets.some((t) => t.backup !== undefined && !keep.includes(t.backup))) {
    return step('drop-backups', () => dropBackups(op.targets, keep));
  }
  return step<Op, unknown>('end', undefined, async (): Promise<Ended<Out>> => {
    await record.remove(op.id);
    return { ended: outcome() };
  });
}
