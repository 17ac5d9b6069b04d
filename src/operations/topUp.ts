/**
 * The one top-up procedure of the faces, a machine of the kit (./kit.ts, `topup`): a top-up asked
 * for by a person, from the TUI's walk-through (src/tui/flows/topup/useTopUpFlow.ts) or `keydeck
 * billing topup` (src/commands/billing.ts). Both drive it: the same baseline read, the same request
 * sent once, the same record (the top-up record, src/billing/journal.ts, whose declared moves every
 * update checks), in this order (its kit points in brackets):
 *
 * | step | what                                                                 | written before        | a kill after it leaves                                     |
 * |------|----------------------------------------------------------------------|-----------------------|------------------------------------------------------------|
 * | 1    | the top-up record checked as it is on disk (src/billing/journal.ts "Fail closed") | —      | nothing changed                                            |
 * | 2    | the baseline read: `totalTopUp` before the request                   | —                     | nothing changed                                            |
 * | 3    | a card-on-file charge: on record, `verifying`, with its baseline (`record.written:topups`, `topup.begin:recorded`) | the request | a charge in flight, perhaps never sent: it counts as pending (auto top-up charges nothing while it is; the pane and `billing history` list it) |
 * | 4    | `POST /api/billing/topup`, sent once, never retried (`request:`/`answered:topUp`; step `request`, `topup.request`) | —          | a card charge: on record, `verifying`, its outcome unknown; an instruction (USDC, a checkout session): perhaps made at the service, never shown, so nothing can be paid to it |
 * | 5    | the step's commit, the answer on record (`topup.request:recorded`): a charge `credited` when its answer says so (else still `verifying`), `refused` (the service refused it), `closed` (never sent); an instruction `awaiting_payment` with its baseline, its address or session | — | done: the face shows the instruction (none is shown before it is on record) |
 *
 * A card charge moves money when its request arrives, so its record is written before the request
 * is sent: no charge the service makes is missing from the record. An instruction moves no money:
 * the user pays it once shown, and it is recorded, with its baseline, before it is shown (a record
 * written before its request would await a payment no money can reach). The crash walks of this
 * procedure (`billing topup --method card_direct`, the TUI's top-up) are in docs/crash-safety.md.
 */
import { randomUUID } from 'node:crypto';
import type { TopUpResult } from '../api/client.js';
import type { TopUpMethod } from '../api/schemas.js';
import type { JournalEntry, NewJournalEntry } from '../billing/journal.js';
import { answerOnRecord, recordTopUp, topUpNotes, type RecordedTopUp } from '../billing/topups.js';
import { codeOf, messageOf, outcomeUnknown, type TopUpClient, type TopUpPorts } from '../billing/topUpPorts.js';
import { isRecordDamaged } from '../config/recordDamage.js';
import { isFailpointHalt } from '../failpoints/index.js';
import { DriveMemo, drive, step, type KitContext, type Machine, type Next } from './kit.js';

/** The client calls of the procedure: a KeydeckClient's `billing`, or a stand-in in tests. */
export interface TopUpRequestClient extends TopUpClient {
  readonly billing: TopUpClient['billing'] & { topUp(input: { amount: number; method: string }): Promise<TopUpResult> };
}

/** What the procedure reads and writes; `failpoints`: its steps' (src/failpoints `failpointsFrom`: crash walks only). */
export interface TopUpRequestPorts extends TopUpPorts, Pick<KitContext, 'failpoints' | 'emit'> {
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
 * Runs the procedure (the module's table) for `request`: drives the machine `topup`, telling each
 * step to `onStep`.
 * Never throws for what the service or the record does (the outcome says it); a failpoint's halt
 * (src/failpoints: an in-process crash walk) goes through untouched, as does the kit's `crashed`.
 */
export async function requestTopUp(ports: TopUpRequestPorts, request: TopUpRequest, onStep?: (step: TopUpStep) => void): Promise<TopUpRequestOutcome> {
  const ctx: TopUpContext = { ports, request, ...(onStep && { onStep }), failpoints: ports.failpoints, emit: ports.emit };
  return drive(topUpMachine, ctx, { plan: request }, 'run', undefined);
}

/** The machine's context: the kit's, the ports, the request and who hears the steps. */
interface TopUpContext extends KitContext {
  readonly ports: TopUpRequestPorts;
  readonly request: TopUpRequest;
  readonly onStep?: (step: TopUpStep) => void;
}

/** The operation: a charge's record (`entry`, recorded before its request), or an instruction not recorded yet (its own id). */
interface TopUpOp {
  readonly id: string;
  readonly baseline: number;
  readonly entry?: JournalEntry;
}

/** What the request step's effect got: the answer, or the error. */
type Sent = { readonly result: TopUpResult } | { readonly error: unknown };

class TopUpMemo extends DriveMemo<undefined> {
  /** What the request step's commit made of the answer. */
  outcome: TopUpRequestOutcome | undefined;
}

/** The machine (the module's table): begin (steps 1–3), the step `request` (4, its commit 5). */
const topUpMachine: Machine<TopUpOp, TopUpContext, TopUpRequest, undefined, TopUpMemo, TopUpRequestOutcome> = {
  name: 'topup',
  kind: 'topup',
  memo: (mode, input) => new TopUpMemo(mode, input),
  label: () => 'top-up',

  async begin(ctx, request) {
    const { journal, client, scope } = ctx.ports;
    const charge = request.kind === 'card_direct';
    ctx.onStep?.('checking_record');
    try {
      await journal.check();
    } catch (error) {
      if (isFailpointHalt(error)) throw error;
      // One that cannot be trusted may hold a charge in flight: nothing is sent. One that cannot be
      // written stops a charge (it must be on record first); an instruction is recorded after its answer.
      if (isRecordDamaged(error) || charge) return { stop: { kind: 'not_requested', step: 'record', error } };
    }
    ctx.onStep?.('reading_balance');
    let baseline: number;
    try {
      baseline = (await client.billing.credits()).totalTopUp;
    } catch (error) {
      if (isFailpointHalt(error)) throw error;
      return { stop: { kind: 'not_requested', step: 'baseline', error } };
    }
    if (!charge) return { id: randomUUID(), baseline };
    ctx.onStep?.('recording');
    const fields: NewJournalEntry = {
      amount: request.amount,
      method: 'card_direct',
      state: 'verifying',
      host: scope.host,
      ...(scope.profile !== undefined && { profile: scope.profile }),
      baselineTotalTopUp: baseline,
    };
    try {
      const entry = await journal.add(fields);
      return { id: entry.id, baseline, entry };
    } catch (error) {
      if (isFailpointHalt(error)) throw error;
      return { stop: { kind: 'not_requested', step: 'record', error } };
    }
  },

  async next(ctx, op, memo): Promise<Next<TopUpOp, TopUpRequestOutcome>> {
    if (memo.done.has('request')) return { stop: memo.outcome! };
    const { request, ports } = ctx;
    ctx.onStep?.('requesting');
    return {
      step: step<TopUpOp, Sent>(
        'request',
        async () => {
          try {
            return { result: await ports.client.billing.topUp({ amount: request.amount, method: request.method ?? request.kind }) };
          } catch (error) {
            if (isFailpointHalt(error)) throw error;
            return { error };
          }
        },
        async (sent) => {
          const { outcome, entry } = await answered(ports, request, op, sent);
          memo.outcome = outcome;
          return entry && entry !== op.entry ? { ...op, entry } : op;
        },
      ),
    };
  },
};

/** Step 5: the answer (or the failure) on record, and the outcome; a record that cannot be written is said in the outcome. */
async function answered(ports: TopUpRequestPorts, request: TopUpRequest, op: TopUpOp, sent: Sent): Promise<{ outcome: TopUpRequestOutcome; entry?: JournalEntry | undefined }> {
  const pending = op.entry;
  if ('error' in sent) {
    const { error } = sent;
    const unknown = outcomeUnknown(error);
    if (!pending) return { outcome: { kind: 'failed', error, outcomeUnknown: unknown } };
    const settled = await settleFailedCharge(ports, pending, error);
    return { outcome: { kind: 'failed', error, outcomeUnknown: unknown, ...settled }, entry: settled.recordError === undefined ? settled.entry : undefined };
  }
  const { result } = sent;
  try {
    const recorded: RecordedTopUp = pending ? await answerOnRecord(ports.journal, pending, request.amount, result) : await recordTopUp(ports.journal, ports.scope, request.amount, result, op.baseline);
    return { outcome: { kind: 'answered', result, ...recorded }, entry: recorded.entry };
  } catch (error) {
    if (isFailpointHalt(error)) throw error;
    return { outcome: { kind: 'answered', result, ...(pending && { entry: pending }), problems: [], notes: topUpNotes(request.amount, result), recordError: error } };
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
