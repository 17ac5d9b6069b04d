/**
 * `mgmt-keys rotate` as a persisted state machine (issues 26, 42; `--token-file`: issue 46): the
 * management key in a place (./credentialPlace.ts: keydeck's store for a profile, or a token file)
 * is replaced by a new one, and the old one is deleted, so that a kill at any step leaves a state
 * that `--finish`, `--undo` or a plain rerun takes up. Its state is written to the record
 * (./mgmtRotationRecord.ts) before each effect; the old key is kept in the place's backup until
 * the end, so an undo can always put it back. Recovery reads the world first — the key in the
 * place and in its backup (by prefix), the service's list of management keys — and the record
 * only for what the world cannot say (which keys are this rotation's).
 *
 * ## States and crash points
 *
 * | state      | written before                         | a kill after it leaves                                    | `--finish` (and a plain rerun)                      | `--undo` |
 * |------------|----------------------------------------|-----------------------------------------------------------|-----------------------------------------------------|----------|
 * | (none)     | —                                      | nothing changed (killed while listing)                    | —                                                   | — |
 * | `creating` | `POST /api/keys/management`            | perhaps a new key, its id and value unknown               | the new key (named so, not listed before) deleted; the rotation starts again | the new key deleted |
 * | `created`  | the backup, then the place, written    | the place holds the old key or the new one (by prefix)    | old in place: as `creating`; new in place: as `stored` | old in place: the new key deleted; new in place: the old key put back from the backup, checked, the new key deleted |
 * | `stored`   | the check, then `DELETE` of the old key | the new key in place; the old one perhaps deleted         | checked with the new key, the old one deleted, the backup removed | as `created`; once the old key is deleted there is nothing to undo: finished |
 * | (removed)  | —                                      | done                                                      | — | — |
 *
 * The invariant (I1): keydeck never deletes or deactivates the key in the place. The old key is
 * deleted only once the place gives the new key back and the service accepts it; a new key only
 * while the place holds the old one; every deletion checks the place first ({@link deleteKey}).
 * Neither key is ever printed.
 */
import { KeydeckApiError, keyPrefixOf } from '../api/errors.js';
import type { CreatedManagementKey, ManagementKey } from '../api/schemas.js';
import type { ManagementKeysResource } from '../api/client.js';
import { tokenKind } from '../credentials/index.js';
import { successorName } from '../delivery/rotation.js';
import type { CredentialPlace } from './credentialPlace.js';
import type { MgmtRotation, MgmtRotationRecord } from './mgmtRotationRecord.js';

/** What the machine works with. */
export interface MgmtRotationContext {
  readonly record: MgmtRotationRecord;
  readonly place: CredentialPlace;
  readonly profile: string;
  /** The service origin (`https://api.example.com`). */
  readonly origin: string;
  /** The management-key endpoints of the service, called with `token` (the old key, the new one, or the kept one). */
  keysWith(token: string): Pick<ManagementKeysResource, 'list' | 'create' | 'delete'>;
  /** One line of progress for the user (no secret in it). */
  say(line: string): void;
}

/** A key of the rotation as the result names it. */
export interface RotatedKey {
  readonly id?: string | undefined;
  readonly name: string;
  readonly keyPrefix?: string | undefined;
}

/** How a run of the machine ended. */
export type MgmtRotationResult =
  /** The place holds the new key, the service accepts it, the old key is deleted. */
  | { readonly kind: 'rotated'; readonly old: RotatedKey; readonly new: RotatedKey; readonly where: string }
  /** The place holds the old key again (or still), the new one is deleted. */
  | { readonly kind: 'undone'; readonly old: RotatedKey; readonly deleted: readonly string[]; readonly where: string }
  /** The record is dropped; both keys stay (said why). */
  | { readonly kind: 'kept_both'; readonly old: RotatedKey; readonly new: RotatedKey; readonly where: string };

/** Why the machine stopped: a stable `code` and one sentence (never a key value). */
export class MgmtRotationError extends Error {
  override readonly name = 'MgmtRotationError';
  readonly code: 'no_credential' | 'cannot_rotate' | 'not_found' | 'store_failed' | 'check_failed' | 'rotation_mismatch';
  constructor(code: MgmtRotationError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

/** How long before a rotation's start a new key found by name counts as its own (no `before` list: imported entries), ms. */
const FOUND_BY_NAME_WINDOW_MS = 10 * 60_000;

const prefixOf = (token: string | undefined): string | undefined => (token === undefined ? undefined : keyPrefixOf(token));
const rejected = (err: unknown): boolean => err instanceof KeydeckApiError && (err.code === 'unauthorized' || err.code === 'forbidden');
const notFound = (err: unknown): boolean => err instanceof KeydeckApiError && err.code === 'not_found';
const outcomeUnknown = (err: unknown): boolean => err instanceof KeydeckApiError && err.outcomeUnknown === true;

/**
 * Deletes the management key `id` with `token`, after checking that the place does not hold it
 * (I1: `listed` is a fresh list, which gives each key's prefix). A key already gone is fine.
 */
async function deleteKey(ctx: MgmtRotationContext, token: string, id: string, listed: readonly ManagementKey[]): Promise<void> {
  const inPlace = prefixOf(await ctx.place.read());
  const key = listed.find((k) => k.id === id);
  if (key && inPlace !== undefined && key.keyPrefix === inPlace) {
    throw new MgmtRotationError('rotation_mismatch', `${ctx.place.describe()} holds the key ${inPlace}… this step was to delete: keydeck never deletes the key it signs in with`);
  }
  try {
    await ctx.keysWith(token).delete(id);
  } catch (err) {
    if (!notFound(err)) throw err;
  }
}

/**
 * Starts a rotation of the key in `ctx.place` and runs it to its end. `name`: the new key's
 * name (default: the old one's with `-r2`, `-r3`…).
 * @throws MgmtRotationError; KeydeckApiError from the service (a create refused: nothing kept;
 *   an answer lost: the rotation stays recorded for `--finish`/`--undo`); MgmtRotationRecordError
 */
export async function rotateManagementKey(ctx: MgmtRotationContext, options: { readonly name?: string } = {}): Promise<MgmtRotationResult> {
  const token = await ctx.place.read();
  if (token === undefined) throw new MgmtRotationError('no_credential', `${ctx.place.describe()} holds no key`);
  if (tokenKind(token) !== 'management') throw new MgmtRotationError('cannot_rotate', `${ctx.place.describe()} holds a session token, not a management key: \`keydeck auth login\` makes one`);
  const keys = await ctx.keysWith(token).list();
  const own = keys.find((k) => k.keyPrefix === keyPrefixOf(token));
  if (!own) throw new MgmtRotationError('not_found', `the service lists no management key ${keyPrefixOf(token)}…, so keydeck cannot tell which key to replace`);
  try {
    await ctx.place.preflight();
  } catch (err) {
    throw new MgmtRotationError('cannot_rotate', `${(err as Error).message}; nothing was created`);
  }
  const name = options.name ?? successorName(own.name, keys.map((k) => k.name));
  const rotation = await ctx.record.start({
    profile: ctx.profile,
    origin: ctx.origin,
    target: ctx.place.target,
    old: { id: own.id, name: own.name, keyPrefix: own.keyPrefix },
    successor: { name },
    before: keys.map((k) => k.id),
  });
  return fromCreating(ctx, rotation, token);
}

/** From `creating`: create the new key, keep the old one in the backup, store the new one, then check and delete the old. */
async function fromCreating(ctx: MgmtRotationContext, rotation: MgmtRotation, oldToken: string): Promise<MgmtRotationResult> {
  let created: CreatedManagementKey;
  try {
    created = await ctx.keysWith(oldToken).create({ name: rotation.successor.name });
  } catch (err) {
    // Refused: nothing was made. Lost in transit: the key may exist; the record finds it later.
    if (!outcomeUnknown(err)) await ctx.record.remove(rotation.id);
    throw err;
  }
  const current = await ctx.record.update(rotation.id, { state: 'created', successor: { name: created.name, id: created.id, keyPrefix: created.keyPrefix } });
  ctx.say(`Created the management key "${created.name}" (${created.keyPrefix}…).`);
  try {
    await ctx.place.writeBackup(oldToken);
    await ctx.place.write(created.apiKey);
  } catch (err) {
    await rollBack(ctx, current, oldToken);
    throw new MgmtRotationError('store_failed', `the new management key could not be stored (${(err as Error).message.replace(/\.$/, '')}); it was deleted again, and ${ctx.place.describe()} keeps ${keyPrefixOf(oldToken)}…`);
  }
  const stored = await ctx.record.update(rotation.id, { state: 'stored' });
  ctx.say(`Stored it in ${ctx.place.describe()}${ctx.place.keptOnWrite}.`);
  return checkAndDeleteOld(ctx, stored, created.apiKey, oldToken);
}

/** Puts `oldToken` back in the place (when it is not there), deletes the new key, drops the backup and the record. */
async function rollBack(ctx: MgmtRotationContext, rotation: MgmtRotation, oldToken: string): Promise<void> {
  if ((await ctx.place.read()) !== oldToken) await ctx.place.write(oldToken);
  const listed = await ctx.keysWith(oldToken).list();
  for (const id of successorsOf(rotation, listed, oldToken)) await deleteKey(ctx, oldToken, id, listed);
  await ctx.place.dropBackup();
  await ctx.record.remove(rotation.id);
}

/**
 * From `stored`: the new key in place is checked against the service (an authenticated read),
 * then the old key is deleted, the backup removed and the rotation ends. A new key the service
 * rejects is rolled back to `oldToken` when known (the old key still listed).
 */
async function checkAndDeleteOld(ctx: MgmtRotationContext, rotation: MgmtRotation, newToken: string, oldToken: string | undefined): Promise<MgmtRotationResult> {
  let listed: ManagementKey[];
  try {
    listed = await ctx.keysWith(newToken).list();
  } catch (err) {
    if (rejected(err) && oldToken !== undefined) {
      await rollBack(ctx, rotation, oldToken);
      throw new MgmtRotationError('check_failed', `the service did not accept the new key (${(err as Error).message.replace(/\.$/, '')}); ${ctx.place.describe()} holds the old key ${keyPrefixOf(oldToken)}… again, and the new one was deleted`);
    }
    throw new MgmtRotationError(
      'check_failed',
      `the service does not accept the new key yet (${(err as Error).message.replace(/\.$/, '')}); the old key was not deleted: \`keydeck mgmt-keys rotate --finish\` checks again, \`--undo\` puts the old key back`,
    );
  }
  ctx.say('The service accepts it.');
  if (listed.some((k) => k.id === rotation.old.id)) await deleteKey(ctx, newToken, rotation.old.id, listed);
  await ctx.place.dropBackup();
  await ctx.record.remove(rotation.id);
  const fresh = listed.find((k) => k.keyPrefix === keyPrefixOf(newToken));
  const holder = ctx.place.target.kind === 'store' ? 'keydeck now uses' : `${ctx.place.describe()} holds`;
  ctx.say(`Deleted the old management key "${rotation.old.name}" (${rotation.old.keyPrefix}…): ${holder} ${keyPrefixOf(newToken)}….`);
  return { kind: 'rotated', old: rotation.old, new: { id: fresh?.id ?? rotation.successor.id, name: fresh?.name ?? rotation.successor.name, keyPrefix: keyPrefixOf(newToken) }, where: ctx.place.describe() };
}

/**
 * The new keys of `rotation` among `listed` that the place does not hold: its own by id, else
 * (its id never recorded) those with its name that were not listed before it started.
 */
function successorsOf(rotation: MgmtRotation, listed: readonly ManagementKey[], inPlace: string | undefined): string[] {
  const held = prefixOf(inPlace);
  const since = Date.parse(rotation.startedAt) - FOUND_BY_NAME_WINDOW_MS;
  const mine = (k: ManagementKey): boolean =>
    rotation.successor.id !== undefined
      ? k.id === rotation.successor.id
      : k.name === rotation.successor.name && k.id !== rotation.old.id && (rotation.before ? !rotation.before.includes(k.id) : Date.parse(k.createdAt) >= since);
  return listed.filter((k) => mine(k) && k.keyPrefix !== held).map((k) => k.id);
}

/**
 * Takes up the interrupted `rotation`: `finish` (also a plain rerun) brings it to its end, `undo`
 * back to the old key, each from what the place, its backup and the service say now (the table
 * of the module comment). `name`: the new key's name when a new one must be made.
 * @throws MgmtRotationError; KeydeckApiError; MgmtRotationRecordError
 */
export async function resumeManagementRotation(ctx: MgmtRotationContext, rotation: MgmtRotation, mode: 'finish' | 'undo', options: { readonly name?: string } = {}): Promise<MgmtRotationResult> {
  const inPlace = await ctx.place.read();
  const kept = await ctx.place.readBackup();
  const keptOld = kept !== undefined && keyPrefixOf(kept) === rotation.old.keyPrefix ? kept : undefined;
  const holds = prefixOf(inPlace);
  if (inPlace !== undefined && holds === rotation.successor.keyPrefix) {
    ctx.say(`The rotation of "${rotation.old.name}" was interrupted after ${ctx.place.describe()} took the new key ${holds}….`);
    return mode === 'finish' ? checkAndDeleteOld(ctx, rotation, inPlace, keptOld) : undoStored(ctx, rotation, inPlace, keptOld);
  }
  if (inPlace !== undefined && holds === rotation.old.keyPrefix) {
    const listed = await ctx.keysWith(inPlace).list();
    const lost = successorsOf(rotation, listed, inPlace);
    for (const id of lost) await deleteKey(ctx, inPlace, id, listed);
    await ctx.place.dropBackup();
    const deleted = lost.length > 0 ? `the new key ${lost.join(', ')}, never stored, is deleted (its value is gone)` : 'no new key was made';
    if (mode === 'undo') {
      await ctx.record.remove(rotation.id);
      ctx.say(`Undone: ${deleted}; ${ctx.place.describe()} keeps ${holds}….`);
      return { kind: 'undone', old: rotation.old, deleted: lost, where: ctx.place.describe() };
    }
    ctx.say(`The rotation of "${rotation.old.name}" was interrupted before the new key was stored: ${deleted}, and another one is made.`);
    const again = await ctx.record.update(rotation.id, { state: 'creating', successor: { name: options.name ?? rotation.successor.name }, before: listed.filter((k) => !lost.includes(k.id)).map((k) => k.id) });
    return fromCreating(ctx, again, inPlace);
  }
  return mismatch(ctx, rotation, inPlace);
}

/** `--undo` with the new key in place: the old key is put back from the backup and checked, then the new key deleted. */
async function undoStored(ctx: MgmtRotationContext, rotation: MgmtRotation, newToken: string, oldToken: string | undefined): Promise<MgmtRotationResult> {
  const listed = await ctx.keysWith(newToken).list();
  if (!listed.some((k) => k.id === rotation.old.id)) {
    // The old key is deleted already: the rotation reached its end but for its bookkeeping.
    await ctx.place.dropBackup();
    await ctx.record.remove(rotation.id);
    ctx.say(`Nothing to undo: the old key "${rotation.old.name}" (${rotation.old.keyPrefix}…) was deleted already; ${ctx.place.describe()} holds the new key ${keyPrefixOf(newToken)}….`);
    return { kind: 'rotated', old: rotation.old, new: { ...rotation.successor, keyPrefix: keyPrefixOf(newToken) }, where: ctx.place.describe() };
  }
  if (oldToken === undefined) {
    await ctx.record.remove(rotation.id);
    ctx.say(
      `The old key's copy is gone, so keydeck cannot put it back: ${ctx.place.describe()} keeps the new key ${keyPrefixOf(newToken)}…, and the old "${rotation.old.name}" stays on the service (\`keydeck mgmt-keys delete ${rotation.old.id}\` when nothing uses it).`,
    );
    return { kind: 'kept_both', old: rotation.old, new: { ...rotation.successor, keyPrefix: keyPrefixOf(newToken) }, where: ctx.place.describe() };
  }
  await ctx.place.write(oldToken);
  const again = await ctx.keysWith(oldToken).list();
  const lost = successorsOf(rotation, again, oldToken);
  for (const id of lost) await deleteKey(ctx, oldToken, id, again);
  await ctx.place.dropBackup();
  await ctx.record.remove(rotation.id);
  ctx.say(`Undone: ${ctx.place.describe()} holds the old key ${keyPrefixOf(oldToken)}… again (the service accepts it), and the new key ${keyPrefixOf(newToken)}… is deleted.`);
  return { kind: 'undone', old: rotation.old, deleted: lost, where: ctx.place.describe() };
}

/** The place holds neither key of the rotation (a login since, or nothing): the unstored new key is deleted, the old one left, the record dropped. */
async function mismatch(ctx: MgmtRotationContext, rotation: MgmtRotation, inPlace: string | undefined): Promise<MgmtRotationResult> {
  if (inPlace === undefined || tokenKind(inPlace) !== 'management') {
    throw new MgmtRotationError('rotation_mismatch', `${ctx.place.describe()} holds no management key now: sign in again (\`keydeck auth login\`), then take the rotation up again`);
  }
  const listed = await ctx.keysWith(inPlace).list();
  const lost = successorsOf(rotation, listed, inPlace);
  for (const id of lost) await deleteKey(ctx, inPlace, id, listed);
  await ctx.place.dropBackup();
  await ctx.record.remove(rotation.id);
  const oldListed = listed.some((k) => k.id === rotation.old.id);
  ctx.say(
    `${ctx.place.describe()} holds ${keyPrefixOf(inPlace)}…, neither key of this rotation (it changed since): ${lost.length > 0 ? 'the new key, held nowhere, is deleted' : 'no new key is left'}${oldListed ? `; the old "${rotation.old.name}" stays on the service (\`keydeck mgmt-keys delete ${rotation.old.id}\` when nothing uses it)` : ''}.`,
  );
  return { kind: 'undone', old: rotation.old, deleted: lost, where: ctx.place.describe() };
}
