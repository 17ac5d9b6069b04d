/**
 * Create and deliver a key (issue 26, issue 42): `keys create [--to-file …] [--to-command …]`, the
 * TUI's `n`, and a pledge's key (`--subscription`, ./pledgeKey.ts, the same machine with what
 * differs there), as a persisted state machine. Every destination is checked before anything is
 * created (I5); the record (./record.ts, `operations.json`) is written before each effect; each
 * destination's progress is in its `targets` (./targets.ts). The command line (`--finish`,
 * `--undo`, a plain rerun of the same command) and the TUI's next start drive the same steps.
 *
 * | stage       | what is true                                                                 | finish, rerun, the TUI's next start | undo |
 * |-------------|------------------------------------------------------------------------------|-------------------------------------|------|
 * | (none)      | the destinations were checked; nothing exists yet                            | —                                    | —    |
 * | `creating`  | the create request may have been sent: a key may exist, its value unknown     | keys of that name made since are lost (their value never reached the record): a new key is made, the lost ones deleted once it is delivered | keys of that name made since are deleted |
 * | `created`   | the key exists (id, fingerprint); each destination `pending`, `writing` (its previous content kept beside it), `written`, `running`, `took` or `failed` | the value is read back from a file that holds it (by fingerprint) and delivered to the rest; when none holds it the key is lost: a new one, as above | every file that holds the key gets back what it held before; the key is deleted, unless a command took it (it is kept, and the command named) |
 * | `showing`   | no destination: the key is on the screen (or in `--json`)                     | whether it was seen cannot be known: the key is named with the command that deletes it | the key is deleted |
 * | (ended)     | every destination holds the key; where it went is remembered (`deliveries.json`), the lost keys deleted, the copies of previous content removed | | |
 *
 * Crash points (src/failpoints): the record's writes (`file.renamed:operations.json`), the create
 * request and its answer (`request:`/`answered:createCreditKey`, `…createSubscriptionKey`), each
 * copy and file write (`file.renamed:<name>.keydeck-before`, `file.renamed:<name>`), each command
 * (`command.spawned:`/`command.exited:<program>`), and the delivery record
 * (`file.renamed:deliveries.json`). docs/crash-safety.md has the table the harness walks.
 *
 * A creating answer that cannot be fully read but holds the key value (src/api/salvage.ts) goes on
 * with that value and a warning naming what was unexpected (I2). Nothing here holds a key value
 * beyond the call that delivers or returns it.
 */
import type { KeysResource } from '../api/client.js';
import { KeydeckApiError } from '../api/errors.js';
import { salvagedKeyOf } from '../api/salvage.js';
import { checkDestinations, type DeliveryOptions, type DeliveryOutcome } from '../delivery/deliver.js';
import type { DeliveryRecord } from '../delivery/deliveryRecord.js';
import { describeDestination, samePlaces, type Destination } from '../delivery/destinations.js';
import { keyFingerprint } from '../delivery/fingerprint.js';
import { mayHaveCreated, salvageWarning, untouched } from './creating.js';
import { activeLost, keysMadeBy } from './pledgeKey.js';
import type { OperationDrivers } from './drivers.js';
import { OperationRecordError, type KeyOperation, type OperationRecord } from './record.js';
import { allDelivered, deliverTargets, dropBackups, pendingTargets, resetTargets, undoTargets, valueFromFiles } from './targets.js';

/** How long before an operation's start a key found by name counts as its own, ms (clock skew, slow answers). */
export const FOUND_BY_NAME_WINDOW_MS = 10 * 60_000;

/** What the steps work with. */
export interface KeyOperationContext {
  readonly client: { readonly keys: Pick<KeysResource, 'list' | 'createCredit' | 'createSubscription' | 'update' | 'delete'> };
  readonly record: OperationRecord;
  readonly delivery: DeliveryOptions;
  /** Where keys were delivered: remembered there once delivered (best effort). */
  readonly deliveries?: DeliveryRecord;
  readonly profile: string;
  /** The service origin. */
  readonly origin: string;
  /** The operations this context drives (./drivers.ts); absent: no locking (a test of the steps alone). */
  readonly drivers?: OperationDrivers;
}

/** A key just created: its value for the one call that delivers or shows it. */
export interface NewKey {
  /** Undefined only when an answer that could not be read had no id and the list did not tell. */
  readonly id: string | undefined;
  readonly name: string;
  readonly apiKey: string;
  /** What the service said of it, without the value (for `--json`). */
  readonly answer: Record<string, unknown>;
}

/** What to create. */
export interface CreatePlan {
  readonly kind: KeyOperation['kind'];
  readonly name: string;
  readonly subscriptionId?: string;
  readonly destinations: readonly Destination[];
}

/**
 * Checks every destination (I5) and records the operation (`creating`).
 * @throws DeliveryError `destination_refused`; OperationRecordError when one of that name is unfinished
 */
export async function beginCreate(ctx: KeyOperationContext, plan: CreatePlan): Promise<KeyOperation> {
  await checkDestinations(plan.destinations, { ...(ctx.delivery.env && { env: ctx.delivery.env }) });
  const op = await ctx.record.start({
    kind: plan.kind,
    profile: ctx.profile,
    origin: ctx.origin,
    name: plan.name,
    ...(plan.subscriptionId !== undefined && { subscriptionId: plan.subscriptionId }),
    destinations: plan.destinations.map((d) => (d.kind === 'command' ? { ...d, argv: [...d.argv] } : { ...d })),
    targets: pendingTargets(plan.destinations),
  });
  await ctx.drivers?.take(op.id);
  return op;
}

/**
 * Takes operation `op` for this context before a finish or an undo.
 * @throws OperationRecordError when another keydeck drives it now (it is in progress, not interrupted)
 */
async function takeUp(ctx: KeyOperationContext, op: KeyOperation): Promise<void> {
  if (ctx.drivers && !(await ctx.drivers.take(op.id))) {
    throw new OperationRecordError(`the creation of the key "${op.name}" is in progress in another keydeck (another shell, the TUI): let it end first`);
  }
}

/**
 * Creates the key of an operation at `creating` (a pledge's lost keys deactivated first) and
 * records it (`created`, or `showing` without destinations).
 * @returns the operation as recorded, the key, and warnings (an answer read only in part)
 * @throws KeydeckApiError from the create (a refusal removes a fresh operation from the record;
 *   an unknown outcome leaves it at `creating` for the finish)
 */
export async function createStep(ctx: KeyOperationContext, op: KeyOperation): Promise<{ op: KeyOperation; key: NewKey; warnings: string[] }> {
  const warnings: string[] = [];
  if (op.kind === 'pledge' && op.lost.length > 0) {
    for (const k of activeLost(op, await ctx.client.keys.list())) await ctx.client.keys.update(k.id, { isActive: false });
  }
  let key: NewKey;
  try {
    const made =
      op.kind === 'pledge' && op.subscriptionId !== undefined
        ? await ctx.client.keys.createSubscription({ name: op.name, subscriptionId: op.subscriptionId })
        : await ctx.client.keys.createCredit({ name: op.name });
    const { apiKey, ...answer } = made;
    key = { id: made.id, name: typeof made.name === 'string' ? made.name : op.name, apiKey, answer };
  } catch (err) {
    const salvaged = salvagedKeyOf(err);
    if (!salvaged) {
      // A key may exist all the same: the record stays at `creating` for the finish to find it.
      if (!mayHaveCreated(err) && untouched(op.lost, op.targets)) {
        await ctx.record.remove(op.id);
        ctx.drivers?.release(op.id, true);
      }
      throw err;
    }
    let id = salvaged.id;
    if (id === undefined) {
      const made = keysMadeBy(op, await ctx.client.keys.list().catch(() => []), FOUND_BY_NAME_WINDOW_MS);
      if (made.length === 1) id = made[0]!.id;
    }
    warnings.push(salvageWarning(err, salvaged, 'the key', id !== undefined));
    key = { id, name: salvaged.name ?? op.name, apiKey: salvaged.apiKey, answer: { ...(id !== undefined && { id }), name: salvaged.name ?? op.name } };
  }
  const next = await ctx.record.update(op.id, {
    stage: op.destinations.length > 0 ? 'created' : 'showing',
    key: { ...(key.id !== undefined && { id: key.id }), fingerprint: keyFingerprint(key.apiKey) },
    targets: resetTargets(op.targets),
  });
  return { op: next, key, warnings };
}

/**
 * Delivers the key of an operation at `created` to every destination that does not hold it yet;
 * once all do, the operation ends ({@link endCreate}).
 * @returns the outcomes, and the operation when it is still recorded (a destination failed)
 */
export async function deliverStep(ctx: KeyOperationContext, op: KeyOperation, key: NewKey): Promise<{ op?: KeyOperation; outcomes: DeliveryOutcome[] }> {
  let current = op;
  const io = {
    operationId: op.id,
    destinations: op.destinations,
    delivery: ctx.delivery,
    save: async (targets: KeyOperation['targets']) => {
      current = await ctx.record.update(op.id, { targets });
    },
  };
  const { targets, outcomes } = await deliverTargets(io, key.apiKey, op.targets);
  if (!allDelivered(targets, op.destinations)) return { op: current, outcomes };
  await endCreate(ctx, current);
  return { outcomes };
}

/** Deletes a consumption key; true when it is gone (also when it already was). */
async function deleteQuietly(ctx: KeyOperationContext, id: string): Promise<boolean> {
  try {
    await ctx.client.keys.delete(id);
    return true;
  } catch (err) {
    return err instanceof KeydeckApiError && err.code === 'not_found';
  }
}

/**
 * Ends an operation whose key is delivered everywhere, or was shown (and acknowledged, in the TUI):
 * where it went is remembered, the lost keys deleted, the copies of previous content removed, the
 * record's entry removed.
 */
export async function endCreate(ctx: KeyOperationContext, op: KeyOperation): Promise<void> {
  if (ctx.deliveries && op.key.id !== undefined && op.destinations.length > 0) {
    await ctx.deliveries.remember({ profile: op.profile, origin: op.origin, keyId: op.key.id }, op.destinations, op.key.fingerprint).catch(() => undefined);
  }
  for (const id of op.lost) await deleteQuietly(ctx, id);
  await dropBackups(op.targets);
  await ctx.record.remove(op.id);
  ctx.drivers?.release(op.id, true);
}

/**
 * The key a finished run of the same command made (a rerun after keydeck was killed once the
 * operation had ended: its record is gone, the world is not): an active key of that name that
 * keydeck delivered to exactly these destinations, which a file destination holds (by
 * fingerprint) or, without a file, that was delivered less than {@link FOUND_BY_NAME_WINDOW_MS}
 * ago. Undefined when there is none (then the command makes a key). Never throws.
 */
export async function alreadyDone(ctx: KeyOperationContext, plan: CreatePlan): Promise<{ id: string; at: string } | undefined> {
  if (!ctx.deliveries || plan.destinations.length === 0) return undefined;
  try {
    for (const k of (await ctx.client.keys.list()).filter((k) => k.name === plan.name && k.isActive)) {
      const entry = await ctx.deliveries.entry({ profile: ctx.profile, origin: ctx.origin, keyId: k.id });
      if (!entry || !samePlaces(entry.destinations, plan.destinations)) continue;
      const file = plan.destinations.find((d) => d.kind === 'file');
      const held = file !== undefined ? entry.fingerprint !== undefined && (await valueFromFiles([file], [{ state: 'written' }], entry.fingerprint)) !== undefined : Date.now() - Date.parse(entry.at) < FOUND_BY_NAME_WINDOW_MS;
      if (held) return { id: k.id, at: entry.at };
    }
  } catch {
    // Unknown: the command goes on and makes a key.
  }
  return undefined;
}

/** Where {@link resumeCreate} leaves an interrupted operation. */
export type Resumed =
  /** Go on: with `key`, deliver it ({@link deliverStep}); without, create a new one ({@link createStep}). */
  | { readonly ended: false; readonly op: KeyOperation; readonly key?: NewKey; readonly said: string[] }
  /** Nothing is left to do (a key that was being shown). */
  | { readonly ended: true; readonly said: string[] };

/**
 * Takes up an interrupted operation (finish, rerun, the TUI's next start), reading the world first:
 * the service's key list and each file destination (see the stage table).
 * @throws KeydeckApiError from the list; OperationRecordError (also when another keydeck drives it now)
 */
export async function resumeCreate(ctx: KeyOperationContext, op: KeyOperation): Promise<Resumed> {
  await takeUp(ctx, op);
  const keys = await ctx.client.keys.list();
  const label = (id: string) => `"${keys.find((k) => k.id === id)?.name ?? op.name}" (id ${id})`;
  if (op.stage === 'showing') {
    const listed = op.key.id !== undefined && keys.some((k) => k.id === op.key.id);
    const said = listed
      ? [`the key ${label(op.key.id!)} was being shown when keydeck stopped; if its value was not kept, delete it: keydeck keys delete ${op.key.id}`]
      : [`the key "${op.name}" that was being shown no longer exists`];
    await endCreate(ctx, op);
    return { ended: true, said };
  }
  if (op.stage === 'created') {
    const listed = op.key.id === undefined || keys.some((k) => k.id === op.key.id);
    const value = listed ? await valueFromFiles(op.destinations, op.targets, op.key.fingerprint) : undefined;
    if (value !== undefined) {
      const from = op.destinations.find((d, i) => d.kind === 'file' && op.targets[i]?.state !== 'pending');
      const answer = keys.find((k) => k.id === op.key.id) ?? { name: op.name };
      return { ended: false, op, key: { id: op.key.id, name: op.name, apiKey: value, answer: { ...answer } }, said: [`the key "${op.name}" was read back from ${from ? describeDestination(from) : 'its file'}, which holds it`] };
    }
    const lost = op.key.id !== undefined && listed ? [op.key.id] : [];
    const next = await ctx.record.update(op.id, { stage: 'creating', key: {}, lost: [...new Set([...op.lost, ...lost])], targets: resetTargets(op.targets) });
    const said = lost.length > 0 ? [`the value of the key ${label(lost[0]!)} is gone (keydeck never stores a key, and no file destination holds it): a new key is made, and the lost one deleted once that is delivered`] : [];
    return { ended: false, op: next, said };
  }
  const made = keysMadeBy(op, keys, FOUND_BY_NAME_WINDOW_MS).map((k) => k.id);
  const next = made.length > 0 ? await ctx.record.update(op.id, { lost: [...new Set([...op.lost, ...made])] }) : op;
  const said = made.map((id) => `the key ${label(id)} was created, but its value never reached keydeck: a new key is made, and this one deleted once that is delivered`);
  return { ended: false, op: next, said };
}

/**
 * Undoes an interrupted (or failed) operation: each file that holds its key gets back what it held
 * before; the key and the lost ones are deleted, except a key a command took or may have taken
 * (kept, and named with the command: a command cannot be undone).
 * @returns sentences saying what was done
 */
export async function undoCreate(ctx: KeyOperationContext, op: KeyOperation): Promise<string[]> {
  await takeUp(ctx, op);
  const keys = await ctx.client.keys.list();
  const listed = (id: string) => keys.some((k) => k.id === id);
  const current = op.key.id !== undefined ? [op.key.id] : op.stage === 'creating' ? keysMadeBy(op, keys, FOUND_BY_NAME_WINDOW_MS).map((k) => k.id) : [];
  const undone = await undoTargets(op.destinations, op.targets, op.key.fingerprint, ctx.delivery.lockDir);
  const said = [...undone.said];
  const ran = op.destinations.some((d, i) => d.kind === 'command' && op.targets[i]?.ran === true);
  for (const id of current.filter(listed)) {
    if (undone.holders.length > 0) {
      said.push(`kept the key "${op.name}" (id ${id}): ${undone.holders.map(describeDestination).join(', ')} ${undone.holders.length === 1 ? 'holds' : 'hold'} it; delete it with keydeck keys delete ${id} once nothing needs it`);
    } else {
      said.push((await deleteQuietly(ctx, id)) ? `deleted the key "${op.name}" (id ${id})` : `could not delete the key ${id}: delete it with keydeck keys delete ${id}`);
    }
  }
  for (const id of op.lost.filter(listed)) {
    if (ran) said.push(`kept the earlier key ${id}, whose value was lost: a command may hold it; delete it with keydeck keys delete ${id} once nothing needs it`);
    else if (await deleteQuietly(ctx, id)) said.push(`deleted the earlier key ${id}, whose value was lost`);
  }
  await dropBackups(op.targets, undone.keptBackups);
  await ctx.record.remove(op.id);
  ctx.drivers?.release(op.id, true);
  return said;
}
