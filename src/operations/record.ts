/**
 * The record of unfinished key creations (issue 42): `<data dir>/operations.json`, one entry per
 * `keys create` (with or without destinations, the TUI's `n`) and per pledge's key (`keys create
 * --subscription`) under way, written before each step (./createKey.ts has the table of states).
 * Never a key value: names, ids, the key's fingerprint (src/delivery/fingerprint.ts), the
 * destinations as the user named them and how far each got. Written atomically (mode 0600) under
 * keydeck's cross-process lock of the data dir, read as keydeck reads its own files
 * (src/config/trust.ts); a record that cannot be read is reported, never guessed at.
 *
 * Rotations keep their own record (src/delivery/rotationRecord.ts, shared with `mgmt-keys rotate`).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { RecordFile } from '../config/recordFile.js';
import { DestinationSchema, TargetSchema } from '../delivery/recordSchemas.js';

/** One key creation under way. Times are ISO 8601. */
export const KeyOperationSchema = z.object({
  /** keydeck's own id of the operation. */
  id: z.string().min(1),
  /** `create`: a credit key; `pledge`: the key of a subscription or pool pledge. */
  kind: z.enum(['create', 'pledge']),
  profile: z.string(),
  /** The service origin the key belongs to. */
  origin: z.string(),
  startedAt: z.string(),
  updatedAt: z.string(),
  /** The key's name as asked. */
  name: z.string(),
  /** `pledge`: the subscription or pledge id. */
  subscriptionId: z.string().optional(),
  /** See ./createKey.ts. */
  stage: z.enum(['creating', 'created', 'showing']),
  /** The key created (once known): its id and fingerprint. */
  key: z.object({ id: z.string().optional(), fingerprint: z.string().optional() }).default({}),
  /** Keys this operation created whose value was lost: deleted once a new one is delivered. */
  lost: z.array(z.string()).default([]),
  destinations: z.array(DestinationSchema).default([]),
  targets: z.array(TargetSchema).default([]),
});
/** See {@link KeyOperationSchema}. */
export type KeyOperation = z.infer<typeof KeyOperationSchema>;


/** Most operations kept (unfinished ones are never dropped: past this, starting one is refused). */
export const MAX_OPERATIONS = 100;

/** A record that cannot be trusted or read, or a change it refuses: one sentence. */
export class OperationRecordError extends Error {
  override readonly name = 'OperationRecordError';
}

/** `<dataDir>/operations.json`. */
export function operationRecordPath(dataDir: string): string {
  return path.join(dataDir, 'operations.json');
}

/** The record of one data dir. */
export class OperationRecord {
  readonly #file: string;
  readonly #record: RecordFile<KeyOperation>;

  /** `dataDir`: keydeck's data dir (src/config/paths.ts `dataDir`). */
  constructor(dataDir: string) {
    this.#file = operationRecordPath(dataDir);
    this.#record = new RecordFile(KeyOperationSchema, {
      dir: dataDir,
      file: this.#file,
      field: 'operations',
      what: 'the operation record',
      idle: 'no key creation is under way',
      held: 'key creations under way (a key made at the service and not yet delivered, or to be deleted)',
      error: (sentence) => new OperationRecordError(sentence),
    });
  }

  /** The file's path. */
  get path(): string {
    return this.#file;
  }

  /**
   * Every unfinished operation, or those of one profile at one origin.
   * @throws OperationRecordError when the file is not trusted or not readable
   */
  async list(filter?: { profile: string; origin: string }): Promise<KeyOperation[]> {
    const all = await this.#record.read();
    return filter ? all.filter((o) => o.profile === filter.profile && o.origin === filter.origin) : all;
  }

  async #change<T>(body: (all: KeyOperation[]) => T): Promise<T> {
    return this.#record.change(body);
  }

  /**
   * Records a new operation (stage `creating`).
   * @throws OperationRecordError when one of the same name (and subscription) is unfinished, or the record is full
   */
  async start(fields: Pick<KeyOperation, 'kind' | 'profile' | 'origin' | 'name' | 'destinations' | 'targets'> & Partial<Pick<KeyOperation, 'subscriptionId'>>): Promise<KeyOperation> {
    return this.#change((all) => {
      const same = all.find((o) => o.profile === fields.profile && o.origin === fields.origin && o.name === fields.name && o.subscriptionId === fields.subscriptionId);
      if (same) throw new OperationRecordError(`the creation of the key "${fields.name}" was interrupted earlier: finish or undo it first`);
      if (all.length >= MAX_OPERATIONS) throw new OperationRecordError(`${MAX_OPERATIONS} key creations are unfinished: finish or undo some first`);
      const now = new Date().toISOString();
      const op = KeyOperationSchema.parse({ ...fields, id: randomUUID(), startedAt: now, updatedAt: now, stage: 'creating', key: {}, lost: [] });
      all.push(op);
      return op;
    });
  }

  /**
   * Applies `patch` to the operation `id` and returns it as recorded.
   * @throws OperationRecordError when it is no longer recorded (finished or undone elsewhere)
   */
  async update(id: string, patch: Partial<Omit<KeyOperation, 'id' | 'startedAt' | 'kind'>>): Promise<KeyOperation> {
    return this.#change((all) => {
      const i = all.findIndex((o) => o.id === id);
      if (i === -1) throw new OperationRecordError('this key creation is no longer recorded: another keydeck finished or undid it');
      const next = KeyOperationSchema.parse({ ...all[i], ...patch, updatedAt: new Date().toISOString() });
      all[i] = next;
      return next;
    });
  }

  /** Removes the operation `id` (finished or undone); nothing when it is not there. */
  async remove(id: string): Promise<void> {
    await this.#change((all) => {
      const i = all.findIndex((o) => o.id === id);
      if (i !== -1) all.splice(i, 1);
    });
  }
}
