/**
 * `POST /api/billing/verify-topup` for one USDC transfer, shared by the TUI and
 * `keydeck billing verify`, driven by the machine `verify` (src/operations/verify.ts):
 * {@link recordVerify} moves the record to `verifying` (with the `totalTopUp` baseline) before
 * anything is sent, {@link verifyAnswerOnRecord} by the answer; ./verifyWords.ts says the outcome.
 * Nothing here sends the verify nor retries.
 */
import type { VerifiedTopUp } from '../api/schemas.js';
import { MAX_TRIED_HASHES, type JournalEntry, type TopUpJournal } from './journal.js';
import { finishedReferences, usedHashVerdict } from './usedHash.js';

import { cents, codeOf, messageOf, outcomeUnknown, type TopUpPorts } from './topUpPorts.js';
import { formatUsd } from '../api/money.js';
import { KeydeckError } from '../errors/index.js';

/** How a verification ended. Every kind but `not_sent` and `already_credited` sent one request. */
export type VerifyOutcome =
  /** Credited: by this verify's answer, or (`byEarlierVerify`) by keydeck's own earlier verify whose answer was lost. */
  | { readonly kind: 'credited'; readonly entry: JournalEntry; readonly credited: number; readonly balance?: number; readonly byEarlierVerify: boolean }
  /** Another record (or this one) was credited with this hash: nothing was sent. */
  | { readonly kind: 'already_credited'; readonly entry: JournalEntry }
  /** The service refused this top-up for a reason about it (`amount_mismatch`, `tx_already_used`). */
  | { readonly kind: 'refused'; readonly entry: JournalEntry; readonly code: string; readonly error: unknown }
  /** Sent, and its answer was lost: still `verifying`. */
  | { readonly kind: 'unknown'; readonly entry: JournalEntry; readonly error: unknown }
  /** `tx_already_used` after keydeck's own unknown verify, but the rise could not be confirmed: still `verifying`. */
  | { readonly kind: 'used_unconfirmed'; readonly entry: JournalEntry; readonly error: unknown }
  /** The service does not see the transfer (yet): back to `awaiting_payment`. */
  | { readonly kind: 'not_found'; readonly entry: JournalEntry; readonly error: unknown }
  /** Answered without crediting, for a reason not about this top-up (rate limit, credential…). */
  | { readonly kind: 'failed'; readonly entry: JournalEntry; readonly error: unknown }
  /** Nothing was sent (the baseline could not be read, or the record could not be written). */
  | { readonly kind: 'not_sent'; readonly entry?: JournalEntry; readonly error: unknown };

/** What to verify. */
export interface VerifyRequest {
  /** The record (the TUI's step); without it, {@link recordForVerify}'s, else a new record. */
  readonly entryId?: string;
  /** `0x` + 64 hex (checked by the caller; stored lower case). */
  readonly txHash: string;
  /** USD sent in the transfer (checked by the caller). */
  readonly amount: number;
  /** What the chain showed about this transfer, kept on the record. */
  readonly chainEvidence?: JournalEntry['chainEvidence'];
}

/**
 * The USDC top-ups of `entries` awaiting payment, of `amount` USD when given (the amount sent, when
 * the record has one): what `billing verify` pays and what `--find` watches.
 */
export function awaitingUsdc(entries: readonly JournalEntry[], amount?: number): JournalEntry[] {
  return entries.filter((e) => e.method === 'usdc' && e.state === 'awaiting_payment' && (amount === undefined || cents(e.amountSent ?? e.amount) === cents(amount)));
}

/**
 * The USDC instructions of `entries` a transfer may still pay (I4): a deposit address
 * was given and nothing is credited yet (`awaiting_payment`, or `verifying`: {@link verifyUsdc}
 * then refuses another hash until that verify's outcome is known). Of `amount` USD (the amount
 * sent, when the record has one) and to the address `to` (any case), when given.
 */
export function openInstructions(entries: readonly JournalEntry[], options: { readonly amount?: number | undefined; readonly to?: string | undefined } = {}): JournalEntry[] {
  const { amount, to } = options;
  return entries.filter(
    (e) =>
      e.method === 'usdc' &&
      e.address !== undefined &&
      (e.state === 'awaiting_payment' || e.state === 'verifying') &&
      (amount === undefined || cents(e.amountSent ?? e.amount) === cents(amount)) &&
      (to === undefined || e.address.toLowerCase() === to.toLowerCase()),
  );
}

/** Which record a verify without a record id belongs to ({@link recordForVerify}). */
export interface VerifyMatch {
  /** The record: the one verified with this hash, else the one open instruction for this amount (and address). */
  readonly entry?: JournalEntry;
  /** Several open instructions fit: the caller asks which (none is picked). */
  readonly ambiguous?: readonly JournalEntry[];
}

/**
 * The record a verify of `txHash` belongs to (I4: one instruction, one record): the record of this
 * service verified with that hash (now or before), else the one USDC instruction still open for
 * `amount` USD (any, when undefined or when none waits for that amount) and `to`; several:
 * `ambiguous`; none: a new record. A hash on
 * record only for a verify keydeck recorded on its own (no instruction: say, refused for a wrong
 * amount) gives way to the one instruction open for the amount given now.
 * @throws JournalError when the record cannot be read
 */
export async function recordForVerify(ports: TopUpPorts, txHash: string, amount?: number, to?: string): Promise<VerifyMatch> {
  const withHash = (await ports.journal.withHash(txHash, ports.scope))[0];
  if (withHash && (withHash.address !== undefined || withHash.state === 'credited' || amount === undefined)) return { entry: withHash };
  const unfinished = await ports.journal.unfinished(ports.scope);
  let open = byAddress(openInstructions(unfinished, { amount, to }));
  // One instruction is one record whatever amount is tried: an amount no instruction waits for
  // (a typo, a fee taken) goes to the one instruction waiting (to `to`, when given).
  if (open.length === 0 && amount !== undefined) open = byAddress(openInstructions(unfinished, { to }));
  if (withHash && open.length !== 1) return { entry: withHash };
  return open.length === 1 ? { entry: open[0]! } : open.length > 1 ? { ambiguous: open } : {};
}

/**
 * The newest of `entries` (newest first) for each deposit address: instructions of one amount to
 * one address (a service that gives each account one address) cannot be told apart by a
 * transfer, so the newest, the one the user was last shown, is the one it pays.
 */
function byAddress(entries: readonly JournalEntry[]): JournalEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => {
    const key = `${e.address?.toLowerCase()} ${cents(e.amountSent ?? e.amount)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What keydeck's record says of a verify before anything is read or sent ({@link verifyOnRecord}). */
export type VerifyOnRecord =
  /** This hash, or the record, is credited on record: a verify would send nothing. */
  | { readonly credited: JournalEntry; readonly entry?: undefined; readonly ambiguous?: undefined }
  /** The record the verify acts on (by {@link VerifyRequest.entryId}, else {@link recordForVerify}); none: a new one; several fit: `ambiguous`. */
  | { readonly credited?: undefined; readonly entry?: JournalEntry; readonly ambiguous?: readonly JournalEntry[] };

/**
 * Looks `request` up on keydeck's record, as {@link verifyUsdc} does first: the chain is read
 * before a verify only when this says the verify would be sent.
 * @throws JournalError when the record cannot be read
 */
export async function verifyOnRecord(ports: TopUpPorts, request: Pick<VerifyRequest, 'entryId' | 'txHash' | 'amount'>): Promise<VerifyOnRecord> {
  const txHash = request.txHash.trim().toLowerCase();
  const seen = await ports.journal.creditedWithHash(txHash, ports.scope);
  if (seen) return { credited: seen };
  const match = request.entryId !== undefined ? { entry: await ports.journal.get(request.entryId) } : await recordForVerify(ports, txHash, request.amount);
  const entry = match.entry;
  if (entry?.state === 'credited') return { credited: entry };
  return { ...(entry && { entry }), ...(match.ambiguous && { ambiguous: match.ambiguous }) };
}

/** A verify on record, ready to be sent: its record (`verifying`, with the hash and its baseline) and whether an earlier verify of the same hash has no known outcome. */
export interface VerifyOnItsWay {
  readonly entry: JournalEntry;
  readonly priorUnknown: boolean;
}

/**
 * The first step of a verify (src/operations/verify.ts drives them): looks the request up on
 * record, reads the `totalTopUp` baseline, and moves the record to `verifying` with the hash and
 * that baseline (or makes one) before anything is sent; a hash already credited on record is
 * never sent again. Never throws for the service's or the record's failures: they are outcomes
 * (`outcome`: nothing is to be sent).
 */
export async function recordVerify(ports: TopUpPorts, request: VerifyRequest): Promise<VerifyOnItsWay | { readonly outcome: VerifyOutcome }> {
  const { journal, client, scope } = ports;
  const txHash = request.txHash.trim().toLowerCase();
  const amount = request.amount;
  let entry: JournalEntry | undefined;
  try {
    const onRecord = await verifyOnRecord(ports, request);
    if (onRecord.credited) return { outcome: { kind: 'already_credited', entry: onRecord.credited } };
    if (onRecord.ambiguous) {
      return {
        outcome: {
          kind: 'not_sent',
          error: new KeydeckError('several_topups', `${onRecord.ambiguous.length} USDC top-ups of this amount await payment: say which one this transfer paid (its deposit address)`),
        },
      };
    }
    entry = onRecord.entry;
  } catch (error) {
    return { outcome: { kind: 'not_sent', error } };
  }

  // The baseline: totalTopUp before this verify, and the finished top-ups the billing status lists
  // (kept from an earlier verify whose outcome is unknown): what ./usedHash.ts reads if its answer is lost.
  let baseline: number | undefined;
  let baselineError: unknown;
  let listed: string[] | undefined;
  try {
    baseline = (await client.billing.credits()).totalTopUp;
  } catch (error) {
    baselineError = error;
  }
  if (baseline !== undefined) {
    try {
      listed = finishedReferences(await client.billing.status());
    } catch {
      listed = undefined; // Said by its absence: a lost answer is then judged by the rise alone.
    }
  }

  // On record before anything is sent.
  let priorUnknown = false;
  try {
    if (!entry) {
      if (baseline === undefined) return { outcome: { kind: 'not_sent', error: baselineError } };
      entry = await journal.add({
        amount,
        method: 'usdc',
        state: 'verifying',
        host: scope.host,
        ...(scope.profile !== undefined && { profile: scope.profile }),
        txHash,
        verifyBaselineTotalTopUp: baseline,
        ...(listed !== undefined && { verifyBaselineListed: listed }),
        ...(request.chainEvidence !== undefined && { chainEvidence: request.chainEvidence }),
      });
    } else {
      let missingBaseline = false;
      let pendingHash: string | undefined;
      const updated = await journal.update(entry.id, (current) => {
        if (current.state === 'credited') return undefined;
        const earlier = current.txHash?.toLowerCase();
        // Another hash of this top-up was sent and its outcome is not known: it may have credited it.
        if (current.state === 'verifying' && earlier !== undefined && earlier !== txHash) {
          pendingHash = earlier;
          return undefined;
        }
        priorUnknown = current.state === 'verifying' && earlier === txHash;
        const kept = priorUnknown ? current.verifyBaselineTotalTopUp : undefined;
        if (kept === undefined && baseline === undefined) {
          missingBaseline = true;
          return undefined;
        }
        // I4: the same record, its deposit address kept; a hash that credited nothing is kept too.
        const tried = earlier !== undefined && earlier !== txHash ? [...(current.triedHashes ?? []).filter((h) => h !== earlier && h !== txHash), earlier].slice(-MAX_TRIED_HASHES) : undefined;
        return {
          state: 'verifying',
          txHash,
          verifyBaselineTotalTopUp: kept ?? baseline,
          verifyBaselineListed: kept !== undefined ? current.verifyBaselineListed : listed,
          ...(tried && { triedHashes: tried }),
          ...(cents(amount) !== cents(current.amount) ? { amountSent: amount } : {}),
          ...(request.chainEvidence !== undefined && { chainEvidence: request.chainEvidence }),
        };
      });
      if (!updated) return { outcome: { kind: 'not_sent', error: new KeydeckError('not_on_record', 'the top-up is no longer on record') } };
      if (updated.state === 'credited') return { outcome: { kind: 'already_credited', entry: updated } };
      if (pendingHash !== undefined) {
        return {
          outcome: {
            kind: 'not_sent',
            entry: updated,
            error: new KeydeckError('verify_pending', `this top-up was sent for verification with ${pendingHash}, and that verification's outcome is not known yet: verify ${pendingHash} again first`),
          },
        };
      }
      if (missingBaseline) return { outcome: { kind: 'not_sent', entry: updated, error: baselineError } };
      entry = updated;
    }
  } catch (error) {
    return { outcome: { kind: 'not_sent', ...(entry && { entry }), error } };
  }
  return { entry, priorUnknown };
}

/**
 * The last step of a verify: its answer (`sent`: the service's, or the error of the one request)
 * on record, by the module's table, and the outcome. Never throws for the service's or the
 * record's failures.
 */
export async function verifyAnswerOnRecord(
  ports: TopUpPorts,
  sending: VerifyOnItsWay,
  amount: number,
  sent: { readonly verified: VerifiedTopUp } | { readonly error: unknown },
): Promise<VerifyOutcome> {
  const { entry, priorUnknown } = sending;
  const save = async (patch: Parameters<TopUpJournal['update']>[1]): Promise<JournalEntry> => (await ports.journal.update(entry.id, patch)) ?? entry;
  if ('error' in sent) {
    try {
      return await afterFailure(ports, entry, sent.error, amount, priorUnknown, save);
    } catch (recordError) {
      return { kind: 'not_sent', entry, error: recordError };
    }
  }
  const { verified } = sent;
  const done = await save({
    state: 'credited',
    credited: verified.credited,
    balance: verified.balance,
    evidence: 'the service’s answer to verifying this transaction hash says it was credited',
    reason: undefined,
    reasonCode: undefined,
    verifyBaselineTotalTopUp: undefined,
    verifyBaselineListed: undefined,
  }).catch(() => ({ ...entry, state: 'credited' as const, credited: verified.credited, balance: verified.balance })); // the service's answer is the evidence; a record left verifying is settled by the next verify
  return { kind: 'credited', entry: done, credited: verified.credited, balance: verified.balance, byEarlierVerify: false };
}

/**
 * Where a verify that credited nothing leaves its record (I4): an instruction (a deposit address
 * was given) awaits payment again, since money may still arrive for it; a record a verify made on
 * its own is `refused` (no money can arrive for it but by its hash, verified again by that hash).
 */
function settled(entry: JournalEntry): 'awaiting_payment' | 'refused' {
  return entry.address !== undefined ? 'awaiting_payment' : 'refused';
}

/** The record's fields of an unknown verify's baseline, dropped once its outcome is known. */
const NO_BASELINE = { verifyBaselineTotalTopUp: undefined, verifyBaselineListed: undefined } as const;

async function afterFailure(
  ports: TopUpPorts,
  entry: JournalEntry,
  error: unknown,
  amount: number,
  priorUnknown: boolean,
  save: (patch: Parameters<TopUpJournal['update']>[1]) => Promise<JournalEntry>,
): Promise<VerifyOutcome> {
  const code = codeOf(error);
  if (outcomeUnknown(error)) {
    const next = await save({ reasonCode: 'outcome_unknown', reason: 'the answer to the verification was lost' });
    return { kind: 'unknown', entry: next, error };
  }
  /** Refused for this top-up: an instruction still awaits its payment (I4), a record of its own is refused. */
  const refusedHere = async (reason: string, patch: Parameters<TopUpJournal['update']>[1] = {}): Promise<VerifyOutcome> => {
    const next = await save({ state: settled(entry), reasonCode: code, reason, ...NO_BASELINE, ...patch });
    return { kind: 'refused', entry: next, code, error };
  };
  switch (code) {
    case 'tx_already_used': {
      if (!priorUnknown) return refusedHere('this transaction hash was already used for another top-up: it does not pay this one');
      // Its own earlier verify's outcome is unknown: ./usedHash.ts weighs the status and the balance.
      const [credits, status] = await Promise.all([
        ports.client.billing.credits().catch(() => undefined), // a balance not read is weighed as unknown by ./usedHash.ts
        ports.client.billing.status().then(
          (body) => ({ body }),
          () => undefined,
        ),
      ]);
      const verdict = usedHashVerdict(entry, amount, credits, status);
      if (verdict.kind === 'elsewhere') return refusedHere(verdict.reason);
      if (verdict.kind === 'unknown') {
        const next = await save({ reasonCode: 'used_unconfirmed', reason: verdict.reason });
        return { kind: 'used_unconfirmed', entry: next, error };
      }
      const next = await save({
        state: 'credited',
        credited: verdict.credited,
        ...(credits && { balance: credits.remaining }),
        evidence: verdict.evidence,
        reason: undefined,
        reasonCode: undefined,
        ...NO_BASELINE,
      });
      return { kind: 'credited', entry: next, credited: verdict.credited, ...(credits && { balance: credits.remaining }), byEarlierVerify: true };
    }
    case 'amount_mismatch':
      // The amount tried is not the transfer's: dropped, so that the next verify does not try it again.
      if (priorUnknown) {
        const next = await save({ reasonCode: code, reason: `the amount must equal what was sent (not ${formatUsd(amount)}); an earlier verification of this hash has no known outcome` });
        return { kind: 'refused', entry: next, code, error };
      }
      return refusedHere(`the amount must equal what was sent (not ${formatUsd(amount)})`, { amountSent: undefined });
    case 'not_found': {
      // An instruction waits for its money again; a verify recorded on its own (no address) is refused, verified again by its hash.
      const next = await save({ state: settled(entry), reasonCode: code, reason: 'not found yet (may still be confirming)', ...NO_BASELINE });
      return { kind: 'not_found', entry: next, error };
    }
    default: {
      // Answered, nothing credited by this request; an earlier unknown verify stays unresolved.
      const next = await save(priorUnknown ? { reasonCode: code, reason: messageOf(error) } : { state: settled(entry), reasonCode: code, reason: messageOf(error), ...NO_BASELINE });
      return { kind: 'failed', entry: next, error };
    }
  }
}
