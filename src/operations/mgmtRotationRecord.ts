/**
 * The record of unfinished management-key rotations (`mgmt-keys rotate`), on the kit's record
 * (./record.ts): the state of each rotation (./mgmtRotate.ts, with its table of states) as it was
 * written before its next step, in `<data dir>/mgmt-rotations.json`, so that a rotation killed
 * half way is named at the next start and finished or undone.
 *
 * It never holds a secret: key ids, names and prefixes, the ids of the management keys listed
 * before the new one was created (to find a new key whose id the record never learnt), where the
 * credential lives (the store of a profile, or a token file's path), and the state reached.
 *
 * Management rotations were kept in the rotation record of consumption keys
 * (./rotationRecord.ts, kind `management`) before: such an entry is moved here the first time
 * this record is read, and removed there.
 */
import path from 'node:path';
import { z } from '../api/zod.js';
import { OPERATION_RECORD_FILES } from '../config/paths.js';
import { MachineRecord, renamedFields, type NewOperation, type OperationPatch } from './record.js';
import { rotationRecord, type Rotation } from './rotationRecord.js';

/** Where the rotated credential lives: keydeck's store for the profile, or a token file. */
export const CredentialTargetSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('store'), storedIn: z.enum(['keychain', 'file']).optional() }),
  z.object({ kind: z.literal('token_file'), path: z.string().min(1) }),
]);
/** See {@link CredentialTargetSchema}. */
export type CredentialTarget = z.infer<typeof CredentialTargetSchema>;

/** The states of a management rotation (the table in ./mgmtRotate.ts). */
export const MgmtRotationStateSchema = z.enum(['creating', 'created', 'stored']);
/** See {@link MgmtRotationStateSchema}. */
export type MgmtRotationState = z.infer<typeof MgmtRotationStateSchema>;

/** One unfinished rotation. Times are ISO 8601. */
export const MgmtRotationSchema = z.preprocess(
  renamedFields,
  z.object({
    /** keydeck's own id of the rotation (not the service's). */
    id: z.string().min(1),
    profile: z.string(),
    /** The service origin (`https://api.example.com`). */
    origin: z.string(),
    target: CredentialTargetSchema,
    startedAt: z.string(),
    updatedAt: z.string(),
    state: MgmtRotationStateSchema,
    old: z.object({ id: z.string(), name: z.string(), keyPrefix: z.string() }),
    successor: z.object({ name: z.string(), id: z.string().optional(), keyPrefix: z.string().optional() }),
    /** Ids of the account's management keys listed just before the create was sent (absent in imported entries). */
    before: z.array(z.string()).optional(),
  }),
);
/** See {@link MgmtRotationSchema}. */
export type MgmtRotation = z.infer<typeof MgmtRotationSchema>;

/** `<dataDir>/mgmt-rotations.json`. */
export function mgmtRotationRecordPath(dataDir: string): string {
  return path.join(dataDir, OPERATION_RECORD_FILES.mgmtRotations);
}

/** True when `a` and `b` name the same place of a credential (a token file by its path). */
export function sameTarget(a: CredentialTarget, b: CredentialTarget): boolean {
  return a.kind === 'store' ? b.kind === 'store' : b.kind === 'token_file' && path.resolve(a.path) === path.resolve(b.path);
}

/** A legacy entry of the consumption-key record, in this record's shape. */
function imported(r: Rotation): MgmtRotation | undefined {
  const state = r.state === 'stored' || r.state === 'created' || r.state === 'creating' ? r.state : undefined;
  if (state === undefined || r.old.keyPrefix === undefined) return undefined;
  const storedIn = r.storedIn === 'keychain' || r.storedIn === 'file' ? r.storedIn : undefined;
  return {
    id: r.id,
    profile: r.profile,
    origin: r.origin,
    target: { kind: 'store', ...(storedIn && { storedIn }) },
    startedAt: r.startedAt,
    updatedAt: r.updatedAt,
    state,
    old: { id: r.old.id, name: r.old.name, keyPrefix: r.old.keyPrefix },
    successor: r.successor,
  };
}

/** The moves of the table in ./mgmtRotate.ts. */
export const MGMT_ROTATION_TRANSITIONS: Readonly<Record<MgmtRotationState, readonly MgmtRotationState[]>> = {
  creating: ['created'],
  created: ['stored', 'creating'],
  stored: [],
};

/** The unfinished management-key rotations of one data dir: read, and changed under the lock. */
export class MgmtRotationRecord {
  readonly #dir: string;
  readonly #record: MachineRecord<MgmtRotation, MgmtRotationState>;

  /** `dataDir`: keydeck's data dir (src/config/paths.ts `dataDir`). */
  constructor(dataDir: string) {
    this.#dir = dataDir;
    this.#record = new MachineRecord<MgmtRotation, MgmtRotationState>(dataDir, {
      kind: 'mgmt-rotate',
      schema: MgmtRotationSchema,
      initial: 'creating',
      transitions: MGMT_ROTATION_TRANSITIONS,
      file: mgmtRotationRecordPath(dataDir),
      field: 'rotations',
      what: 'the management-key rotation record',
      idle: 'no management-key rotation is under way',
      held: 'management-key rotations under way (a new management key made at the service, the old one not yet revoked)',
      conflict: (all, fields) => (all.some((r) => r.profile === fields.profile && r.origin === fields.origin && sameTarget(r.target, fields.target)) ? { code: 'mgmt_rotation_pending' } : undefined),
    });
  }

  /** The file's path. */
  get path(): string {
    return this.#record.path;
  }

  /**
   * Every unfinished rotation, or those of one profile at one origin (legacy entries imported first).
   * @throws OperationError `record` when the file is not trusted or not readable
   */
  async list(filter?: { profile: string; origin: string }): Promise<MgmtRotation[]> {
    await this.#importLegacy();
    return this.#record.list(filter);
  }

  /** The unfinished rotation of `target` for `profile` at `origin`, if any. */
  async find(profile: string, origin: string, target: CredentialTarget): Promise<MgmtRotation | undefined> {
    return (await this.list({ profile, origin })).find((r) => sameTarget(r.target, target));
  }

  /**
   * Records a new rotation in state `creating`.
   * @throws OperationError `mgmt_rotation_pending` when the same credential already has an unfinished rotation
   */
  start(fields: NewOperation<MgmtRotation>): Promise<MgmtRotation> {
    return this.#record.start(fields);
  }

  /**
   * Applies `patch` to the rotation `id` (a move of the table) and returns it as recorded.
   * @throws OperationError `no_longer_recorded`, `bad_transition`
   */
  update(id: string, patch: OperationPatch<MgmtRotation>): Promise<MgmtRotation> {
    return this.#record.update(id, patch);
  }

  /** Removes the rotation `id` (finished or undone); nothing when it is not there. */
  remove(id: string): Promise<void> {
    return this.#record.remove(id);
  }

  /** Moves the `management` entries of the consumption-key record here (kept there when anything fails). */
  async #importLegacy(): Promise<void> {
    let legacy: Rotation[];
    const old = rotationRecord(this.#dir);
    try {
      legacy = (await old.list()).filter((r) => r.kind === 'management');
    } catch {
      return; // Unreadable: the consumption-key commands report it.
    }
    if (legacy.length === 0) return;
    await this.#record.adopt(legacy.map(imported).filter((e) => e !== undefined));
    for (const r of legacy) await old.remove(r.id);
  }
}
