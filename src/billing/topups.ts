/**
 * The top-up procedures shared by the TUI and the commands, so both write the same
 * record (src/billing/journal.ts) the same way and claim the same things:
 *
 * - {@link recordTopUp} and {@link answerOnRecord}: a `POST /api/billing/topup` answer on record
 *   (checkout link checked, USDC address checksummed and the instruction's own amount recorded, a
 *   card-on-file charge credited only when its answer says so), for the one top-up procedure that
 *   sends it (src/operations/topUp.ts);
 * - {@link verifyUsdc} (./verifyUsdc.ts, its sentences in ./verifyWords.ts, both re-exported here): `POST /api/billing/verify-topup` for one hash, the record moved to
 *   `verifying` (with the `totalTopUp` baseline) before anything is sent, then by the answer;
 * - {@link checkCardPayments}: `GET /api/billing/status` read for records that name the pending
 *   card top-ups (src/billing/evidence.ts).
 *
 * Nothing here retries: every request is sent once per call.
 */
import { checkoutUrlProblem } from '../api/baseUrl.js';
import type { TopUpResult } from '../api/client.js';
import { toChecksumAddress } from './eip681.js';
import { instructionDiffersSentence } from './instruction.js';
import { directChargeEvidence, paymentEvidence } from './evidence.js';
import { inScope, isUnfinished, type JournalEntry, type JournalScope, type NewJournalEntry, type TopUpJournal } from './journal.js';

import { type TopUpPorts } from './topUpPorts.js';

export * from './topUpPorts.js';
export * from './verifyUsdc.js';
export * from './verifyWords.js';

// ---------------------------------------------------------------------------------------------
// recordTopUp

/** Result of {@link recordTopUp}. */
export interface RecordedTopUp {
  readonly entry: JournalEntry;
  /** Sentences about what was refused or is unsure (a refused checkout link, a bad address, …). */
  readonly problems: readonly string[];
  /** Sentences the user must read that are not problems (see {@link topUpNotes}). */
  readonly notes: readonly string[];
}

/**
 * What a top-up's answer says that the user must read: a USDC instruction naming another
 * amount than the `amount` requested (USD) gets one sentence naming both
 * (src/billing/instruction.ts); otherwise nothing.
 */
export function topUpNotes(amount: number, result: TopUpResult): string[] {
  return result.method === 'usdc' && result.amountDiffers ? [instructionDiffersSentence(amount, result.data.amount)] : [];
}

/**
 * Puts the answer `result` of a top-up of `amount` USD on record in `scope`: USDC and card
 * checkout `awaiting_payment`, card on file `verifying` (then `credited` when its answer names
 * it credited: a paid `status` or a numeric `credited`). The checkout link is kept only when
 * {@link checkoutUrlProblem} accepts it; a USDC address only in its EIP-55 form.
 * `baselineTotalTopUp` (USD), when read before the request, is kept to show a rise later.
 * @throws JournalError when the record cannot be written
 */
export async function recordTopUp(journal: TopUpJournal, scope: JournalScope, amount: number, result: TopUpResult, baselineTotalTopUp?: number): Promise<RecordedTopUp> {
  const problems: string[] = [];
  const fields: NewJournalEntry = {
    amount,
    method: result.method,
    state: result.method === 'card_direct' ? 'verifying' : 'awaiting_payment',
    host: scope.host,
    ...(scope.profile !== undefined && { profile: scope.profile }),
    ...(baselineTotalTopUp !== undefined && { baselineTotalTopUp }),
  };
  if (result.method === 'usdc') {
    let address = result.data.address;
    try {
      address = toChecksumAddress(result.data.address);
    } catch (error) {
      problems.push((error as Error).message);
    }
    Object.assign(fields, { address, chain: result.data.chain, instructedAmount: result.data.amount });
    // The instruction is what must be sent: its amount is the top-up's (the QR code, the verify,
    // the history); the amount requested is kept beside it.
    if (result.amountDiffers) Object.assign(fields, { amount: result.instructedAmount, requestedAmount: amount });
  } else if (result.method === 'card_checkout') {
    const problem = checkoutUrlProblem(result.data.sessionUrl);
    if (problem) problems.push(problem);
    Object.assign(fields, {
      sessionId: result.data.sessionId,
      ...(problem === undefined ? { sessionUrl: result.data.sessionUrl } : { reasonCode: 'checkout_url_refused', reason: problem.replace(/\.$/, '') }),
    });
  }
  const entry = await journal.add(fields);
  if (result.method === 'card_direct') return answerOnRecord(journal, entry, amount, result);
  return { entry, problems, notes: topUpNotes(amount, result) };
}

/**
 * Puts a card-on-file charge's answer `result` on its record `entry` (written `verifying` before
 * the request was sent: src/operations/topUp.ts): the payment's id when the answer gives one, and
 * `credited` when it names the charge credited (a paid `status` or a numeric `credited`);
 * otherwise it stays `verifying`, and a problem says so. An answer of another method changes nothing.
 * @throws JournalError when the record cannot be written
 */
export async function answerOnRecord(journal: TopUpJournal, entry: JournalEntry, amount: number, result: TopUpResult): Promise<RecordedTopUp> {
  const problems: string[] = [];
  if (result.method !== 'card_direct') return { entry, problems, notes: topUpNotes(amount, result) };
  const said = directChargeEvidence(result.data);
  let now = entry;
  if (said.paymentId !== undefined) now = (await journal.update(now.id, { paymentId: said.paymentId })) ?? now;
  if (said.credited) {
    now =
      (await journal.update(now.id, {
        state: 'credited',
        credited: said.amount ?? amount,
        ...(said.balance !== undefined && { balance: said.balance }),
        evidence: 'the answer to this card charge says it was credited',
      })) ?? now;
  } else {
    problems.push(
      'The card charge was sent, but its answer does not say that it was credited: the top-up stays "verifying" until the service names it. Check the billing status and the card statement.',
    );
  }
  return { entry: now, problems, notes: topUpNotes(amount, result) };
}

/** True for a record whose card payment the billing status may name. */
export function awaitsCardEvidence(entry: JournalEntry): boolean {
  return entry.method !== 'usdc' && isUnfinished(entry.state) && (entry.sessionId !== undefined || entry.paymentId !== undefined);
}

/**
 * Reads the billing status once and marks credited every record of `scope` among `candidates`
 * (card top-ups awaiting payment or verifying) that it names as paid. Returns the records it
 * changed; an unreadable or unrecognisable status changes nothing.
 * @throws KeydeckApiError when the status cannot be read
 */
export async function checkCardPayments(ports: TopUpPorts, candidates: readonly JournalEntry[]): Promise<JournalEntry[]> {
  const waiting = candidates.filter((e) => awaitsCardEvidence(e) && inScope(e, ports.scope));
  if (waiting.length === 0) return [];
  const status = await ports.client.billing.status();
  const changed: JournalEntry[] = [];
  for (const entry of waiting) {
    const said = paymentEvidence(status, { sessionId: entry.sessionId, paymentId: entry.paymentId });
    if (said.kind !== 'paid') continue;
    const next = await ports.journal.update(entry.id, (current) =>
      current.state === 'credited' ? undefined : { state: 'credited', credited: said.amount ?? current.amount, evidence: said.where, reason: undefined, reasonCode: undefined },
    );
    if (next) changed.push(next);
  }
  return changed;
}
