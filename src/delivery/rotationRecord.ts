/**
 * The record of unfinished rotations (issue 26): `<data dir>/rotations.json`, so that a rotation
 * interrupted half way (keydeck killed between its steps) is found at the next start, by the TUI
 * and the command line, and finished or undone on the user's word.
 *
 * It never holds a secret: key ids, names, prefixes and fingerprints, the destinations as the user
 * typed them, and the stage reached. (A successor created but not delivered everywhere before the
 * interruption is delivered later only when a file destination holds it: its value is read back
 * from there; otherwise finishing makes a new one.) Written
 * atomically (mode 0600) under keydeck's cross-process lock of the data dir; read as keydeck reads
 * its own files (src/config/trust.ts). A record that cannot be read is reported, never guessed at.
 *
 * ## Stages (consumption keys, `keys rotate` and the TUI's `R`)
 *
 * `creating` → `created` → `delivered`, then removed: the machine and its table of stages and
 * crash points are src/operations/rotateKey.ts (recovery: src/operations/rotateRecovery.ts). The
 * record keeps the successor's fingerprint (never its value) and each destination's progress
 * (`targets`, ./recordSchemas.ts), with where a file's previous content is kept.
 *
 * Management keys (`mgmt-keys rotate`): `creating` → `created` (the new `mk_` exists, not stored)
 * → `stored` (stored where the old one was, checked; the old one not yet deleted). Finish after
 * `created` deletes the lost new key and starts again; after `stored` deletes the old key. Undo
 * deletes the new key when it was never stored.
 *
 * No key is ever deactivated or deleted before its successor reached the stage `delivered` (or `stored`).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { RecordFile } from '../config/recordFile.js';
import { DestinationSchema, TargetSchema } from './recordSchemas.js';

/** What happens to the old key once its successor is delivered. */
export const OldKeyActionSchema = z.enum(['deactivate', 'delete', 'keep']);
/** See {@link OldKeyActionSchema}. */
export type OldKeyAction = z.infer<typeof OldKeyActionSchema>;


/** A rotation in progress. Times are ISO 8601. */
export const RotationSchema = z.object({
  /** keydeck's own id of the rotation (not the service's). */
  id: z.string().min(1),
  kind: z.enum(['consumption', 'management']),
  profile: z.string(),
  /** The service origin (`https://api.example.com`) the keys belong to. */
  origin: z.string(),
  startedAt: z.string(),
  updatedAt: z.string(),
  stage: z.enum(['creating', 'created', 'delivered', 'stored']),
  old: z.object({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string().optional(),
    wasActive: z.boolean().optional(),
    /** The name the old key gets once its successor, which takes its name, is delivered (`web (rotated 2026-11-28)`). */
    rotatedName: z.string().optional(),
  }),
  /** `fingerprint`: the successor's (src/delivery/fingerprint.ts), so recovery can tell which destinations hold it. */
  successor: z.object({ name: z.string(), id: z.string().optional(), keyPrefix: z.string().optional(), fingerprint: z.string().optional() }),
  /** Unfinished successors of earlier tries (ids) still to delete once a new one is delivered. */
  orphans: z.array(z.string()).default([]),
  destinations: z.array(DestinationSchema).default([]),
  /** Indexes into `destinations` that hold the current successor. */
  delivered: z.array(z.number().int().min(0)).default([]),
  /** How far the successor got at each destination (aligned with `destinations`; ./recordSchemas.ts). */
  targets: z.array(TargetSchema).default([]),
  /** The user's `--old`, when given. */
  oldAction: OldKeyActionSchema.optional(),
  /** When the successor reached every destination. */
  deliveredAt: z.string().optional(),
  /** `--grace`, ms: counted from the delivery (`graceUntil` is set then). */
  graceMs: z.number().int().min(0).optional(),
  /** Not before this time is the old key handled (`--grace` after the delivery). */
  graceUntil: z.string().optional(),
  /** Where the management key was stored (`keychain`/`file`), for `mgmt-keys rotate`. */
  storedIn: z.string().optional(),
});
/** See {@link RotationSchema}. */
export type Rotation = z.infer<typeof RotationSchema>;


/** Most rotations kept (unfinished ones are never dropped silently: past this, starting one is refused). */
export const MAX_ROTATIONS = 100;

/** A record that cannot be trusted or read: one sentence, naming the file. */
export class RotationRecordError extends Error {
  override readonly name = 'RotationRecordError';
}

/** Where an interrupted rotation stopped, in words. */
export function stageWords(r: Rotation): string {
  switch (r.stage) {
    case 'creating':
      return 'while its successor was being created';
    case 'created':
      return r.kind === 'management' ? 'after the new management key was created, before it was stored' : 'before its successor reached every destination';
    case 'delivered':
      return 'after its successor was delivered, before the old key was handled';
    case 'stored':
      return 'after the new management key was stored, before the old one was deleted';
  }
}

/** `<dataDir>/rotations.json`. */
export function rotationRecordPath(dataDir: string): string {
  return path.join(dataDir, 'rotations.json');
}

/** The record of one data dir: read, and changed under the lock. */
export class RotationRecord {
  readonly #file: string;
  readonly #record: RecordFile<Rotation>;

  /** `dataDir`: keydeck's data dir (src/config/paths.ts `dataDir`). */
  constructor(dataDir: string) {
    this.#file = rotationRecordPath(dataDir);
    this.#record = new RecordFile(RotationSchema, {
      dir: dataDir,
      file: this.#file,
      field: 'rotations',
      what: 'the rotation record',
      idle: 'no rotation is under way',
      held: 'rotations under way (a new key made at the service, the old one not yet retired, and where each was delivered)',
      error: (sentence) => new RotationRecordError(sentence),
    });
  }

  /** The file's path. */
  get path(): string {
    return this.#file;
  }

  /**
   * Every unfinished rotation, or those of one profile at one origin.
   * @throws RotationRecordError when the file is not trusted or not readable
   */
  async list(filter?: { profile: string; origin: string }): Promise<Rotation[]> {
    const all = await this.#record.read();
    return filter ? all.filter((r) => r.profile === filter.profile && r.origin === filter.origin) : all;
  }

  async #change<T>(body: (all: Rotation[]) => T): Promise<T> {
    return this.#record.change(body);
  }

  /**
   * Records a new rotation (stage `creating`).
   * @throws RotationRecordError when the same old key already has an unfinished rotation, or the record is full
   */
  async start(fields: Omit<Rotation, 'id' | 'startedAt' | 'updatedAt' | 'stage' | 'orphans' | 'delivered' | 'destinations' | 'targets'> & Partial<Pick<Rotation, 'orphans' | 'destinations' | 'targets'>>): Promise<Rotation> {
    return this.#change((all) => {
      if (all.some((r) => r.old.id === fields.old.id && r.origin === fields.origin)) {
        throw new RotationRecordError(`the key "${fields.old.name}" already has an unfinished rotation: finish or undo it first`);
      }
      if (all.length >= MAX_ROTATIONS) throw new RotationRecordError(`${MAX_ROTATIONS} rotations are unfinished: finish or undo some first`);
      const now = new Date().toISOString();
      const rotation: Rotation = RotationSchema.parse({ ...fields, id: randomUUID(), startedAt: now, updatedAt: now, stage: 'creating', orphans: fields.orphans ?? [], destinations: fields.destinations ?? [], targets: fields.targets ?? [], delivered: [] });
      all.push(rotation);
      return rotation;
    });
  }

  /**
   * Applies `patch` to the rotation `id` and returns it as recorded.
   * @throws RotationRecordError when it is no longer recorded (finished or undone elsewhere)
   */
  async update(id: string, patch: Partial<Omit<Rotation, 'id' | 'startedAt'>>): Promise<Rotation> {
    return this.#change((all) => {
      const i = all.findIndex((r) => r.id === id);
      if (i === -1) throw new RotationRecordError('this rotation is no longer recorded: another keydeck finished or undid it');
      const next = RotationSchema.parse({ ...all[i], ...patch, updatedAt: new Date().toISOString() });
      all[i] = next;
      return next;
    });
  }

  /** Removes the rotation `id` (finished or undone); nothing when it is not there. */
  async remove(id: string): Promise<void> {
    await this.#change((all) => {
      const i = all.findIndex((r) => r.id === id);
      if (i !== -1) all.splice(i, 1);
    });
  }
}
