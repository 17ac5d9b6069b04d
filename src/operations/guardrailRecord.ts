/**
 * The record of guardrail actions: `<data dir>/guardrails.json`, one entry per key and rule and
 * period (a budget's day, week or month; the moment a key passed its `expiresIn` or `maxAge`), on
 * the kit's record (./record.ts). It holds what was said (each threshold once per period, across
 * restarts and processes) and what was done to the key, so that a crash or a second keydeck never
 * acts twice. ./guardrail.ts has the machine.
 *
 * | from        | to                                     | when |
 * |-------------|----------------------------------------|------|
 * | (new)       | `watching`                             | a rule of the key needs saying or doing in this period |
 * | `watching`  | `disabling`, `rotating`                | the limit is reached (or the key expired, or passed its `maxAge`): the deactivation, or the rotation, is next |
 * | `disabling` | `disabled`                             | the service has the key inactive |
 * | `disabled`  | `overridden`                           | a person enabled the key again in the period: it is left alone until the period ends |
 * | `disabled`  | `enabling`                             | the period ended: the reactivation is next |
 * | `rotating`  | `watching`                             | the rotation could not be made (no destination known): the key is disabled instead, or flagged |
 * | any         | (ended)                                | the period ended and nothing is left to do, the key was re-enabled, rotated, or deleted |
 *
 * Never a key value; names and ids only.
 */
import path from 'node:path';
import { z } from '../api/zod.js';
import { MachineRecord, type RecordSpec } from './record.js';

/** The states (the module's table). */
export const GuardrailStateSchema = z.enum(['watching', 'disabling', 'disabled', 'overridden', 'enabling', 'rotating']);
/** See {@link GuardrailStateSchema}. */
export type GuardrailState = z.infer<typeof GuardrailStateSchema>;

/** Which rule an entry is about. */
export const GuardrailRuleKindSchema = z.enum(['budget', 'expiry', 'age']);

/** One key's rule in one period. Times are ISO 8601 (the service's clock for the period). */
export const GuardrailEntrySchema = z.object({
  id: z.string().min(1),
  profile: z.string(),
  origin: z.string(),
  startedAt: z.string(),
  updatedAt: z.string(),
  state: GuardrailStateSchema,
  keyId: z.string(),
  keyName: z.string(),
  rule: GuardrailRuleKindSchema,
  /** A budget's period (`day`, `week`, `month`). */
  period: z.enum(['day', 'week', 'month']).optional(),
  /** The period's start (a budget), or when the deadline passed (`expiry`, `age`). */
  periodStart: z.string(),
  /** The period's end: when a key the budget disabled comes back (a budget only). */
  periodEnd: z.string().optional(),
  /** The budget's limit, USD. */
  limitUsd: z.number().optional(),
  /** What the rule does at its limit or deadline. */
  action: z.enum(['warn', 'disable', 'rotate', 'flag']),
  /** False: a key disabled by the budget stays disabled when the period ends. */
  reenable: z.boolean().default(true),
  /** What was said in this period, once each: `0.8`, `0.95`, `limit`, `warning`, `disabled`… */
  said: z.array(z.string()).default([]),
});
/** See {@link GuardrailEntrySchema}. */
export type GuardrailEntry = z.infer<typeof GuardrailEntrySchema>;

/** Most entries kept. */
export const MAX_GUARDRAIL_ENTRIES = 5000;

/** `<dataDir>/guardrails.json`. */
export function guardrailRecordPath(dataDir: string): string {
  return path.join(dataDir, 'guardrails.json');
}

/** The moves of the module's table. */
export const GUARDRAIL_TRANSITIONS: Readonly<Record<GuardrailState, readonly GuardrailState[]>> = {
  watching: ['disabling', 'rotating'],
  disabling: ['disabled'],
  disabled: ['overridden', 'enabling'],
  overridden: [],
  enabling: [],
  rotating: ['watching'],
};

/** The record of guardrail actions of one data dir. */
export type GuardrailRecord = MachineRecord<GuardrailEntry, GuardrailState>;

/** True when `a` and `b` are the same key's same rule in the same period. */
export function samePeriod(
  a: Pick<GuardrailEntry, 'profile' | 'origin' | 'keyId' | 'rule' | 'periodStart'>,
  b: Pick<GuardrailEntry, 'profile' | 'origin' | 'keyId' | 'rule' | 'periodStart'>,
): boolean {
  return a.profile === b.profile && a.origin === b.origin && a.keyId === b.keyId && a.rule === b.rule && a.periodStart === b.periodStart;
}

/** The record of guardrail actions of `dataDir` (see the module comment). */
export function guardrailRecord(dataDir: string): GuardrailRecord {
  const spec: RecordSpec<GuardrailEntry, GuardrailState> = {
    kind: 'guardrail',
    schema: GuardrailEntrySchema,
    initial: 'watching',
    transitions: GUARDRAIL_TRANSITIONS,
    file: guardrailRecordPath(dataDir),
    field: 'guardrails',
    what: 'the guardrail record',
    idle: 'no guardrail has said or done anything in this period',
    held: 'what the guardrails said and did in the current periods (which keys they disabled, and until when)',
    most: MAX_GUARDRAIL_ENTRIES,
    conflict: (all, fields) => (all.some((e) => samePeriod(e, fields)) ? { code: 'guardrail_recorded', name: fields.keyName } : undefined),
  };
  return new MachineRecord(dataDir, spec);
}
