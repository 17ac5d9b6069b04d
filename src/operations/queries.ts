/**
 * The read-only queries the faces ask of the operations: which operations are unfinished (and not
 * driven by another keydeck now), which unfinished rotation a name designates, whether a key can
 * be rotated at all, and where an unfinished operation stopped, in each face's words. Nothing here
 * changes the world or a record.
 */
import { keyStatus } from '../api/keyStatus.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { Destination } from '../delivery/destinations.js';
import type { TargetState } from '../delivery/recordSchemas.js';
import { drivenElsewhere, type OperationDrivers } from './drivers.js';
import type { OperationFailure } from './events.js';
import { keyOperationRecord, type KeyOperation } from './keyOperationRecord.js';
import { MgmtRotationRecord, type MgmtRotation } from './mgmtRotationRecord.js';
import { rotationRecord, type Rotation } from './rotationRecord.js';

/** Which profile and service origin. */
export interface Scope {
  readonly profile: string;
  readonly origin: string;
}

/** The operations of `all` that no other keydeck drives now (the others are in progress, not interrupted). */
async function interrupted<T extends { readonly id: string }>(dataDir: string, all: readonly T[], drivers?: OperationDrivers): Promise<T[]> {
  const out: T[] = [];
  for (const o of all) if (!(drivers ? await drivers.elsewhere(o.id) : await drivenElsewhere(dataDir, o.id))) out.push(o);
  return out;
}

/**
 * The unfinished key creations of `scope` in `dataDir`; `all`: those another keydeck drives now too.
 * @throws OperationError `record` when the record cannot be read
 */
export async function unfinishedCreations(dataDir: string, scope: Scope, options: { drivers?: OperationDrivers; all?: boolean } = {}): Promise<KeyOperation[]> {
  const recorded = await keyOperationRecord(dataDir).list(scope);
  return options.all ? recorded : interrupted(dataDir, recorded, options.drivers);
}

/**
 * The unfinished consumption-key rotations of `scope` in `dataDir`; `all`: those another keydeck drives now too.
 * @throws OperationError `record`
 */
export async function unfinishedRotations(dataDir: string, scope: Scope, options: { drivers?: OperationDrivers; all?: boolean } = {}): Promise<Rotation[]> {
  const recorded = (await rotationRecord(dataDir).list(scope)).filter((r) => r.kind === 'consumption');
  return options.all ? recorded : interrupted(dataDir, recorded, options.drivers);
}

/**
 * The unfinished management-key rotations of `scope` (an older keydeck's entries moved to their record first).
 * @throws OperationError `record`
 */
export function unfinishedMgmtRotations(dataDir: string, scope: Scope): Promise<MgmtRotation[]> {
  return new MgmtRotationRecord(dataDir).list(scope);
}

/** True when some keydeck drives the operation `id` now. */
export function drivenNow(dataDir: string, id: string, drivers?: OperationDrivers): Promise<boolean> {
  return drivers ? drivers.elsewhere(id) : drivenElsewhere(dataDir, id);
}

/**
 * The unfinished rotation `idOrName` designates among `pending` (consumption rotations of one
 * profile and origin): the old key's or the successor's id, the name the job gave (the old key's
 * name when it started), or the name a listed key of the rotation has now.
 */
export function pendingRotationOf(pending: readonly Rotation[], keys: readonly ConsumptionKey[], idOrName: string): Rotation | undefined {
  const ids = new Set(keys.filter((k) => k.id === idOrName || k.name === idOrName).map((k) => k.id));
  return pending.find((r) => r.old.id === idOrName || r.successor.id === idOrName || r.old.name === idOrName || ids.has(r.old.id) || (r.successor.id !== undefined && ids.has(r.successor.id)));
}

/** Why `key` cannot be rotated (a subscription key; not active), or undefined. */
export function rotationRefusal(key: ConsumptionKey): OperationFailure | undefined {
  if (key.keyType === 'subscription') return { code: 'subscription_key', key: { id: key.id, name: key.name } };
  if (keyStatus(key) !== 'active') return { code: 'key_inactive', key: { id: key.id, name: key.name } };
  return undefined;
}

/** The destinations of an unfinished operation that may hold its new key. */
export function holdersOf(op: { readonly destinations: readonly Destination[]; readonly targets: readonly TargetState[] }): Destination[] {
  return op.destinations.filter((_, i) => ['writing', 'written', 'running', 'took'].includes(op.targets[i]?.state ?? ''));
}

/** An unfinished operation a face names (./wording.ts `unfinishedWords` words it). */
export type Unfinished = { readonly kind: 'rotation'; readonly op: Rotation } | { readonly kind: 'creation'; readonly op: KeyOperation } | { readonly kind: 'mgmt'; readonly op: MgmtRotation };
