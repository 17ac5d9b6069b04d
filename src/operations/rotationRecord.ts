/**
 * The record of unfinished consumption-key rotations (`keys rotate`, the TUI's `R`):
 * `<data dir>/rotations.json`, on the kit's record (./record.ts), so that a rotation interrupted
 * half way is found at the next start, by the TUI and the command line, and finished or undone.
 * It never holds a secret: key ids, names and fingerprints, the destinations as the user typed
 * them, how far each got, and the state reached. ./rotateKey.ts has the machine and its table.
 *
 * | from       | to          | when |
 * |------------|-------------|------|
 * | (new)      | `creating`  | the old key and the destinations were checked; the successor is created next |
 * | `creating` | `created`   | the successor was made |
 * | `created`  | `creating`  | taken up, its value gone (no file holds it): a new successor is made |
 * | `created`  | `delivered` | every destination holds it (or the user put the key shown in place) |
 * | `delivered` | `ending`   | the old key handled: the copies of previous content are removed next, and nothing can be undone from here |
 * | any        | (ended)     | the old key handled, refused before anything was made, or undone |
 *
 * No key is ever deactivated or deleted before its successor reached `delivered`. Entries of
 * management-key rotations an older keydeck kept here (`kind: management`) are moved to
 * ./mgmtRotationRecord.ts when that record is first read.
 */
import path from 'node:path';
import { z } from '../api/zod.js';
import { OPERATION_RECORD_FILES } from '../config/paths.js';
import { DestinationSchema, TargetSchema } from '../delivery/recordSchemas.js';
import { MachineRecord, renamedFields, type RecordSpec } from './record.js';

/** What happens to the old key once its successor is delivered. */
export const OldKeyActionSchema = z.enum(['deactivate', 'delete', 'keep']);
/** See {@link OldKeyActionSchema}. */
export type OldKeyAction = z.infer<typeof OldKeyActionSchema>;

/** The states of a rotation (the module's table; `stored` only in an older keydeck's management entries). */
export const RotationStateSchema = z.enum(['creating', 'created', 'delivered', 'ending', 'stored']);
/** See {@link RotationStateSchema}. */
export type RotationState = z.infer<typeof RotationStateSchema>;

/** A rotation in progress. Times are ISO 8601. */
export const RotationSchema = z.preprocess(
  renamedFields,
  z.object({
    /** keydeck's own id of the rotation (not the service's). */
    id: z.string().min(1),
    kind: z.enum(['consumption', 'management']),
    profile: z.string(),
    /** The service origin (`https://api.example.com`) the keys belong to. */
    origin: z.string(),
    startedAt: z.string(),
    updatedAt: z.string(),
    state: RotationStateSchema,
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
    /** Successors of earlier tries whose value was lost (ids): deleted once a new one is delivered. */
    lost: z.array(z.string()).default([]),
    destinations: z.array(DestinationSchema).default([]),
    /** How far the successor got at each destination (aligned with `destinations`; src/delivery/recordSchemas.ts). */
    targets: z.array(TargetSchema).default([]),
    /** The user's `--old`, when given. */
    oldAction: OldKeyActionSchema.optional(),
    /** When the successor reached every destination. */
    deliveredAt: z.string().optional(),
    /** `--grace`, ms: counted from the delivery (`graceUntil` is set then). */
    graceMs: z.number().int().min(0).optional(),
    /** Not before this time is the old key handled (`--grace` after the delivery). */
    graceUntil: z.string().optional(),
    /** An older keydeck's management entries: where the key was stored (`keychain`/`file`). */
    storedIn: z.string().optional(),
  }),
);
/** See {@link RotationSchema}. */
export type Rotation = z.infer<typeof RotationSchema>;

/** Most rotations kept unfinished. */
export const MAX_ROTATIONS = 100;

/** `<dataDir>/rotations.json`. */
export function rotationRecordPath(dataDir: string): string {
  return path.join(dataDir, OPERATION_RECORD_FILES.rotations);
}

/** The moves of the module's table. */
export const ROTATION_TRANSITIONS: Readonly<Record<RotationState, readonly RotationState[]>> = {
  creating: ['created'],
  created: ['creating', 'delivered'],
  delivered: ['ending'],
  ending: [],
  stored: [],
};

/** The record of rotations of one data dir. */
export type RotationRecord = MachineRecord<Rotation, RotationState>;

/** The record of rotations of `dataDir` (see the module comment). */
export function rotationRecord(dataDir: string): RotationRecord {
  const spec: RecordSpec<Rotation, RotationState> = {
    kind: 'rotate',
    schema: RotationSchema,
    initial: 'creating',
    transitions: ROTATION_TRANSITIONS,
    file: rotationRecordPath(dataDir),
    field: 'rotations',
    what: 'the rotation record',
    idle: 'no rotation is under way',
    held: 'rotations under way (a new key made at the service, the old one not yet retired, and where each was delivered)',
    most: MAX_ROTATIONS,
    conflict: (all, fields) => (all.some((r) => r.old.id === fields.old.id && r.origin === fields.origin) ? { code: 'rotation_pending', name: fields.old.name } : undefined),
  };
  return new MachineRecord(dataDir, spec);
}
