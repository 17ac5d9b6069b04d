/**
 * Taking up an interrupted consumption-key rotation (./rotateKey.ts has the table of stages):
 * `keys rotate --finish`, a rerun of the same `keys rotate` (from cron, say), the TUI's next
 * start, and `--undo`. Each reads the world before its record: the service's key list (which
 * successors exist, the old key's name and state) and each file destination (whether it holds the
 * successor, by fingerprint; its value, when the process that had it died).
 */
import type { ConsumptionKey } from '../api/schemas.js';
import { describeDestination } from '../delivery/destinations.js';
import { keyNameProblem, MAX_NAME_LENGTH } from '../api/schemas.js';
import { RotationError } from '../delivery/rotation.js';
import type { Rotation } from '../delivery/rotationRecord.js';
import { deleteQuietly, settleNames, type RotationContext, type Successor } from './rotateKey.js';
import { dropBackups, resetTargets, undoTargets, valueFromFiles } from './targets.js';

/** How long before a rotation's start a successor found by name counts as its own, ms (clock skew, slow answers). */
const FOUND_BY_NAME_WINDOW_MS = 10 * 60_000;

/** The ids of the successors a rotation may have made: its own id, or found by name and time while `creating`. */
export function unfinishedSuccessors(rotation: Rotation, keys: readonly ConsumptionKey[]): string[] {
  if (rotation.successor.id !== undefined) return [rotation.successor.id];
  if (rotation.stage !== 'creating') return [];
  const since = Date.parse(rotation.startedAt) - FOUND_BY_NAME_WINDOW_MS;
  return keys.filter((k) => k.name === rotation.successor.name && k.id !== rotation.old.id && Date.parse(k.createdAt) >= since && !rotation.orphans.includes(k.id)).map((k) => k.id);
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

/**
 * Takes `rotation` for this context before a finish or an undo.
 * @throws RotationError `in_progress` when another keydeck drives it now (it is not interrupted)
 */
async function takeUp(ctx: RotationContext, rotation: Rotation): Promise<void> {
  if (ctx.drivers && !(await ctx.drivers.take(rotation.id))) {
    throw new RotationError('in_progress', `the rotation of "${rotation.old.name}" is in progress in another keydeck (another shell, the TUI, a cron job): let it end first`);
  }
}

/** Where {@link resumeRotation} leaves a rotation. */
export interface ResumedRotation {
  readonly rotation: Rotation;
  /** At `created`: the successor's value read back from a file (deliver it to the rest). */
  readonly key?: Successor;
  /** Sentences for the user. */
  readonly said: string[];
}

/**
 * Takes up an interrupted rotation (see the module comment): at `delivered` the names are settled
 * and the handover is next; at `created` the successor's value is read back from a file that
 * holds it (then delivered to the rest), or else the successor is lost and the rotation goes back
 * to `creating`; at `creating` the successors found by name are lost. A lost successor is deleted
 * once a new one is delivered.
 * @throws KeydeckApiError from the list; RotationRecordError
 */
export async function resumeRotation(ctx: RotationContext, rotation: Rotation): Promise<ResumedRotation> {
  await takeUp(ctx, rotation);
  if (rotation.stage === 'delivered') {
    const renamed = await settleNames(ctx, rotation);
    return { rotation, said: renamed ? [renamed] : [] };
  }
  const keys = await ctx.client.keys.list();
  if (rotation.stage === 'created') {
    const listed = rotation.successor.id === undefined || keys.some((k) => k.id === rotation.successor.id);
    const value = listed ? await valueFromFiles(rotation.destinations, rotation.targets, rotation.successor.fingerprint) : undefined;
    if (value !== undefined) {
      const from = rotation.destinations.find((d, i) => d.kind === 'file' && rotation.targets[i]?.state !== 'pending');
      return {
        rotation,
        key: { id: rotation.successor.id, name: rotation.successor.name, apiKey: value, answer: { ...(keys.find((k) => k.id === rotation.successor.id) ?? { name: rotation.successor.name }) } },
        said: [`the successor "${rotation.successor.name}" was read back from ${from ? describeDestination(from) : 'its file'}, which holds it: it goes to the other destinations`],
      };
    }
  }
  const lost = unfinishedSuccessors(rotation, keys).filter((id) => keys.some((k) => k.id === id));
  const next = await ctx.record.update(rotation.id, {
    stage: 'creating',
    successor: { name: rotation.successor.name },
    orphans: [...new Set([...rotation.orphans, ...lost])],
    targets: resetTargets(rotation.targets),
    delivered: [],
  });
  const said =
    lost.length > 0
      ? [`its successor never reached every destination, and its value is gone (keydeck never stores a key, and no file destination holds it): a new successor is made and delivered; the unfinished one is deleted once that is done`]
      : [];
  return { rotation: next, said };
}

/** `NAME (kept after undo)`, at most 128 characters. */
function keptName(name: string): string {
  const suffix = ' (kept after undo)';
  const kept = `${[...name].slice(0, MAX_NAME_LENGTH - suffix.length).join('')}${suffix}`;
  return keyNameProblem(kept) === undefined ? kept : name;
}

/**
 * Undoes a rotation: each file that holds the successor gets back what it held (the old key); the
 * successor and the lost ones are deleted, except a successor a command took or may have taken
 * (kept, renamed `NAME (kept after undo)`, the command named: a command cannot be undone); the old
 * key gets its name back, and is reactivated if keydeck had deactivated it.
 * @returns sentences saying what was done
 * When the old key is gone after the delivery (deleted as asked, the record not yet cleared) the
 * rotation is complete: said so, and ended.
 * @throws RotationError `old_key_deleted` when the old key is gone before the delivery (then only finishing is possible)
 */
export async function undoRotation(ctx: RotationContext, rotation: Rotation): Promise<string[]> {
  await takeUp(ctx, rotation);
  const keys = await ctx.client.keys.list();
  const old = keys.find((k) => k.id === rotation.old.id);
  if (!old && rotation.stage === 'delivered') {
    // Deleted as the rotation asked (the record not yet cleared): the rotation is complete.
    await dropBackups(rotation.targets);
    await ctx.record.remove(rotation.id);
    ctx.drivers?.release(rotation.id, true);
    return [`the old key "${rotation.old.name}" was already deleted, so there is nothing to go back to: the rotation is complete, and its successor "${rotation.successor.name}" stays where it was delivered`];
  }
  if (!old) throw new RotationError('old_key_deleted', `the old key "${rotation.old.name}" no longer exists, so the rotation cannot be undone: finish it instead`);
  const undone = await undoTargets(rotation.destinations, rotation.targets, rotation.successor.fingerprint, ctx.delivery.lockDir);
  const said = [...undone.said];
  const ran = rotation.destinations.some((d, i) => d.kind === 'command' && rotation.targets[i]?.ran === true);
  const listed = (id: string) => keys.some((k) => k.id === id);
  for (const id of unfinishedSuccessors(rotation, keys).filter(listed)) {
    if (undone.holders.length > 0) {
      const name = keptName(rotation.successor.name);
      if (name !== rotation.successor.name) await ctx.client.keys.update(id, { name }).catch(() => undefined);
      said.push(
        `kept the successor "${name}" (id ${id}): ${undone.holders.map(describeDestination).join(', ')} ${undone.holders.length === 1 ? 'holds' : 'hold'} it; delete it with keydeck keys delete ${id} once nothing uses it`,
      );
    } else {
      said.push((await deleteQuietly(ctx.client, id)) ? `deleted the successor ${id}` : `could not delete the successor ${id}: delete it with \`keydeck keys delete ${id}\``);
    }
  }
  for (const id of rotation.orphans.filter(listed)) {
    if (ran) said.push(`kept the earlier successor ${id}, whose value was lost: a command may hold it; delete it with keydeck keys delete ${id} once nothing uses it`);
    else if (await deleteQuietly(ctx.client, id)) said.push(`deleted the earlier successor ${id}, whose value was lost`);
  }
  if (old.name !== rotation.old.name) {
    await ctx.client.keys.update(old.id, { name: rotation.old.name });
    said.push(`gave the old key its name "${rotation.old.name}" back`);
  }
  if (!old.isActive && rotation.old.wasActive === true) {
    await ctx.client.keys.update(old.id, { isActive: true });
    said.push(`reactivated the old key "${rotation.old.name}"`);
  } else {
    said.push(`the old key "${rotation.old.name}" is ${old.isActive ? 'active' : 'inactive'}, as before`);
  }
  await dropBackups(rotation.targets, undone.keptBackups);
  await ctx.record.remove(rotation.id);
  ctx.drivers?.release(rotation.id, true);
  return said;
}
