/**
 * A top-up record's model: its states and the moves between them, its fields
 * (zod), the scope a query is about, the errors of the record, the labels for humans. The record
 * on disk is ./journal.ts (which re-exports this module).
 *
 * ## States and transitions
 *
 * A top-up is `credited` or `refused` only on evidence that names it (src/billing/evidence.ts,
 * src/billing/verifyUsdc.ts); {@link update} refuses every move this table does not list
 * ({@link TransitionError}). A patch that keeps the state is always allowed.
 *
 * One instruction is one record, whatever the number of verify attempts, hashes or amounts (issue
 * 42, I4): a verify finds the record by its hash (the current one or an earlier one, `triedHashes`),
 * else the one USDC instruction of this service waiting for that amount (and deposit address, when
 * given), else, for an amount no instruction waits for, the one instruction waiting at all;
 * a new hash replaces the one that credited nothing, which is kept in `triedHashes`; the deposit
 * address stays, and with it the chain's recipient check. A record stays `awaiting_payment` only
 * while money may still arrive for it: an instruction whose address was given. A verify keydeck
 * recorded on its own (no instruction: no address) that credited nothing is `refused` with the
 * reason, and verified again by its hash. The crash points of the whole top-up (instruction,
 * verify, each record write) and the outcome of each are in docs/crash-safety.md.
 *
 * | from               | to                 | when                                                                   |
 * |--------------------|--------------------|------------------------------------------------------------------------|
 * | (new)              | `awaiting_payment` | the service gave a deposit address (USDC) or a checkout session (card) |
 * | (new)              | `verifying`        | a card-on-file charge is sent; a verify for a hash not on record       |
 * | `awaiting_payment` | `verifying`        | a verify (USDC) is sent: its hash and the `totalTopUp` baseline saved first |
 * | `refused`          | `verifying`        | the user verifies again (say, with the amount actually sent)           |
 * | `closed`           | `verifying`        | the user verifies a top-up they had closed (the transfer was made after all) |
 * | `verifying`        | `verifying`        | the answer was lost (timeout, connection, crash): outcome unknown; or another verify is sent (the first unknown verify's baseline kept) |
 * | `verifying`        | `credited`         | the verify answer for its hash; `tx_already_used` for its own hash after its own unknown verify, when the billing status lists the hash credited since that verify's baseline, or `totalTopUp` rose by ≥ its amount since that baseline beyond what other top-ups listed since explain (./usedHash.ts); the card charge's answer naming it credited |
 * | `awaiting_payment` | `credited`         | a service record names its checkout session (or payment) as paid       |
 * | `closed`           | `credited`         | the same evidence, after the user closed it (evidence beats the user's word) |
 * | `verifying`        | `refused`          | a record without an instruction (no address) whose verify credited nothing: refused for a reason about it (`amount_mismatch`, `tx_already_used` without the rule above), `not_found`, another answered failure |
 * | `verifying`        | `awaiting_payment` | an instruction's verify answered and credited nothing (`not_found`: not on chain yet; `amount_mismatch`: the amount tried is dropped; `tx_already_used` without the rule above: the hash paid another top-up, not this one), and no earlier verify is unresolved |
 * | `awaiting_payment` | `closed`           | the user closes it (nothing paid, or will not pay)                     |
 * | `verifying`        | `closed`           | the user closes it (after a warning: its outcome is unknown)           |
 * | `refused`          | `closed`           | the user closes it                                                     |
 * | `credited`         | —                  | final: nothing moves it                                                |
 *
 * A rise of `totalTopUp` that nothing names moves nothing: it is shown as what it is.
 */
import path from 'node:path';
import { z } from '../api/zod.js';
import { isLoopbackHost } from '../api/baseUrl.js';
import { TopUpMethodSchema, type TopUpMethod } from '../api/schemas.js';
import { dataDir } from '../config/paths.js';
import { RECORD_DAMAGED } from '../config/recordDamage.js';
import { KeydeckError } from '../errors/index.js';

/** State of a top-up: see the module's transition table. */
export const TopUpStateSchema = z.enum(['awaiting_payment', 'verifying', 'credited', 'refused', 'closed']);
/** See {@link TopUpStateSchema}. */
export type TopUpState = z.infer<typeof TopUpStateSchema>;

/**
 * Every move the record allows (the module's table, without the "(new)" rows), `from → to[]`.
 * Staying in the same state is always allowed.
 */
export const TRANSITIONS: Readonly<Record<TopUpState, readonly TopUpState[]>> = {
  awaiting_payment: ['verifying', 'credited', 'closed'],
  verifying: ['credited', 'refused', 'awaiting_payment', 'closed'],
  refused: ['verifying', 'closed'],
  closed: ['credited', 'verifying'],
  credited: [],
};

/** States a record may be created in. */
export const INITIAL_STATES: readonly TopUpState[] = ['awaiting_payment', 'verifying'];

/** True when the table allows `from → to` (or they are equal). */
export function canMove(from: TopUpState, to: TopUpState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** True for the states a top-up can still move on from by itself (it is reopened after a restart). */
export function isUnfinished(state: TopUpState): boolean {
  return state === 'awaiting_payment' || state === 'verifying';
}

/** What the chain showed about one USDC transfer when keydeck checked it (src/billing/chainChecks.ts). */
export const ChainEvidenceSchema = z.object({
  /** `0x` + 64 hex, lower case. */
  txHash: z.string(),
  /** Decimal block number. */
  blockNumber: z.string(),
  /** Blocks from its own to the head when checked, its own included. */
  confirmations: z.number(),
  /** The sender (EIP-55). */
  from: z.string(),
  /** USDC that reached the deposit address, as a decimal string of USD ("24.50"). */
  amount: z.string(),
  /** ISO 8601. */
  checkedAt: z.string(),
});
/** See {@link ChainEvidenceSchema}. */
export type ChainEvidence = z.infer<typeof ChainEvidenceSchema>;

/** Most earlier hashes a record keeps (`triedHashes`). */
export const MAX_TRIED_HASHES = 20;

/** One record. Amounts in USD; times ISO 8601. */
export const JournalEntrySchema = z.object({
  /** A random UUID of keydeck's own (not the service's). */
  id: z.string().min(1),
  createdAt: z.string(),
  updatedAt: z.string(),
  /**
   * USD of the top-up: the amount requested, except for USDC, where it is the instruction's
   * amount (what must be sent and is verified) when the service named another one.
   */
  amount: z.number(),
  /** USDC: the amount requested, USD, when the instruction named another (then `amount` is the instruction's). */
  requestedAmount: z.number().optional(),
  /** USDC: the amount the user says was actually sent, when it differs (used to verify), USD. */
  amountSent: z.number().optional(),
  method: TopUpMethodSchema,
  state: TopUpStateSchema,
  /** `host` (with port) of the service's base URL. */
  host: z.string(),
  /** The keydeck profile the top-up was made with. */
  profile: z.string().optional(),
  /** USDC: the deposit address (EIP-55) and chain of the USDC payment instruction. */
  address: z.string().optional(),
  chain: z.string().optional(),
  /** USDC: the amount string of the USDC payment instruction as the service sent it. */
  instructedAmount: z.string().optional(),
  /** Card checkout: the card checkout session session id and hosted page URL (to reopen it after a restart). */
  sessionId: z.string().optional(),
  sessionUrl: z.string().optional(),
  /** Card on file: the payment's id when the service's answer gave one. */
  paymentId: z.string().optional(),
  /** USDC: the transaction hash given by the user (`0x` + 64 hex, lower case). */
  txHash: z.string().optional(),
  /** USDC: hashes of earlier verifies of this top-up that credited nothing (lower case, oldest first, at most {@link MAX_TRIED_HASHES}). */
  triedHashes: z.array(z.string()).optional(),
  /** `totalTopUp` (USD) when the top-up was requested: only to show a rise, never to credit. */
  baselineTotalTopUp: z.number().optional(),
  /**
   * `totalTopUp` (USD) read just before the first verify whose outcome is still unknown was sent
   * (kept while the state stays `verifying`): the baseline of the `tx_already_used` rule.
   */
  verifyBaselineTotalTopUp: z.number().optional(),
  /**
   * The finished top-ups the billing status listed when that baseline was read: their references
   * (transaction hashes, session and payment ids), lower case, at most 200. Kept with the baseline;
   * absent when the status could not be read then. What tells a hash used before keydeck's verify
   * from one its verify credited, and a rise of the total by another top-up (./usedHash.ts).
   */
  verifyBaselineListed: z.array(z.string()).optional(),
  /** The last refusal or problem, in words, and its stable code. */
  reason: z.string().optional(),
  reasonCode: z.string().optional(),
  /** What the service credited (USD) and the balance after it (USD), once known. */
  credited: z.number().optional(),
  balance: z.number().optional(),
  /** What named it credited, in words ("the verify answer", "the billing status names session …"). */
  evidence: z.string().optional(),
  /** USDC: what the chain showed when keydeck checked the transfer. Beside the service's answers; never a verdict. */
  chainEvidence: ChainEvidenceSchema.optional(),
  /**
   * A card-on-file charge auto top-up made: when it decided (ISO 8601, the service's
   * clock), the balance it read (USD) and the policy's threshold (USD). Absent on a top-up a person asked for.
   */
  autoTopUp: z.object({ decidedAt: z.string(), remaining: z.number(), belowUsd: z.number() }).optional(),
});
/** See {@link JournalEntrySchema}. */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

/** Fields given when a top-up is first recorded. */
export type NewJournalEntry = Omit<JournalEntry, 'id' | 'createdAt' | 'updatedAt'>;
/** Fields that may change later (a field set to undefined is removed). */
export type JournalPatch = Partial<Omit<JournalEntry, 'id' | 'createdAt' | 'method' | 'host' | 'profile'>>;

/** Which service and profile a query is about. */
export interface JournalScope {
  /** `host` of the base URL (see {@link hostOf}). */
  readonly host: string;
  /** The profile; records of another profile do not match. */
  readonly profile?: string;
}

/** The database's path: `$KEYDECK_DATA_DIR/topups.db` when set, else `<env-paths data dir>/topups.db`. */
export function journalPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'topups.db');
}

export { hostOf } from '../api/baseUrl.js';

/**
 * True when two hosts are the same service: equal, or both loopback (the sandbox of
 * `keydeck --sandbox` gets a new free port on every start but keeps its database).
 */
export function sameService(a: string, b: string): boolean {
  if (a === b) return true;
  return isLoopbackHost(a) && isLoopbackHost(b);
}

/** True when `entry` belongs to `scope`. */
export function inScope(entry: JournalEntry, scope: JournalScope): boolean {
  if (!sameService(entry.host, scope.host)) return false;
  return entry.profile === undefined || scope.profile === undefined || entry.profile === scope.profile;
}

/**
 * A record problem (unwritable data dir, database locked too long, …); `message` is one sentence
 * naming the file. Codes: `journal_write_failed`, and its subclasses' `record_damaged`,
 * `invalid_transition`.
 */
export class JournalError extends KeydeckError {
  override readonly name: string = 'JournalError';
  override readonly code: string = 'journal_write_failed';
  readonly path: string;
  constructor(message: string, file: string) {
    super('journal_write_failed', message);
    this.path = file;
  }
}

/**
 * The record cannot be trusted as it is on disk (damaged, emptied or removed while its summary
 * says it held top-ups: ./journal.ts says how it is told): every charge and verify stops, and the
 * commands exit 3. The file is left where it is. `message` is the facts: the file, what is wrong,
 * what it held (./journalSummary.ts) and that nothing is charged or verified; the way out (the
 * user's word, ./journalLoss.ts) is each face's to say (src/words/topUpRecord.ts).
 */
export class JournalDamagedError extends JournalError {
  override readonly name = 'JournalDamagedError';
  /** The code of every record that cannot be read (src/config/recordDamage.ts). */
  override readonly code = RECORD_DAMAGED;
  /** What is wrong, in a few words ("it is not an SQLite database: its header is damaged"). */
  readonly problem: string;
  constructor(file: string, problem: string, held: string) {
    super(`the top-up record ${file} cannot be trusted (${problem}), and is left in place; ${held}. Nothing is charged or verified until it is repaired or replaced`, file);
    this.problem = problem;
  }
}

/** A move the transition table does not allow (a bug, or evidence read wrong): nothing is written. */
export class TransitionError extends JournalError {
  override readonly name = 'TransitionError';
  override readonly code = 'invalid_transition';
  readonly from: TopUpState;
  readonly to: TopUpState;
  constructor(from: TopUpState, to: TopUpState, file: string) {
    super(`a top-up cannot go from ${stateLabel(from)} to ${stateLabel(to)}; nothing was changed.`, file);
    this.from = from;
    this.to = to;
  }
}

/** The label of a state for humans: "awaiting payment", "verifying", "credited", "refused", "closed". */
export function stateLabel(state: TopUpState): string {
  return state.replace('_', ' ');
}

/** The label of a method for humans. */
export function methodLabel(method: TopUpMethod): string {
  return method === 'usdc' ? 'USDC on Base' : method === 'card_checkout' ? 'card checkout' : 'card direct';
}

/**
 * What a top-up asks of the user now (I4: nothing ever invites paying twice), shared by
 * the Billing pane and the walk-through: `pay` only for a USDC instruction no transfer was named
 * for yet; `verify` once a transaction hash was given and credited nothing known (not found yet,
 * refused), or for a card top-up awaiting its payment; `verifying` while a verify or a charge
 * has no known outcome; `credited`; `closed`.
 */
export type TopUpPhase = 'pay' | 'verify' | 'verifying' | 'credited' | 'closed';

/** See {@link TopUpPhase}. */
export function topUpPhase(entry: Pick<JournalEntry, 'method' | 'state' | 'txHash' | 'triedHashes'>): TopUpPhase {
  switch (entry.state) {
    case 'credited':
    case 'closed':
    case 'verifying':
      return entry.state;
    case 'refused':
      return 'verify';
    case 'awaiting_payment':
      return entry.method === 'usdc' && entry.txHash === undefined && (entry.triedHashes ?? []).length === 0 ? 'pay' : 'verify';
  }
}
