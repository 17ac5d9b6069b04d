/**
 * The record of unfinished key creations: `<data dir>/operations.json`, one entry per `keys
 * create` (with or without destinations, the TUI's `n`) and per pledge's key (`keys create
 * --subscription`) under way, on the kit's record (./record.ts): names, ids, the key's
 * fingerprint (src/delivery/fingerprint.ts), the destinations as the user named them and how far
 * each got, never a key value. ./createKey.ts has the machine and its table of states.
 *
 * | from       | to                   | when |
 * |------------|----------------------|------|
 * | (new)      | `creating`           | the destinations were checked; the create is sent next |
 * | `creating` | `created`, `showing` | the key was made (`showing`: no destination, it goes to the screen) |
 * | `created`  | `creating`           | taken up, its value gone (no file holds it): a new key is made |
 * | `created`  | `delivered`          | every destination holds it |
 * | `showing`  | `delivered`          | the user has it (printed, or acknowledged in the TUI), or it was named when taken up |
 * | `delivered` | `ending`            | where it went remembered, the lost keys deleted: the copies of previous content are removed next, and nothing can be undone from here |
 * | any        | (ended)              | delivered and cleaned up, refused before anything was made, or undone |
 */
import path from 'node:path';
import { z } from '../api/zod.js';
import { OPERATION_RECORD_FILES } from '../config/paths.js';
import { DestinationSchema, TargetSchema } from '../delivery/recordSchemas.js';
import { MachineRecord, renamedFields, type RecordSpec } from './record.js';

/** The states of a key creation (the module's table). */
export const KeyOperationStateSchema = z.enum(['creating', 'created', 'showing', 'delivered', 'ending']);
/** See {@link KeyOperationStateSchema}. */
export type KeyOperationState = z.infer<typeof KeyOperationStateSchema>;

/** One key creation under way. Times are ISO 8601. */
export const KeyOperationSchema = z.preprocess(
  renamedFields,
  z.object({
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
    state: KeyOperationStateSchema,
    /** The key created (once known): its id and fingerprint. */
    key: z.object({ id: z.string().optional(), fingerprint: z.string().optional() }).default({}),
    /** Keys this operation created whose value was lost: deleted once a new one is delivered. */
    lost: z.array(z.string()).default([]),
    destinations: z.array(DestinationSchema).default([]),
    targets: z.array(TargetSchema).default([]),
  }),
);
/** See {@link KeyOperationSchema}. */
export type KeyOperation = z.infer<typeof KeyOperationSchema>;

/** Most key creations kept unfinished. */
export const MAX_OPERATIONS = 100;

/** `<dataDir>/operations.json`. */
export function operationRecordPath(dataDir: string): string {
  return path.join(dataDir, OPERATION_RECORD_FILES.creations);
}

/** The moves of the module's table. */
export const KEY_OPERATION_TRANSITIONS: Readonly<Record<KeyOperationState, readonly KeyOperationState[]>> = {
  creating: ['created', 'showing'],
  created: ['creating', 'delivered'],
  showing: ['delivered'],
  delivered: ['ending'],
  ending: [],
};

/** The record of key creations of `dataDir`. */
export type KeyOperationRecord = MachineRecord<KeyOperation, KeyOperationState>;

/** The record of key creations of `dataDir` (see the module comment). */
export function keyOperationRecord(dataDir: string): KeyOperationRecord {
  const spec: RecordSpec<KeyOperation, KeyOperationState> = {
    kind: 'create',
    schema: KeyOperationSchema,
    initial: 'creating',
    transitions: KEY_OPERATION_TRANSITIONS,
    file: operationRecordPath(dataDir),
    field: 'operations',
    what: 'the operation record',
    idle: 'no key creation is under way',
    held: 'key creations under way (a key made at the service and not yet delivered, or to be deleted)',
    most: MAX_OPERATIONS,
    conflict: (all, fields) =>
      all.some((o) => o.profile === fields.profile && o.origin === fields.origin && o.name === fields.name && o.subscriptionId === fields.subscriptionId)
        ? { code: 'operation_pending', name: fields.name }
        : undefined,
  };
  return new MachineRecord(dataDir, spec);
}
