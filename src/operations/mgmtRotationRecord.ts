/**
 * The record of unfinished management-key rotations (issue 42, `mgmt-keys rotate`): the state of
 * each rotation (./mgmtRotate.ts) as it was written before its next step, in
 * `<data dir>/mgmt-rotations.json`, so that a rotation killed half way is named at the next start
 * and finished or undone.
 *
 * It never holds a secret: key ids, names and prefixes, the ids of the management keys listed
 * before the new one was created (to find a new key whose id the record never learnt), where the
 * credential lives (the store of a profile, or a token file's path), and the state reached.
 * Written atomically (mode 0600) under keydeck's cross-process lock of the data dir; read as
 * keydeck reads its own files (src/config/recordFile.ts). A record that cannot be read is
 * reported, never guessed at.
 *
 * Management rotations were kept in the rotation record of consumption keys
 * (src/delivery/rotationRecord.ts, kind `management`) before: such an entry is moved here the
 * first time this record is read, and removed there.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { RecordFile } from '../config/recordFile.js';
import { RotationRecord, type Rotation } from '../delivery/rotationRecord.js';

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
export const MgmtRotationSchema = z.object({
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
});
/** See {@link MgmtRotationSchema}. */
export type MgmtRotation = z.infer<typeof MgmtRotationSchema>;

/** A record that cannot be trusted or read, or a change it refuses: one sentence, naming the file. */
export class MgmtRotationRecordError extends Error {
  override readonly name = 'MgmtRotationRecordError';
}

/** `<dataDir>/mgmt-rotations.json`. */
export function mgmtRotationRecordPath(dataDir: string): string {
  return path.join(dataDir, 'mgmt-rotations.json');
}

/** True when `a` and `b` name the same place of a credential (a token file by its path). */
export function sameTarget(a: CredentialTarget, b: CredentialTarget): boolean {
  return a.kind === 'store' ? b.kind === 'store' : b.kind === 'token_file' && path.resolve(a.path) === path.resolve(b.path);
}

/** A legacy entry of the consumption-key record, in this record's shape. */
function imported(r: Rotation): MgmtRotation | undefined {
  const state = r.stage === 'stored' || r.stage === 'created' || r.stage === 'creating' ? r.stage : undefined;
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

/** The unfinished management-key rotations of one data dir: read, and changed under the lock. */
export class MgmtRotationRecord {
  readonly #dir: string;
  readonly #file: string;
  readonly #json: RecordFile<MgmtRotation>;

  /** `dataDir`: keydeck's data dir (src/config/paths.ts `dataDir`). */
  constructor(dataDir: string) {
    this.#dir = dataDir;
    this.#file = mgmtRotationRecordPath(dataDir);
    this.#json = new RecordFile(MgmtRotationSchema, {
      dir: dataDir,
      file: this.#file,
      field: 'rotations',
      what: 'the management-key rotation record',
      idle: 'no management-key rotation is under way',
      held: 'management-key rotations under way (a new management key made at the service, the old one not yet revoked)',
      error: (sentence) => new MgmtRotationRecordError(sentence),
    });
  }

  /** The file's path. */
  get path(): string {
    return this.#file;
  }

  async #read(): Promise<MgmtRotation[]> {
    return this.#json.read();
  }

  /**
   * Every unfinished rotation, or those of one profile at one origin (legacy entries imported first).
   * @throws MgmtRotationRecordError when the file is not trusted or not readable
   */
  async list(filter?: { profile: string; origin: string }): Promise<MgmtRotation[]> {
    await this.#importLegacy();
    const all = await this.#read();
    return filter ? all.filter((r) => r.profile === filter.profile && r.origin === filter.origin) : all;
  }

  /** The unfinished rotation of `target` for `profile` at `origin`, if any. */
  async find(profile: string, origin: string, target: CredentialTarget): Promise<MgmtRotation | undefined> {
    return (await this.list({ profile, origin })).find((r) => sameTarget(r.target, target));
  }

  async #change<T>(body: (all: MgmtRotation[]) => T): Promise<T> {
    return this.#json.change(body);
  }

  /**
   * Records a new rotation in state `creating`.
   * @throws MgmtRotationRecordError when the same credential already has an unfinished rotation
   */
  async start(fields: Pick<MgmtRotation, 'profile' | 'origin' | 'target' | 'old' | 'successor' | 'before'>): Promise<MgmtRotation> {
    return this.#change((all) => {
      if (all.some((r) => r.profile === fields.profile && r.origin === fields.origin && sameTarget(r.target, fields.target))) {
        throw new MgmtRotationRecordError('this management key already has an unfinished rotation: finish or undo it first');
      }
      const now = new Date().toISOString();
      const rotation = MgmtRotationSchema.parse({ ...fields, id: randomUUID(), startedAt: now, updatedAt: now, state: 'creating' });
      all.push(rotation);
      return rotation;
    });
  }

  /**
   * Applies `patch` to the rotation `id` and returns it as recorded.
   * @throws MgmtRotationRecordError when it is no longer recorded (finished or undone by another keydeck)
   */
  async update(id: string, patch: Partial<Omit<MgmtRotation, 'id' | 'profile' | 'origin' | 'target'>>): Promise<MgmtRotation> {
    return this.#change((all) => {
      const i = all.findIndex((r) => r.id === id);
      if (i === -1) throw new MgmtRotationRecordError('this rotation is no longer recorded: another keydeck finished or undid it');
      all[i] = MgmtRotationSchema.parse({ ...all[i], ...patch, updatedAt: new Date().toISOString() });
      return all[i]!;
    });
  }

  /** Removes the rotation `id` (finished or undone); nothing when it is not there. */
  async remove(id: string): Promise<void> {
    await this.#change((all) => {
      const i = all.findIndex((r) => r.id === id);
      if (i !== -1) all.splice(i, 1);
    });
  }

  /** Moves the `management` entries of the consumption-key record here (kept there when anything fails). */
  async #importLegacy(): Promise<void> {
    let legacy: Rotation[];
    const old = new RotationRecord(this.#dir);
    try {
      legacy = (await old.list()).filter((r) => r.kind === 'management');
    } catch {
      return; // Unreadable: the consumption-key commands report it.
    }
    if (legacy.length === 0) return;
    await this.#change((all) => {
      for (const r of legacy) {
        const entry = imported(r);
        if (entry && !all.some((e) => e.id === entry.id)) all.push(entry);
      }
    });
    for (const r of legacy) await old.remove(r.id);
  }
}
