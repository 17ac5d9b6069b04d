/**
 * The one top-up procedure of the faces: a top-up asked for by a person, from the TUI's
 * walk-through (src/tui/flows/topup/useTopUpFlow.ts) or `keydeck billing topup`
 * (src/commands/billing.ts). Both read the same baseline, send the same request once and keep the
 * same record (./journal.ts), in this order:
 *
 * | step | what                                                                 | written before        | a kill after it leaves                                     |
 * |------|----------------------------------------------------------------------|-----------------------|------------------------------------------------------------|
 * | 1    | the top-up record checked as it is on disk (./journal.ts "Fail closed") | —                   | nothing changed                                            |
 * | 2    | the baseline read: `totalTopUp` before the request                   | —                     | nothing changed                                            |
 * | 3    | a card-on-file charge: on record, `verifying`, with its baseline (`record.written:topups`) | the request | a charge in flight, perhaps never sent: it counts as pending (auto top-up charges nothing while it is; the pane and `billing history` list it) |
 * | 4    | `POST /api/billing/topup`, sent once, never retried (`request:`/`answered:topUp`) | —          | a card charge: on record, `verifying`, its outcome unknown; an instruction (USDC, a checkout session): perhaps made at the service, never shown, so nothing can be paid to it |
 * | 5    | the answer on record: a charge `credited` when its answer says so (else still `verifying`), `refused` (the service refused it), `closed` (never sent); an instruction `awaiting_payment` with its baseline, its address or session | — | done: the face shows the instruction (none is shown before it is on record) |
 *
 * A card charge moves money when its request arrives, so its record is written before the request
 * is sent: no charge the service makes is missing from the record. An instruction moves no money:
 * the user pays it once shown, and it is recorded, with its baseline, before it is shown (a record
 * written before its request would await a payment no money can reach). The crash walks of this
 * procedure (`billing topup --method card_direct`, the TUI's top-up) are in docs/crash-safety.md.
 */
import type { TopUpResult } from '../api/client.js';
import type { TopUpMethod } from '../api/schemas.js';
import { isFailpointHalt } from '../failpoints/index.js';
import type { JournalEntry, NewJournalEntry } from './journal.js';
import { isRecordDamaged } from '../config/recordDamage.js';
import { answerOnRecord, recordTopUp, topUpNotes } from './topups.js';
import { codeOf, messageOf, outcomeUnknown, type TopUpClient, type TopUpPorts } from './topUpPorts.js';

/** The client calls of the procedure: a KeydeckClient's `billing`, or a stand-in in tests. */
export interface TopUpRequestClient extends TopUpClient {
  readonly billing: TopUpClient['billing'] & { topUp(input: { amount: number; method: string }): Promise<TopUpResult> };
}

/** What the procedure reads and writes. */
export interface TopUpRequestPorts extends TopUpPorts {
  readonly client: TopUpRequestClient;
}

/** A top-up asked for. */
export interface TopUpRequest {
  /** USD, at least 10, whole cents (checked by the face: src/billing/input.ts). */
  readonly amount: number;
  /** The kind (the seed's name): what the record says. */
  readonly kind: TopUpMethod;
  /** The name sent (a kind, a name of the profile's `topUpMethods`, or a page's); default `kind`. */
  readonly method?: string;
}

/** The step under way (a face shows it while it waits). */
export type TopUpStep = 'checking_record' | 'reading_balance' | 'recording' | 'requesting';

/** What the procedure did. */
export type TopUpRequestOutcome =
  /** Nothing was sent: the record cannot be trusted or written before a charge (`record`), or the balance could not be read (`baseline`). */
  | { readonly kind: 'not_requested'; readonly step: 'record' | 'baseline'; readonly error: unknown }
  /**
   * The request failed: refused by the service, never sent, or sent with its outcome unknown
   * (`outcomeUnknown`: the charge may have been made). `entry`: a charge's record as it is now.
   */
  | { readonly kind: 'failed'; readonly error: unknown; readonly outcomeUnknown: boolean; readonly entry?: JournalEntry; readonly recordError?: unknown }
  /**
   * The service answered: `entry` its record (undefined when it could not be written:
   * `recordError`, the answer is kept in memory by the face), `problems` and `notes` what the user
   * must read (./topups.ts).
   */
  | {
      readonly kind: 'answered';
      readonly result: TopUpResult;
      readonly entry?: JournalEntry;
      readonly problems: readonly string[];
      readonly notes: readonly string[];
      readonly recordError?: unknown;
    };

/**
 * Runs the procedure (the module's table) for `request`, telling each step to `onStep`.
 * Never throws for what the service or the record does (the outcome says it); a failpoint's halt
 * (src/failpoints: an in-process crash walk) goes through untouched.
 */
export async function requestTopUp(ports: TopUpRequestPorts, request: TopUpRequest, onStep?: (step: TopUpStep) => void): Promise<TopUpRequestOutcome> {
  const { journal, client, scope } = ports;
  const charge = request.kind === 'card_direct';
  onStep?.('checking_record');
  try {
    await journal.check();
  } catch (error) {
    if (isFailpointHalt(error)) throw error;
    // One that cannot be trusted may hold a charge in flight: nothing is sent. One that cannot be
    // written stops a charge (it must be on record first); an instruction is recorded after its answer.
    if (isRecordDamaged(error) || charge) return { kind: 'not_requested', step: 'record', error };
  }
  onStep?.('reading_balance');
  let baseline: number;
  try {
    baseline = (await client.billing.credits()).totalTopUp;
  } catch (error) {
    if (isFailpointHalt(error)) throw error;
    return { kind: 'not_requested', step: 'baseline', error };
  }
  let pending: JournalEntry | undefined;
  if (charge) {
    onStep?.('recording');
    const fields: NewJournalEntry = {
      amount: request.amount,
      method: 'card_direct',
      state: 'verifying',
      host: scope.host,
      ...(scope.profile !== undefined && { profile: scope.profile }),
      baselineTotalTopUp: baseline,
    };
    try {
      pending = await journal.add(fields);
    } catch (error) {
      if (isFailpointHalt(error)) throw error;
      return { kind: 'not_requested', step: 'record', error };
    }
  }
  onStep?.('requesting');
  let result: TopUpResult;
  try {
    result = await client.billing.topUp({ amount: request.amount, method: request.method ?? request.kind });
  } catch (error) {
    if (isFailpointHalt(error)) throw error;
    const unknown = outcomeUnknown(error);
    if (!pending) return { kind: 'failed', error, outcomeUnknown: unknown };
    return { kind: 'failed', error, outcomeUnknown: unknown, ...(await settleFailedCharge(ports, pending, error)) };
  }
  try {
    const recorded = pending ? await answerOnRecord(journal, pending, request.amount, result) : await recordTopUp(journal, scope, request.amount, result, baseline);
    return { kind: 'answered', result, ...recorded };
  } catch (error) {
    if (isFailpointHalt(error)) throw error;
    return { kind: 'answered', result, ...(pending && { entry: pending }), problems: [], notes: topUpNotes(request.amount, result), recordError: error };
  }
}

/**
 * A charge's failed request on record: its outcome unknown (still `verifying`, the reason kept),
 * never sent (`closed`), or refused by the service (`refused`, with its reason).
 */
async function settleFailedCharge(ports: TopUpRequestPorts, entry: JournalEntry, error: unknown): Promise<{ entry: JournalEntry; recordError?: unknown }> {
  const reason = messageOf(error);
  const patch = outcomeUnknown(error)
    ? { reason, reasonCode: codeOf(error) }
    : (error as { status?: unknown }).status === undefined
      ? { state: 'closed' as const, reason: `never sent: ${reason}`, reasonCode: 'not_sent' }
      : { state: 'refused' as const, reason, reasonCode: codeOf(error) };
  try {
    return { entry: (await ports.journal.update(entry.id, patch)) ?? entry };
  } catch (recordError) {
    if (isFailpointHalt(recordError)) throw recordError;
    return { entry, recordError };
  }
}
