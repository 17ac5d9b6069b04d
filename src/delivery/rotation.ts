/**
 * Rotating a consumption key without downtime (issue 26), one step at a time so that the command
 * line (`keydeck keys rotate`) and the TUI (`R` on the Keys pane) walk the same steps and each
 * step is in the record (./rotationRecord.ts) before the next begins:
 *
 * 1. {@link beginRotation}: the old key is looked up and checked (a subscription key cannot be
 *    rotated: {@link subscriptionRefusal}), the rotation is recorded (`creating`);
 * 2. {@link createSuccessor}: §4 `POST /api/keys/credit` with the successor's name (`created`);
 * 3. {@link deliverSuccessor}: the successor goes to every destination (`delivered` once all hold
 *    it); unfinished successors of an earlier try are deleted then (nothing holds them any more);
 * 4. the faces show the old key's last use ({@link lastUseOf}; `lastUsedAt` where the service
 *    sends it) and may wait until it is idle ({@link waitUntilIdle});
 * 5. {@link handleOldKey}: deactivate, delete or keep it; the rotation is then finished.
 *
 * {@link handleOldKey} refuses any rotation not at `delivered`: no key is ever deactivated without
 * its successor having been delivered. {@link restartRotation} and {@link undoRotation} are the
 * two ways out of an interrupted one. Nothing here holds a key value beyond the call that
 * delivers it.
 */
import type { KeysResource } from '../api/client.js';
import { KeydeckApiError } from '../api/errors.js';
import { keyStatus } from '../api/keyStatus.js';
import { MAX_NAME_LENGTH, type ConsumptionKey, type CreatedConsumptionKey } from '../api/schemas.js';
import { deliverKey, type DeliveryOptions, type DeliveryOutcome } from './deliver.js';
import type { DeliveryRecord } from './deliveryRecord.js';
import type { Destination } from './destinations.js';
import { RotationRecordError, type OldKeyAction, type Rotation, type RotationRecord } from './rotationRecord.js';

/**
 * The part of the API client a rotation uses (a `KeydeckClient`, or the TUI's `AccountClient`):
 * the consumption keys, and the service's clock offset (`lastUsedAt` is the service's time).
 */
export interface RotationClient {
  readonly keys: Pick<KeysResource, 'list' | 'createCredit' | 'update' | 'delete'>;
  readonly serviceClockOffsetMs?: number | undefined;
}

/** The service's time now (epoch ms) as `client` knows it. */
export function serviceNowOf(client: Pick<RotationClient, 'serviceClockOffsetMs'>): number {
  return Date.now() + (client.serviceClockOffsetMs ?? 0);
}

/** What the steps work with. */
export interface RotationContext {
  readonly client: RotationClient;
  readonly record: RotationRecord;
  readonly delivery: DeliveryOptions;
  /** Where keys were delivered: the successor is remembered there once delivered (best effort). */
  readonly deliveries?: DeliveryRecord;
}

/** A refusal of the rotation itself (the old key cannot be rotated, or the record says no). */
export class RotationError extends Error {
  override readonly name = 'RotationError';
  readonly code: 'not_found' | 'ambiguous' | 'subscription_key' | 'rotation_pending' | 'not_delivered' | 'old_key_deleted';
  constructor(code: RotationError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Why a subscription key is not rotated, and what works instead (§3: exactly one key is created
 * per subscription payment; keydeck cannot create another). `face` picks how the next steps are
 * named: commands (`keydeck keys disable ID`) or the TUI's keys.
 */
export function subscriptionRefusal(key: Pick<ConsumptionKey, 'id' | 'name'>, face: 'cli' | 'tui' = 'cli'): string {
  const disable = face === 'cli' ? `\`keydeck keys disable ${key.id}\`` : 'space on the Keys pane';
  const credit = face === 'cli' ? '`keydeck keys create --name NAME --to-file …`' : 'n on the Keys pane';
  return (
    `"${key.name}" is a subscription key, and those cannot be rotated: the service creates exactly one per subscription payment (§3), so keydeck cannot make its successor. ` +
    `What works instead: the next subscription payment creates a new key; put it in place, then disable this one (${disable}). ` +
    `To stop a leaked one at once, disable it now, or replace it with a credit key (${credit})`
  );
}

/**
 * The successor's default name: `web` → `web-r2`, `web-r2` → `web-r3` (at most 128 characters),
 * numbered on while `taken` holds it.
 */
export function successorName(old: string, taken: readonly string[] = []): string {
  const m = /^(.*)-r(\d{1,6})$/.exec(old);
  const base = m ? m[1]! : old;
  let n = m ? Number(m[2]) + 1 : 2;
  for (;;) {
    const suffix = `-r${n}`;
    const name = `${[...base].slice(0, MAX_NAME_LENGTH - suffix.length).join('')}${suffix}`;
    if (!taken.includes(name)) return name;
    n++;
  }
}

/**
 * The key `idOrName` names among `keys`: by id, else by exact name when exactly one has it.
 * @throws RotationError `not_found`, or `ambiguous` (several keys have that name: their ids listed)
 */
export function findKey(keys: readonly ConsumptionKey[], idOrName: string): ConsumptionKey {
  const byId = keys.find((k) => k.id === idOrName);
  if (byId) return byId;
  const named = keys.filter((k) => k.name === idOrName);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) throw new RotationError('ambiguous', `${named.length} keys are named "${idOrName}": name one by its id (${named.map((k) => k.id).join(', ')})`);
  throw new RotationError('not_found', `no key has the id or name "${idOrName}" (keydeck keys list)`);
}

/** What {@link beginRotation} needs. */
export interface RotationPlan {
  readonly profile: string;
  /** The service origin (src/credentials/origin.ts `originOf`). */
  readonly origin: string;
  readonly old: ConsumptionKey;
  /** Default {@link successorName}. */
  readonly successorName: string;
  readonly destinations: readonly Destination[];
  readonly oldAction?: OldKeyAction;
  /** `--grace`, ms after delivery before the old key is handled. */
  readonly graceMs?: number;
}

/**
 * Step 1: checks the old key and records the rotation (`creating`).
 * @throws RotationError `subscription_key`; `rotation_pending` (the record already has one for this key)
 */
export async function beginRotation(ctx: RotationContext, plan: RotationPlan): Promise<Rotation> {
  if (plan.old.keyType === 'subscription') throw new RotationError('subscription_key', subscriptionRefusal(plan.old));
  try {
    return await ctx.record.start({
      kind: 'consumption',
      profile: plan.profile,
      origin: plan.origin,
      old: { id: plan.old.id, name: plan.old.name, wasActive: keyStatus(plan.old) === 'active' },
      successor: { name: plan.successorName },
      destinations: plan.destinations.map((d) => (d.kind === 'command' ? { ...d, argv: [...d.argv] } : { ...d })),
      ...(plan.oldAction && { oldAction: plan.oldAction }),
      ...(plan.graceMs !== undefined && plan.graceMs > 0 && { graceUntil: new Date(Date.now() + plan.graceMs).toISOString() }),
    });
  } catch (err) {
    if (err instanceof RotationRecordError && /unfinished rotation/.test(err.message)) throw new RotationError('rotation_pending', err.message);
    throw err;
  }
}

/**
 * Step 2: creates the successor (§4 `POST /api/keys/credit`) and records its id (`created`).
 * When the service refused (nothing was created) a fresh rotation is removed from the record;
 * when the outcome is unknown it stays at `creating` (finish or undo finds the key by name).
 * @throws KeydeckApiError from the create
 */
export async function createSuccessor(ctx: RotationContext, rotation: Rotation): Promise<{ rotation: Rotation; created: CreatedConsumptionKey }> {
  let created: CreatedConsumptionKey;
  try {
    created = await ctx.client.keys.createCredit({ name: rotation.successor.name });
  } catch (err) {
    const unknown = err instanceof KeydeckApiError && err.outcomeUnknown === true;
    if (!unknown && rotation.orphans.length === 0) await ctx.record.remove(rotation.id);
    throw err;
  }
  const next = await ctx.record.update(rotation.id, { stage: 'created', successor: { name: created.name, id: created.id }, delivered: [] });
  return { rotation: next, created };
}

/**
 * Step 3: delivers the successor's `key` to the rotation's destinations and records which hold
 * it; once all do, the stage is `delivered` and the unfinished successors of earlier tries are
 * deleted (a failed deletion stays in the record for the finish).
 */
export async function deliverSuccessor(ctx: RotationContext, rotation: Rotation, key: string): Promise<{ rotation: Rotation; outcomes: DeliveryOutcome[] }> {
  const outcomes = await deliverKey(key, rotation.destinations, ctx.delivery);
  const delivered = outcomes.flatMap((o, i) => (o.ok ? [i] : []));
  if (delivered.length < rotation.destinations.length) {
    return { rotation: await ctx.record.update(rotation.id, { delivered }), outcomes };
  }
  return { rotation: await markDelivered(ctx, rotation), outcomes };
}

/**
 * Records that every destination holds the successor (`delivered`), e.g. after the user put a key
 * shown on screen in place themselves, and deletes the unfinished successors of earlier tries.
 */
export async function markDelivered(ctx: RotationContext, rotation: Rotation): Promise<Rotation> {
  let next = await ctx.record.update(rotation.id, {
    stage: 'delivered',
    delivered: rotation.destinations.map((_, i) => i),
    deliveredAt: new Date().toISOString(),
  });
  if (ctx.deliveries && next.successor.id !== undefined) {
    // Remembered so that the next rotation goes to the same places; a failure costs only that.
    await ctx.deliveries.remember({ profile: next.profile, origin: next.origin, keyId: next.successor.id }, next.destinations).catch(() => undefined);
  }
  const left: string[] = [];
  for (const id of next.orphans) if (!(await deleteQuietly(ctx.client, id))) left.push(id);
  if (left.length !== next.orphans.length) next = await ctx.record.update(rotation.id, { orphans: left });
  return next;
}

/** Deletes a consumption key; true when it is gone (also when it already was). */
async function deleteQuietly(client: RotationClient, id: string): Promise<boolean> {
  try {
    await client.keys.delete(id);
    return true;
  } catch (err) {
    return err instanceof KeydeckApiError && err.code === 'not_found';
  }
}

/**
 * Step 5: deactivates, deletes or keeps the old key, then removes the rotation from the record.
 * @returns one sentence saying what was done
 * @throws RotationError `not_delivered` unless the rotation is at `delivered` (the guarantee of the
 *   module comment); KeydeckApiError from the update or delete (the rotation stays recorded)
 */
export async function handleOldKey(ctx: RotationContext, rotation: Rotation, action: OldKeyAction): Promise<string> {
  if (rotation.stage !== 'delivered') {
    throw new RotationError('not_delivered', `the successor of "${rotation.old.name}" has not reached every destination, so the old key is left as it is`);
  }
  const label = `the old key "${rotation.old.name}" (id ${rotation.old.id})`;
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
  await ctx.record.remove(rotation.id);
  return sentence;
}

/** How long ago the successor counts as created for a search by name, ms (clock skew, slow answers). */
const FOUND_BY_NAME_WINDOW_MS = 10 * 60_000;

/** The ids of the successors a rotation may have created (its own id, or found by name and time). */
export async function unfinishedSuccessors(ctx: RotationContext, rotation: Rotation): Promise<string[]> {
  if (rotation.successor.id !== undefined) return [rotation.successor.id];
  if (rotation.stage !== 'creating') return [];
  const since = Date.parse(rotation.startedAt) - FOUND_BY_NAME_WINDOW_MS;
  const keys = await ctx.client.keys.list();
  return keys.filter((k) => k.name === rotation.successor.name && k.id !== rotation.old.id && Date.parse(k.createdAt) >= since && !rotation.orphans.includes(k.id)).map((k) => k.id);
}

/**
 * Finishing a rotation interrupted before its successor reached every destination: the
 * successor's value is gone, so its id joins the orphans (deleted once a new one is delivered) and
 * the rotation goes back to `creating`; then steps 2–5 follow as for a new rotation.
 */
export async function restartRotation(ctx: RotationContext, rotation: Rotation): Promise<Rotation> {
  if (rotation.stage === 'delivered') return rotation;
  const lost = await unfinishedSuccessors(ctx, rotation);
  return ctx.record.update(rotation.id, {
    stage: 'creating',
    successor: { name: rotation.successor.name },
    orphans: [...new Set([...rotation.orphans, ...lost])],
    delivered: [],
  });
}

/**
 * Undoes a rotation: deletes its successor(s) and the orphans, reactivates the old key when keydeck
 * had deactivated it, and removes it from the record.
 * @returns sentences saying what was done
 * @throws RotationError `old_key_deleted` when the old key is gone (then only finishing is possible)
 */
export async function undoRotation(ctx: RotationContext, rotation: Rotation): Promise<string[]> {
  const keys = await ctx.client.keys.list();
  const old = keys.find((k) => k.id === rotation.old.id);
  if (!old) throw new RotationError('old_key_deleted', `the old key "${rotation.old.name}" no longer exists, so the rotation cannot be undone: finish it instead`);
  const said: string[] = [];
  const successors = [...new Set([...(await unfinishedSuccessors(ctx, rotation)), ...rotation.orphans])];
  for (const id of successors) {
    if (await deleteQuietly(ctx.client, id)) said.push(`deleted the successor ${id}`);
    else said.push(`could not delete the successor ${id}: delete it with \`keydeck keys delete ${id}\``);
  }
  if (!old.isActive && rotation.old.wasActive === true) {
    await ctx.client.keys.update(old.id, { isActive: true });
    said.push(`reactivated the old key "${rotation.old.name}"`);
  } else {
    said.push(`the old key "${rotation.old.name}" is ${old.isActive ? 'active' : 'inactive'}, as before`);
  }
  await ctx.record.remove(rotation.id);
  return said;
}
