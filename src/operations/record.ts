/**
 * The kit's record (./kit.ts): the unfinished operations of one kind, one JSON file of the data
 * dir (src/config/recordFile.ts: read as keydeck reads its own files, changed under the
 * cross-process lock, written atomically with mode 0600; a file that cannot be read is reported,
 * never guessed at). Each entry has a `state`, and the record declares the moves between states:
 * every update is checked against that table (an entry may stay in its state; it may end, its
 * entry removed, from any state); a move the table does not list is refused (`bad_transition`)
 * and nothing is written. Never a key value.
 *
 * The records: ./keyOperationRecord.ts (`operations.json`: key creations and pledges' keys),
 * ./rotationRecord.ts (`rotations.json`), ./mgmtRotationRecord.ts (`mgmt-rotations.json`).
 */
import { randomUUID } from 'node:crypto';
import { z } from '../api/zod.js';
import { RecordFile } from '../config/recordFile.js';
import type { OperationFailure, OperationKind } from './events.js';
import { OperationError } from './kit.js';

/** The fields every entry has. Times are ISO 8601. */
export interface RecordedOperation<S extends string = string> {
  /** keydeck's own id of the operation (not the service's). */
  readonly id: string;
  readonly profile: string;
  /** The service origin (`https://api.example.com`). */
  readonly origin: string;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly state: S;
}

/** One record's declaration. */
export interface RecordSpec<Op extends RecordedOperation<S>, S extends string> {
  readonly kind: OperationKind;
  /** An entry (reading an older keydeck's entries too). */
  readonly schema: z.ZodType<Op>;
  /** The state a new entry starts in. */
  readonly initial: S;
  /** The moves between states (`from → to[]`); staying and ending are always allowed. */
  readonly transitions: Readonly<Record<S, readonly S[]>>;
  /** The file, its array's field, and its words for RecordFile's errors. */
  readonly file: string;
  readonly field: string;
  readonly what: string;
  readonly idle: string;
  /** What the file may hold, said when it cannot be read (src/config/recordFile.ts: it fails closed). */
  readonly held: string;
  /** Most unfinished entries (past this, starting one is refused: unfinished ones are never dropped). */
  readonly most?: number;
  /** The unfinished entry a new one would clash with, as the failure to throw; undefined when none. */
  conflict?(all: readonly Op[], fields: NewOperation<Op>): OperationFailure | undefined;
}

/** What {@link MachineRecord.start} is given: the entry without what the record sets. */
export type NewOperation<Op> = Omit<Op, 'id' | 'startedAt' | 'updatedAt' | 'state'>;

/** A patch of an entry (its id, profile and origin never change). */
export type OperationPatch<Op> = Partial<Omit<Op, 'id' | 'profile' | 'origin' | 'startedAt' | 'updatedAt'>>;

/** True when the table `transitions` allows `from → to` (or they are equal). */
export function canMove<S extends string>(transitions: Readonly<Record<S, readonly S[]>>, from: S, to: S): boolean {
  return from === to || (transitions[from] ?? []).includes(to);
}

/**
 * Renames an older keydeck's fields in a raw entry (`stage` → `state`, `orphans` → `lost`), for
 * the schemas' `z.preprocess`.
 */
export function renamedFields(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const { stage, orphans, ...rest } = raw as Record<string, unknown>;
  return { ...rest, ...(rest.state === undefined && stage !== undefined && { state: stage }), ...(rest.lost === undefined && orphans !== undefined && { lost: orphans }) };
}

/** The record of one data dir (see the module comment). */
export class MachineRecord<Op extends RecordedOperation<S>, S extends string> {
  readonly #spec: RecordSpec<Op, S>;
  readonly #file: RecordFile<Op>;

  /** `dataDir`: keydeck's data dir (src/config/paths.ts `dataDir`). */
  constructor(dataDir: string, spec: RecordSpec<Op, S>) {
    this.#spec = spec;
    this.#file = new RecordFile(spec.schema, {
      dir: dataDir,
      file: spec.file,
      field: spec.field,
      what: spec.what,
      idle: spec.idle,
      held: spec.held,
      error: (sentence) => new OperationError({ code: 'record', kind: spec.kind, sentence }),
    });
  }

  /** The file's path. */
  get path(): string {
    return this.#spec.file;
  }

  /** The declared moves (for tests and the docs). */
  get transitions(): Readonly<Record<S, readonly S[]>> {
    return this.#spec.transitions;
  }

  /**
   * Every unfinished entry, or those of one profile at one origin.
   * @throws OperationError `record` when the file is not trusted or not readable
   */
  async list(filter?: { readonly profile: string; readonly origin: string }): Promise<Op[]> {
    const all = await this.#file.read();
    return filter ? all.filter((o) => o.profile === filter.profile && o.origin === filter.origin) : all;
  }

  /**
   * Records a new entry in the initial state.
   * @throws OperationError: the spec's conflict, `too_many`, `record`
   */
  async start(fields: NewOperation<Op>): Promise<Op> {
    return this.#file.change((all) => {
      const clash = this.#spec.conflict?.(all, fields);
      if (clash) throw new OperationError(clash);
      const most = this.#spec.most;
      if (most !== undefined && all.length >= most) throw new OperationError({ code: 'too_many', kind: this.#spec.kind, most });
      const now = new Date().toISOString();
      const op = this.#spec.schema.parse({ ...fields, id: randomUUID(), startedAt: now, updatedAt: now, state: this.#spec.initial });
      all.push(op);
      return op;
    });
  }

  /**
   * Applies `patch` to the entry `id` and returns it as recorded, when the table allows its move.
   * @throws OperationError `no_longer_recorded` (finished or undone elsewhere), `bad_transition`, `record`
   */
  async update(id: string, patch: OperationPatch<Op>): Promise<Op> {
    return this.#file.change((all) => {
      const i = all.findIndex((o) => o.id === id);
      if (i === -1) throw new OperationError({ code: 'no_longer_recorded', kind: this.#spec.kind });
      const from = all[i]!.state;
      const to = (patch as { state?: S }).state ?? from;
      if (!canMove(this.#spec.transitions, from, to)) throw new OperationError({ code: 'bad_transition', kind: this.#spec.kind, from, to });
      const next = this.#spec.schema.parse({ ...all[i], ...patch, updatedAt: new Date().toISOString() });
      all[i] = next;
      return next;
    });
  }

  /** Adds `entries` as they are, but those whose id is recorded already (an older keydeck's entries moved here). */
  async adopt(entries: readonly Op[]): Promise<void> {
    await this.#file.change((all) => {
      for (const entry of entries) if (!all.some((e) => e.id === entry.id)) all.push(entry);
    });
  }

  /** Removes the entry `id` (the operation ended or was undone); nothing when it is not there. */
  async remove(id: string): Promise<void> {
    await this.#file.change((all) => {
      const i = all.findIndex((o) => o.id === id);
      if (i !== -1) all.splice(i, 1);
    });
  }
}
