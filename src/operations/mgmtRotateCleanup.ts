/**
 * The deletions of a management-key rotation (./mgmtRotate.ts): which keys are the rotation's new
 * ones (by the id on record, else by name among the keys not listed before it started), and each
 * deleted only after checking that the place does not hold it (the invariant I1 of ./mgmtRotate.ts:
 * keydeck never deletes the key in the place), then the backup dropped.
 */
import { KeydeckApiError, keyPrefixOf } from '../api/errors.js';
import type { ManagementKeysResource } from '../api/client.js';
import type { ManagementKey } from '../api/schemas.js';
import type { CredentialPlace } from './credentialPlace.js';
import type { PlaceRef } from './events.js';
import { keysMadeBy, OperationError, step, type Step } from './kit.js';
import type { MgmtRotation } from './mgmtRotationRecord.js';

/** What the deletions need of the rotation's context: the place, and the endpoints called with a key. */
export interface CleanupContext {
  readonly place: CredentialPlace;
  keysWith(token: string): Pick<ManagementKeysResource, 'list' | 'delete'>;
}

/** What one drive remembers of its deletions: the keys to delete (found once), the listing they were found in, the steps done. */
export interface CleanupMemo {
  lost?: string[] | undefined;
  listed?: ManagementKey[] | undefined;
  readonly done: Set<string>;
}

/** The prefix of `token` (`mk_…`, never the whole key), or undefined for no token. */
export const prefixOf = (token: string | undefined): string | undefined => (token === undefined ? undefined : keyPrefixOf(token));

/** The place in events' words. */
export function placeRef(ctx: Pick<CleanupContext, 'place'>): PlaceRef {
  return { where: ctx.place.describe(), own: ctx.place.target.kind === 'store', kept: ctx.place.keptOnWrite };
}

/**
 * The new keys of `rotation` among `listed` that the place does not hold: its own by id, else
 * (its id never recorded) those with its name that were not listed before it started.
 */
function successorsOf(rotation: MgmtRotation, listed: readonly ManagementKey[], inPlace: string | undefined): string[] {
  const held = prefixOf(inPlace);
  const mine =
    rotation.successor.id !== undefined
      ? listed.filter((k) => k.id === rotation.successor.id)
      : keysMadeBy(listed, { startedAt: rotation.startedAt, before: rotation.before, known: [rotation.old.id] }, (k) => k.name === rotation.successor.name);
  return mine.filter((k) => k.keyPrefix !== held).map((k) => k.id);
}

/** Deletes the management key `id` with `token`, after checking that the place does not hold it (I1). A key already gone is fine. */
export function deleteStep(ctx: CleanupContext, token: string, id: string, listed: readonly ManagementKey[]): Step<MgmtRotation> {
  return step(`delete:${id}`, async () => {
    const inPlace = prefixOf(await ctx.place.read());
    const key = listed.find((k) => k.id === id);
    if (key && inPlace !== undefined && key.keyPrefix === inPlace) throw new OperationError({ code: 'rotation_mismatch', reason: 'own_key', place: placeRef(ctx), keyPrefix: inPlace });
    try {
      await ctx.keysWith(token).delete(id);
    } catch (err) {
      if (!(err instanceof KeydeckApiError) || err.code !== 'not_found') throw err;
    }
  });
}

/** The steps that delete `memo.lost` (found once with `token`), then drop the backup; undefined once done. */
export async function cleanNext(ctx: CleanupContext, op: MgmtRotation, memo: CleanupMemo, token: string): Promise<Step<MgmtRotation> | undefined> {
  if (memo.lost === undefined) {
    memo.listed = await ctx.keysWith(token).list();
    memo.lost = successorsOf(op, memo.listed, token);
  }
  const id = memo.lost.find((x) => !memo.done.has(`delete:${x}`));
  if (id !== undefined) return deleteStep(ctx, token, id, memo.listed ?? []);
  if (!memo.done.has('drop-backup')) return step('drop-backup', () => ctx.place.dropBackup());
  return undefined;
}
