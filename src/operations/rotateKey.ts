/**
 * Rotating a consumption key without downtime (issue 26, issue 42, issue 46 item 1): `keys rotate`
 * and the TUI's `R` drive this machine; the record is src/delivery/rotationRecord.ts
 * (`rotations.json`, shared with `mgmt-keys rotate`, whose stages are its own), written before
 * each effect; each destination's progress is in `targets` (./targets.ts). Recovery is
 * ./rotateRecovery.ts (`--finish`, `--undo`, a rerun of the same command, the TUI's next start).
 *
 * By default the successor takes the old key's name and the old key is renamed
 * `NAME (rotated YYYY-MM-DD)` once the successor is delivered: the key in use keeps the name a job
 * names, so a rotation from cron can run again and again (`--name` picks another name; then the
 * old key keeps its own). An inactive key is not rotated (nothing uses it; its lineage's active
 * key is). No key is ever deactivated or deleted before its successor reached every destination.
 *
 * | stage       | what is true                                                               | finish, rerun, the TUI's next start | undo |
 * |-------------|----------------------------------------------------------------------------|-------------------------------------|------|
 * | (none)      | the old key was checked (a credit key, active); the destinations too (I5)  | —                                   | —    |
 * | `creating`  | the successor may have been created (id and value unknown)                 | successors found by name and time are lost: a new one is created and delivered, the lost ones deleted once it is | successors found by name and time are deleted |
 * | `created`   | the successor exists (id, fingerprint); each destination `pending`, `writing` (its previous content kept beside it), `written`, `running`, `took` or `failed` | its value read back from a file that holds it, delivered to the rest; none holds it: lost, as above | every file holding the successor gets back what it held (the old key); the successor deleted, unless a command took it (kept, renamed `NAME (kept after undo)`, the command named) |
 * | `delivered` | every destination holds the successor; the old key renamed (when the successor took its name); the grace, the last use and the old key's fate (`--old`) are next | the names settled, then the handover: deactivate, delete or keep the old key | as `created`; the old key's name put back, and the old key reactivated if keydeck had deactivated it |
 * | (ended)     | the old key handled, the copies of previous content removed                |                                     |      |
 *
 * Crash points (src/failpoints): the record's writes (`file.renamed:rotations.json`), the create
 * (`request:`/`answered:createCreditKey`), each copy and file write, each command, the delivery
 * record (`deliveries.json`), the renames and the old key's update or delete (`request:`/
 * `answered:updateKey`, `…deleteKey`). docs/crash-safety.md has the table the harness walks.
 */
import type { KeysResource } from '../api/client.js';
import { KeydeckApiError } from '../api/errors.js';
import { keyStatus } from '../api/keyStatus.js';
import { salvagedKeyOf } from '../api/salvage.js';
import type { ConsumptionKey } from '../api/schemas.js';
import { checkDestinations, type DeliveryOptions, type DeliveryOutcome } from '../delivery/deliver.js';
import type { DeliveryRecord } from '../delivery/deliveryRecord.js';
import type { Destination } from '../delivery/destinations.js';
import { keyFingerprint } from '../delivery/fingerprint.js';
import { RotationError, rotatedName, subscriptionRefusal } from '../delivery/rotation.js';
import { RotationRecordError, type OldKeyAction, type Rotation, type RotationRecord } from '../delivery/rotationRecord.js';
import { mayHaveCreated, salvageWarning, untouched } from './creating.js';
import type { OperationDrivers } from './drivers.js';
import { allDelivered, deliverTargets, dropBackups, pendingTargets, resetTargets } from './targets.js';

/**
 * What the steps work with: the client's consumption keys (a `KeydeckClient`, or the TUI's
 * `AccountClient`), the service's clock offset (`lastUsedAt` is the service's time), the record,
 * and delivery.
 */
export interface RotationContext {
  readonly client: { readonly keys: Pick<KeysResource, 'list' | 'createCredit' | 'update' | 'delete'>; readonly serviceClockOffsetMs?: number | undefined };
  readonly record: RotationRecord;
  readonly delivery: DeliveryOptions;
  /** Where keys were delivered: the successor is remembered there once delivered (best effort). */
  readonly deliveries?: DeliveryRecord;
  /** The operations this context drives (./drivers.ts); absent: no locking (a test of the steps alone). */
  readonly drivers?: OperationDrivers;
}

/** The old key's name as the service lists it once its successor is delivered (`web (rotated 2026-11-28)`, or its own). */
export function oldName(rotation: Rotation): string {
  return rotation.stage === 'delivered' ? (rotation.old.rotatedName ?? rotation.old.name) : rotation.old.name;
}

/** What {@link beginRotation} needs. */
export interface RotationPlan {
  readonly profile: string;
  /** The service origin (src/credentials/origin.ts `originOf`). */
  readonly origin: string;
  readonly old: ConsumptionKey;
  /** The successor's name: the old key's (default; the old key is then renamed) or another. */
  readonly successorName?: string;
  /** The other keys' names (for the old key's new name). */
  readonly taken?: readonly string[];
  readonly destinations: readonly Destination[];
  readonly oldAction?: OldKeyAction;
  /** `--grace`, ms after delivery before the old key is handled. */
  readonly graceMs?: number;
}

/** A successor just created: its value for the one call that delivers or shows it. */
export interface Successor {
  readonly id: string | undefined;
  readonly name: string;
  readonly apiKey: string;
  /** What the service said of it, without the value. */
  readonly answer: Record<string, unknown>;
}

/**
 * Checks the old key (a credit key, active), checks every destination (I5), and records the
 * rotation (`creating`).
 * @throws RotationError `subscription_key`, `key_inactive`, `rotation_pending`; DeliveryError `destination_refused`
 */
export async function beginRotation(ctx: RotationContext, plan: RotationPlan): Promise<Rotation> {
  if (plan.old.keyType === 'subscription') throw new RotationError('subscription_key', subscriptionRefusal(plan.old));
  if (keyStatus(plan.old) !== 'active') {
    throw new RotationError('key_inactive', `the key "${plan.old.name}" (id ${plan.old.id}) is not active: a rotation replaces a key in use, and nothing uses this one; rotate the active key of its lineage (keydeck keys list)`);
  }
  await checkDestinations(plan.destinations, { ...(ctx.delivery.env && { env: ctx.delivery.env }) });
  const name = plan.successorName ?? plan.old.name;
  const keepsName = name === plan.old.name;
  try {
    const rotation = await ctx.record.start({
      kind: 'consumption',
      profile: plan.profile,
      origin: plan.origin,
      old: { id: plan.old.id, name: plan.old.name, wasActive: true, ...(keepsName && { rotatedName: rotatedName(plan.old.name, new Date(), plan.taken ?? []) }) },
      successor: { name },
      destinations: plan.destinations.map((d) => (d.kind === 'command' ? { ...d, argv: [...d.argv] } : { ...d })),
      targets: pendingTargets(plan.destinations),
      ...(plan.oldAction && { oldAction: plan.oldAction }),
      ...(plan.graceMs !== undefined && plan.graceMs > 0 && { graceMs: plan.graceMs }),
    });
    await ctx.drivers?.take(rotation.id);
    return rotation;
  } catch (err) {
    if (err instanceof RotationRecordError && /unfinished rotation/.test(err.message)) throw new RotationError('rotation_pending', err.message);
    throw err;
  }
}

/**
 * Creates the successor (§4 `POST /api/keys/credit`) and records its id and fingerprint
 * (`created`). An answer that cannot be fully read but holds the value goes on with it (`warnings`
 * says what was unexpected). A refusal removes a fresh rotation from the record; an unknown
 * outcome leaves it at `creating` (finish or undo finds the successor by name).
 * @throws KeydeckApiError from the create
 */
export async function createSuccessor(ctx: RotationContext, rotation: Rotation): Promise<{ rotation: Rotation; created: Successor; warnings: string[] }> {
  const warnings: string[] = [];
  let created: Successor;
  try {
    const { apiKey, ...answer } = await ctx.client.keys.createCredit({ name: rotation.successor.name });
    created = { id: answer.id, name: answer.name, apiKey, answer };
  } catch (err) {
    const salvaged = salvagedKeyOf(err);
    if (!salvaged) {
      // The successor may exist all the same: the record stays at `creating` for the finish to find it.
      if (!mayHaveCreated(err) && untouched(rotation.orphans, rotation.targets)) {
        await ctx.record.remove(rotation.id);
        ctx.drivers?.release(rotation.id, true);
      }
      throw err;
    }
    warnings.push(salvageWarning(err, salvaged, 'the successor', salvaged.id !== undefined));
    created = { id: salvaged.id, name: salvaged.name ?? rotation.successor.name, apiKey: salvaged.apiKey, answer: { ...(salvaged.id !== undefined && { id: salvaged.id }), name: salvaged.name ?? rotation.successor.name } };
  }
  const next = await ctx.record.update(rotation.id, {
    stage: 'created',
    successor: { name: rotation.successor.name, ...(created.id !== undefined && { id: created.id }), fingerprint: keyFingerprint(created.apiKey) },
    targets: resetTargets(rotation.targets),
    delivered: [],
  });
  return { rotation: next, created, warnings };
}

/** The indexes of the destinations that hold the successor (`written`, `took`). */
function deliveredIndexes(targets: Rotation['targets']): number[] {
  return targets.flatMap((t, i) => (t.state === 'written' || t.state === 'took' ? [i] : []));
}

/**
 * Delivers the successor's `key` to every destination that does not hold it yet, each step in the
 * record; once all do, {@link markDelivered}.
 */
export async function deliverSuccessor(ctx: RotationContext, rotation: Rotation, key: string): Promise<{ rotation: Rotation; outcomes: DeliveryOutcome[] }> {
  let current = rotation;
  const io = {
    operationId: rotation.id,
    destinations: rotation.destinations,
    delivery: ctx.delivery,
    save: async (targets: Rotation['targets']) => {
      current = await ctx.record.update(rotation.id, { targets, delivered: deliveredIndexes(targets) });
    },
  };
  const { targets, outcomes } = await deliverTargets(io, key, rotation.targets);
  if (!allDelivered(targets, rotation.destinations)) return { rotation: current, outcomes };
  return { rotation: await markDelivered(ctx, current), outcomes };
}

/** Deletes a consumption key; true when it is gone (also when it already was). */
export async function deleteQuietly(client: RotationContext['client'], id: string): Promise<boolean> {
  try {
    await client.keys.delete(id);
    return true;
  } catch (err) {
    return err instanceof KeydeckApiError && err.code === 'not_found';
  }
}

/**
 * Records that every destination holds the successor (`delivered`; also after the user put a key
 * shown on screen in place), remembers where it went, deletes the lost successors of earlier
 * tries, and settles the names ({@link settleNames}).
 */
export async function markDelivered(ctx: RotationContext, rotation: Rotation): Promise<Rotation> {
  let next =
    rotation.stage === 'delivered'
      ? rotation
      : await ctx.record.update(rotation.id, {
          stage: 'delivered',
          delivered: rotation.destinations.map((_, i) => i),
          deliveredAt: new Date().toISOString(),
          // The grace runs from the delivery: the time the application has to pick up the successor.
          ...(rotation.graceMs !== undefined && { graceUntil: new Date(Date.now() + rotation.graceMs).toISOString() }),
        });
  if (ctx.deliveries && next.successor.id !== undefined && next.destinations.length > 0) {
    // Remembered so that the next rotation goes to the same places; a failure costs only that.
    await ctx.deliveries.remember({ profile: next.profile, origin: next.origin, keyId: next.successor.id }, next.destinations, next.successor.fingerprint).catch(() => undefined);
  }
  const left: string[] = [];
  for (const id of next.orphans) if (!(await deleteQuietly(ctx.client, id))) left.push(id);
  if (left.length !== next.orphans.length) next = await ctx.record.update(rotation.id, { orphans: left });
  await settleNames(ctx, next);
  return next;
}

/**
 * When the successor took the old key's name: renames the old key `NAME (rotated DATE)` unless the
 * service already lists it so (the world says whether it was done). A failure is left for the
 * finish (the handover still runs): never an error.
 * @returns a sentence when it renamed, else undefined
 */
export async function settleNames(ctx: RotationContext, rotation: Rotation): Promise<string | undefined> {
  const to = rotation.old.rotatedName;
  if (to === undefined) return undefined;
  try {
    const old = (await ctx.client.keys.list()).find((k) => k.id === rotation.old.id);
    if (!old || old.name === to) return undefined;
    await ctx.client.keys.update(rotation.old.id, { name: to });
    return `renamed the old key "${rotation.old.name}" to "${to}": its successor is "${rotation.successor.name}" now`;
  } catch {
    return undefined;
  }
}

/**
 * The last step: deactivates, deletes or keeps the old key, then ends the rotation (the copies of
 * previous content removed, the record's entry removed).
 * @returns one sentence saying what was done
 * @throws RotationError `not_delivered` unless the rotation is at `delivered` (no key is touched
 *   before its successor is in place); KeydeckApiError from the update or delete (it stays recorded)
 */
export async function handleOldKey(ctx: RotationContext, rotation: Rotation, action: OldKeyAction): Promise<string> {
  if (rotation.stage !== 'delivered') {
    throw new RotationError('not_delivered', `the successor of "${rotation.old.name}" has not reached every destination, so the old key is left as it is`);
  }
  const label = `the old key "${oldName(rotation)}" (id ${rotation.old.id})`;
  let sentence: string;
  if (action === 'deactivate') {
    try {
      await ctx.client.keys.update(rotation.old.id, { isActive: false });
      sentence = `deactivated ${label}: it is refused from now on until reactivated`;
    } catch (err) {
      // Deleted elsewhere meanwhile: it is refused all the same, and the rotation is done.
      if (!(err instanceof KeydeckApiError) || err.code !== 'not_found') throw err;
      sentence = `${label} no longer exists (deleted elsewhere), so there was nothing to deactivate`;
    }
  } else if (action === 'delete') {
    try {
      await ctx.client.keys.delete(rotation.old.id);
    } catch (err) {
      // Already gone (a delete whose answer was lost, say): what was asked is true.
      if (!(err instanceof KeydeckApiError) || err.code !== 'not_found') throw err;
    }
    sentence = `deleted ${label} for good`;
  } else {
    sentence = `kept ${label} active, as asked: both keys work until you disable it`;
  }
  await dropBackups(rotation.targets);
  await ctx.record.remove(rotation.id);
  ctx.drivers?.release(rotation.id, true);
  return sentence;
}
