/**
 * src/operations: keydeck's multi-step operations as machines of one kit (./kit.ts): a record
 * with a declared table of states and moves that every update is checked against (./record.ts),
 * one loop `drive(machine, ctx, start, mode)` that observes the world each turn, picks the next
 * step and performs its one effect, typed events and coded failures (./events.ts) worded by the
 * faces through one wording table (./wording.ts). The machines: create and deliver a key, a
 * pledge's key and rotate a consumption key (./createKey.ts, ./pledgeKey.ts, ./rotateKey.ts:
 * configurations of the mint-and-deliver sub-machine ./mint.ts, ./targets.ts), rotate a
 * management key (./mgmtRotate.ts, the places a key lives ./credentialPlace.ts). Their records:
 * ./keyOperationRecord.ts, ./rotationRecord.ts, ./mgmtRotationRecord.ts. The guardrails: a
 * machine per key, rule and period (./guardrail.ts, its record ./guardrailRecord.ts, its words
 * ./guardrailWords.ts) driven by one pass over the account (./guardrailPass.ts); the account as a
 * file: ./policyPlan.ts (`plan`), ./applyPolicy.ts (`apply`). The locks of the
 * operations a face drives: ./drivers.ts. Auto top-up (./autoTopUp.ts, driven after each balance
 * read by ./autoTopUpRunner.ts, its words ./wordingAutoTopUp.ts) and a person's top-up
 * (./topUp.ts) and a USDC verify (./verify.ts) are machines whose record is the top-up record (src/billing/journal.ts, with its
 * declared moves; auto top-up's state between runs ./autoTopUpSummary.ts). test/crash walks
 * every machine's steps (the kit's failpoints, in process) and every boundary of the process
 * (src/failpoints, SIGKILL).
 *
 * This file is what the faces may import of the key operations: the drive entry points, the
 * read-only queries (./queries.ts), the contexts, the wording table and the types. A face never
 * runs a machine's steps itself (test/house checks it).
 *
 * May import: src/api, src/billing, src/config, src/credentials, src/delivery, src/failpoints.
 * Imported by: src/commands, src/tui and src/exporter (the faces drive them), and src/watcher
 * (auto top-up's runner, after each balance read).
 */
export { drive, OperationError, type DriveMode } from './kit.js';
export { failpointsFrom, type Failpoints } from '../failpoints/index.js';
export type { KeyRef, OperationEvent, OperationFailure, OperationKind, PlaceRef } from './events.js';
export { createKeyMachine, keyOperationContext, type CreateInput, type CreateOutcome, type CreatePlan, type KeyOperationContext } from './createKey.js';
export { oldName, rotateKeyMachine, rotationContext, type RotateInput, type RotateOutcome, type RotationContext, type RotationPlan } from './rotateKey.js';
export { resumeManagementRotation, rotateManagementKey, type MgmtRotateInput, type MgmtRotationContext, type MgmtRotationResult } from './mgmtRotate.js';
export { CredentialPlaceError, storePlace, tokenFilePlace, type CredentialPlace } from './credentialPlace.js';
export { OperationDrivers } from './drivers.js';
export type { NewKey } from './mint.js';
export type { KeyOperation } from './keyOperationRecord.js';
export { OldKeyActionSchema, type OldKeyAction, type Rotation } from './rotationRecord.js';
export { MgmtRotationRecord, type MgmtRotation } from './mgmtRotationRecord.js';
export { guardrailContext, guardrailMachine, type GuardrailContext, type GuardrailInput, type GuardrailOutcome, type GuardrailPlan } from './guardrail.js';
export type { GuardrailEntry } from './guardrailRecord.js';
export { guardrailDecisions, runGuardrailPass, type GuardrailDecision, type GuardrailFigures, type GuardrailPassResult } from './guardrailPass.js';
export {
  destinationsOf,
  governedByPattern,
  guardrailViews,
  planPolicy,
  rulesOf,
  type KeyGuardrailView,
  type PolicyChange,
  type PolicyNote,
  type PolicyPlan,
  type PolicyProblem,
  type PolicyWorld,
} from './policyPlan.js';
export { applyPolicy, type AppliedChange, type ApplyContext, type ApplyResult } from './applyPolicy.js';
export {
  drivenNow,
  guardrailEntries,
  guardrailMark,
  type GuardrailMark,
  holdersOf,
  pendingRotationOf,
  rotationRefusal,
  unfinishedCreations,
  unfinishedMgmtRotations,
  unfinishedRotations,
  type Scope,
  type Unfinished,
} from './queries.js';
export {
  createCommand,
  destinationsWords,
  eventPhrases,
  eventWords,
  failureLine,
  failureWords,
  guardrailWords,
  sentence,
  statusWords,
  unfinishedWords,
  type Face,
  type FailureWords,
} from './wording.js';
export type { GuardrailNotice } from './events.js';
export { autoCharges, failureStreak, runAutoTopUp, summarize, type AutoTopUpClient, type AutoTopUpOutcome, type AutoTopUpPause, type AutoTopUpSummary } from './autoTopUp.js';
export { AutoTopUpFeed, AutoTopUpRunner, type AutoTopUpNotice, type AutoTopUpStep, type AutoTopUpView } from './autoTopUpRunner.js';
export { autoTopUpLine, autoTopUpSentence } from './wordingAutoTopUp.js';
export { verifyUsdc, type VerifyPorts } from './verify.js';
export { requestTopUp, type TopUpRequest, type TopUpRequestClient, type TopUpRequestOutcome, type TopUpRequestPorts, type TopUpStep } from './topUp.js';
