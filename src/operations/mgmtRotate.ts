/**
 * `mgmt-keys rotate` as a machine of the kit (./kit.ts): the management key in a place
 * (./credentialPlace.ts: keydeck's store for a profile, or a token file) is replaced by a new one,
 * and the old one is deleted, so that a kill at any step leaves a state that `--finish`, `--undo`
 * or a plain rerun takes up. Its state is written to the record (./mgmtRotationRecord.ts) before
 * each effect; the old key is kept in the place's backup until the end, so an undo can always put
 * it back. Taken up, it reads the world first — the key in the place and in its backup (by
 * prefix), the service's list of management keys — and the record only for what the world cannot
 * say (which keys are this rotation's).
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
 * while the place holds the old one; every deletion checks the place first. Neither key is ever
 * printed.
 */
import { KeydeckApiError, keyPrefixOf } from '../api/errors.js';
import type { ManagementKeysResource } from '../api/client.js';
import type { ManagementKey } from '../api/schemas.js';
import { tokenKind } from '../credentials/index.js';
import { successorName } from '../delivery/rotation.js';
import type { CredentialPlace } from './credentialPlace.js';
import type { KeyRef } from './events.js';
import { drive, DriveMemo, emit, OperationError, step, type DriveMode, type KitContext, type Machine, type Next, type Step } from './kit.js';
import type { MgmtRotation, MgmtRotationRecord } from './mgmtRotationRecord.js';
import { cleanNext, deleteStep, placeRef, prefixOf } from './mgmtRotateCleanup.js';

/** What the machine works with. */
export interface MgmtRotationContext extends KitContext {
  readonly record: MgmtRotationRecord;
  readonly place: CredentialPlace;
  readonly profile: string;
  /** The service origin (`https://api.example.com`). */
  readonly origin: string;
  /** The management-key endpoints of the service, called with `token` (the old key, the new one, or the kept one). */
  keysWith(token: string): Pick<ManagementKeysResource, 'list' | 'create' | 'delete'>;
}

/** How a drive of the machine ended. */
export type MgmtRotationResult =
  /** The place holds the new key, the service accepts it, the old key is deleted. */
  | { readonly kind: 'rotated'; readonly old: KeyRef; readonly new: KeyRef; readonly where: string }
  /** The place holds the old key again (or still), the new one is deleted. */
  | { readonly kind: 'undone'; readonly old: KeyRef; readonly deleted: readonly string[]; readonly where: string }
  /** The record is dropped; both keys stay (said why). */
  | { readonly kind: 'kept_both'; readonly old: KeyRef; readonly new: KeyRef; readonly where: string };

/** The face's word: the new key's name when one is made (default: the old one's with `-r2`, `-r3`…). */
export interface MgmtRotateInput {
  readonly name?: string | undefined;
}

/** Where a drive is (see the module's table). */
type Phase = 'fresh' | 'stored' | 'undo-stored' | 'unstored' | 'mismatch' | 'rollback';

/** One drive's memory: the keys it holds (never recorded), where it is, what the last effects gave. */
class MgmtMemo extends DriveMemo<MgmtRotateInput> {
  phase?: Phase;
  oldToken?: string | undefined;
  newToken?: string | undefined;
  /** The new keys of this rotation to delete in this phase (found once). */
  lost?: string[];
  /** The listing those ids were found in (for each deletion's check of the place). */
  listed?: ManagementKey[];
  storeError?: string;
  checked?: ManagementKey[];
  checkError?: unknown;
  /** Why a rollback runs: it ends by throwing this. */
  rollback?: OperationError;
}

const rejected = (err: unknown): boolean => err instanceof KeydeckApiError && (err.code === 'unauthorized' || err.code === 'forbidden');
const problemOf = (err: unknown): string => (err instanceof Error ? err.message : String(err)).replace(/\.$/, '');

/** The last step: the record's entry removed, then `then()` (the outcome, said). */
function endStep(ctx: MgmtRotationContext, op: MgmtRotation, then: () => MgmtRotationResult): Step<MgmtRotation> {
  return step<MgmtRotation, unknown>('end', undefined, async () => {
    await ctx.record.remove(op.id);
    return { ended: then() };
  });
}

/** Goes to `phase`: what the last one found and did is forgotten (its deletions, its backup dropped). */
function newPhase(memo: MgmtMemo, phase: Phase): void {
  memo.phase = phase;
  memo.lost = undefined;
  memo.listed = undefined;
  memo.done.delete('drop-backup');
  memo.done.delete('put-back');
}

/** Rolls back (the old key put back, the new one deleted), then fails with `failure`. */
function enterRollback(memo: MgmtMemo, failure: OperationError): void {
  newPhase(memo, 'rollback');
  memo.rollback = failure;
}

/** What the place holds when taken up decides the phase (the module's table). */
async function takeUp(ctx: MgmtRotationContext, op: MgmtRotation, memo: MgmtMemo): Promise<Phase> {
  const inPlace = await ctx.place.read();
  const kept = await ctx.place.readBackup();
  const holds = prefixOf(inPlace);
  memo.oldToken = kept !== undefined && keyPrefixOf(kept) === op.old.keyPrefix ? kept : undefined;
  if (inPlace !== undefined && holds === op.successor.keyPrefix) {
    emit(ctx, { type: 'interrupted_stored', old: op.old.name, place: placeRef(ctx), holds: holds! });
    memo.newToken = inPlace;
    return memo.mode === 'finish' ? 'stored' : 'undo-stored';
  }
  if (inPlace !== undefined && holds === op.old.keyPrefix) {
    memo.oldToken = inPlace;
    return 'unstored';
  }
  if (inPlace === undefined || tokenKind(inPlace) !== 'management') throw new OperationError({ code: 'rotation_mismatch', reason: 'no_key', place: placeRef(ctx) });
  memo.newToken = inPlace;
  return 'mismatch';
}

/** The machine (see the module comment). */
export const mgmtRotateMachine: Machine<MgmtRotation, MgmtRotationContext, MgmtRotateInput, MgmtRotateInput, MgmtMemo, MgmtRotationResult> = {
  name: 'mgmt-rotate',
  kind: 'mgmt-rotate',
  memo: (mode: DriveMode, input: MgmtRotateInput) => new MgmtMemo(mode, input),
  label: (op) => op.old.name,

  async begin(ctx, plan, memo) {
    const token = await ctx.place.read();
    if (token === undefined) throw new OperationError({ code: 'no_credential', place: placeRef(ctx) });
    if (tokenKind(token) !== 'management') throw new OperationError({ code: 'cannot_rotate', reason: 'session_token', place: placeRef(ctx) });
    const keys = await ctx.keysWith(token).list();
    const own = keys.find((k) => k.keyPrefix === keyPrefixOf(token));
    if (!own) throw new OperationError({ code: 'not_found', keyPrefix: keyPrefixOf(token) });
    try {
      await ctx.place.preflight();
    } catch (err) {
      throw new OperationError({ code: 'cannot_rotate', reason: 'place', place: placeRef(ctx), sentence: problemOf(err) });
    }
    const name =
      plan.name ??
      successorName(
        own.name,
        keys.map((k) => k.name),
      );
    const rotation = await ctx.record.start({
      profile: ctx.profile,
      origin: ctx.origin,
      target: ctx.place.target,
      old: { id: own.id, name: own.name, keyPrefix: own.keyPrefix },
      successor: { name },
      before: keys.map((k) => k.id),
    });
    await ctx.drivers?.take(rotation.id);
    memo.oldToken = token;
    memo.phase = 'fresh';
    return rotation;
  },

  async next(ctx, op, memo): Promise<Next<MgmtRotation, MgmtRotationResult>> {
    memo.phase ??= await takeUp(ctx, op, memo);
    const where = ctx.place.describe();
    const place = placeRef(ctx);
    switch (memo.phase) {
      case 'fresh':
        if (op.state !== 'creating' && memo.storeError !== undefined) {
          enterRollback(memo, new OperationError({ code: 'store_failed', problem: memo.storeError, place, holds: keyPrefixOf(memo.oldToken!) }));
          return mgmtRotateMachine.next(ctx, op, memo);
        }
        return { step: freshStep(ctx, op, memo) };
      case 'rollback': {
        const old = memo.oldToken!;
        if (!memo.done.has('put-back') && (await ctx.place.read()) !== old) return { step: step('put-back', () => ctx.place.write(old)) };
        const clean = await cleanNext(ctx, op, memo, old);
        if (clean) return { step: clean };
        const failure = memo.rollback!;
        return {
          step: step('end', undefined, async () => {
            await ctx.record.remove(op.id);
            ctx.drivers?.release(op.id, true);
            throw failure;
          }),
        };
      }
      case 'stored': {
        const fresh = memo.newToken!;
        if (op.state === 'created') return { step: step('stored', undefined, () => ctx.record.update(op.id, { state: 'stored' })) };
        if (memo.checked === undefined && memo.checkError === undefined) {
          return {
            step: step('check', async () => {
              try {
                memo.checked = await ctx.keysWith(fresh).list();
              } catch (err) {
                memo.checkError = err;
              }
            }),
          };
        }
        if (memo.checkError !== undefined) {
          const problem = problemOf(memo.checkError);
          if (rejected(memo.checkError) && memo.oldToken !== undefined) {
            enterRollback(memo, new OperationError({ code: 'check_failed', problem, rolledBack: true, place, holds: keyPrefixOf(memo.oldToken) }));
            return mgmtRotateMachine.next(ctx, op, memo);
          }
          throw new OperationError({ code: 'check_failed', problem, rolledBack: false, place });
        }
        const listed = memo.checked!;
        if (!memo.done.has('accepted')) {
          memo.done.add('accepted');
          emit(ctx, { type: 'accepted' });
        }
        if (!memo.done.has(`delete:${op.old.id}`) && listed.some((k) => k.id === op.old.id)) return { step: deleteStep(ctx, fresh, op.old.id, listed) };
        if (!memo.done.has('drop-backup')) return { step: step('drop-backup', () => ctx.place.dropBackup()) };
        const made = listed.find((k) => k.keyPrefix === keyPrefixOf(fresh));
        return {
          step: endStep(ctx, op, () => {
            emit(ctx, { type: 'old_deleted', old: op.old, holds: keyPrefixOf(fresh), place });
            return { kind: 'rotated', old: op.old, new: { id: made?.id ?? op.successor.id, name: made?.name ?? op.successor.name, keyPrefix: keyPrefixOf(fresh) }, where };
          }),
        };
      }
      case 'undo-stored': {
        const fresh = memo.newToken!;
        const newKey = { ...op.successor, keyPrefix: keyPrefixOf(fresh) };
        // Read with the new key before the old one is put back (it is deleted after).
        if (!memo.done.has('put-back') && !(await memo.observe('listed', () => ctx.keysWith(fresh).list())).some((k) => k.id === op.old.id)) {
          // The old key is deleted already: the rotation reached its end but for its bookkeeping.
          if (!memo.done.has('drop-backup')) return { step: step('drop-backup', () => ctx.place.dropBackup()) };
          return {
            step: endStep(
              ctx,
              op,
              () => (emit(ctx, { type: 'mgmt_undone', how: 'already_deleted', old: op.old, place, deleted: [], newKey: newKey.keyPrefix }), { kind: 'rotated', old: op.old, new: newKey, where }),
            ),
          };
        }
        const old = memo.oldToken;
        if (old === undefined)
          return {
            step: endStep(
              ctx,
              op,
              () => (emit(ctx, { type: 'mgmt_undone', how: 'kept_both', old: op.old, place, deleted: [], newKey: newKey.keyPrefix }), { kind: 'kept_both', old: op.old, new: newKey, where }),
            ),
          };
        if (!memo.done.has('put-back')) return { step: step('put-back', () => ctx.place.write(old)) };
        const clean = await cleanNext(ctx, op, memo, old);
        if (clean) return { step: clean };
        const deleted = memo.lost ?? [];
        return {
          step: endStep(
            ctx,
            op,
            () => (
              emit(ctx, { type: 'mgmt_undone', how: 'put_back', old: op.old, place, deleted, holds: keyPrefixOf(old), newKey: newKey.keyPrefix }),
              { kind: 'undone', old: op.old, deleted, where }
            ),
          ),
        };
      }
      case 'unstored': {
        const old = memo.oldToken!;
        const clean = await cleanNext(ctx, op, memo, old);
        if (clean) return { step: clean };
        const deleted = memo.lost ?? [];
        if (memo.mode === 'undo')
          return {
            step: endStep(ctx, op, () => (emit(ctx, { type: 'mgmt_undone', how: 'unstored', old: op.old, place, deleted, holds: keyPrefixOf(old) }), { kind: 'undone', old: op.old, deleted, where })),
          };
        const before = (memo.listed ?? []).filter((k) => !deleted.includes(k.id)).map((k) => k.id);
        return {
          step: step('again', undefined, async () => {
            emit(ctx, { type: 'interrupted_unstored', old: op.old.name, deleted });
            const again = await ctx.record.update(op.id, { state: 'creating', successor: { name: memo.input.name ?? op.successor.name }, before });
            newPhase(memo, 'fresh');
            return again;
          }),
        };
      }
      case 'mismatch': {
        const inPlace = memo.newToken!;
        const clean = await cleanNext(ctx, op, memo, inPlace);
        if (clean) return { step: clean };
        const deleted = memo.lost ?? [];
        const oldListed = (memo.listed ?? []).some((k) => k.id === op.old.id);
        return {
          step: endStep(
            ctx,
            op,
            () => (emit(ctx, { type: 'mgmt_undone', how: 'mismatch', old: op.old, place, deleted, holds: keyPrefixOf(inPlace), oldListed }), { kind: 'undone', old: op.old, deleted, where }),
          ),
        };
      }
    }
  },
};

/** From `creating` (with the old key in hand): create the new key, keep the old one in the backup, store the new one. */
function freshStep(ctx: MgmtRotationContext, op: MgmtRotation, memo: MgmtMemo): Step<MgmtRotation> {
  const old = memo.oldToken!;
  if (op.state === 'creating') {
    return step<MgmtRotation, { made?: Awaited<ReturnType<ManagementKeysResource['create']>>; err?: unknown }>(
      'mint',
      async () => {
        try {
          return { made: await ctx.keysWith(old).create({ name: op.successor.name }) };
        } catch (err) {
          return { err };
        }
      },
      async ({ made, err }) => {
        if (!made) {
          // Refused: nothing was made. Lost in transit: the key may exist; the record finds it later.
          if (!(err instanceof KeydeckApiError && err.outcomeUnknown === true)) {
            await ctx.record.remove(op.id);
            ctx.drivers?.release(op.id, true);
          }
          throw err;
        }
        memo.newToken = made.apiKey;
        const next = await ctx.record.update(op.id, { state: 'created', successor: { name: made.name, id: made.id, keyPrefix: made.keyPrefix } });
        emit(ctx, { type: 'minted', kind: 'mgmt-rotate', key: { id: made.id, name: made.name, keyPrefix: made.keyPrefix }, destinations: 0 });
        return next;
      },
    );
  }
  const fresh = memo.newToken!;
  const guarded = (name: string, write: () => Promise<void>) =>
    step<MgmtRotation, boolean>(name, async () => {
      try {
        await write();
        return true;
      } catch (err) {
        memo.storeError = problemOf(err);
        return false;
      }
    });
  if (!memo.done.has('keep-old')) return guarded('keep-old', () => ctx.place.writeBackup(old));
  return step<MgmtRotation, boolean>(
    'store',
    async () => {
      try {
        await ctx.place.write(fresh);
        return true;
      } catch (err) {
        memo.storeError = problemOf(err);
        return false;
      }
    },
    async (ok) => {
      if (!ok) return op;
      const stored = await ctx.record.update(op.id, { state: 'stored' });
      emit(ctx, { type: 'stored', place: placeRef(ctx) });
      memo.phase = 'stored';
      return stored;
    },
  );
}

/**
 * Starts a rotation of the key in `ctx.place` and runs it to its end (see the module comment).
 * @throws OperationError; KeydeckApiError from the service (a create refused: nothing kept; an
 *   answer lost: the rotation stays recorded for `--finish`/`--undo`)
 */
export function rotateManagementKey(ctx: MgmtRotationContext, input: MgmtRotateInput = {}): Promise<MgmtRotationResult> {
  return drive(mgmtRotateMachine, ctx, { plan: input }, 'run', input);
}

/**
 * Takes up the interrupted `rotation`: `finish` (also a plain rerun) brings it to its end, `undo`
 * back to the old key, each from what the place, its backup and the service say now.
 * @throws OperationError; KeydeckApiError
 */
export function resumeManagementRotation(ctx: MgmtRotationContext, rotation: MgmtRotation, mode: 'finish' | 'undo', input: MgmtRotateInput = {}): Promise<MgmtRotationResult> {
  return drive(mgmtRotateMachine, ctx, { op: rotation }, mode, input);
}
