/**
 * `POST /api/billing/verify-topup` for one USDC transfer (§2.6, issue 13), shared by the TUI and
 * `keydeck billing verify`: {@link verifyUsdc} moves the record to `verifying` (with the
 * `totalTopUp` baseline) before anything is sent, then by the answer; {@link verifyOutcomeLines}
 * says the outcome. Nothing here retries: every request is sent once per call.
 */
import type { CreditBalance, VerifiedTopUp } from '../api/schemas.js';
import { formatDollars } from './input.js';
import { type JournalEntry, type TopUpJournal } from './journal.js';

import { cents, codeOf, messageOf, outcomeUnknown, type TopUpPorts } from './topUpPorts.js';

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
  /** The record (the TUI's step); without it, the record with this hash, else the one USDC record awaiting this amount, else a new record. */
  readonly entryId?: string;
  /** `0x` + 64 hex (checked by the caller; stored lower case). */
  readonly txHash: string;
  /** USD sent in the transfer (checked by the caller). */
  readonly amount: number;
  /** What the chain showed about this transfer (issue 25), kept on the record. */
  readonly chainEvidence?: JournalEntry['chainEvidence'];
}

/**
 * The USDC top-ups of `entries` awaiting payment, of `amount` USD when given (the amount sent, when
 * the record has one): what `billing verify` pays and what `--find` watches.
 */
export function awaitingUsdc(entries: readonly JournalEntry[], amount?: number): JournalEntry[] {
  return entries.filter((e) => e.method === 'usdc' && e.state === 'awaiting_payment' && (amount === undefined || cents(e.amountSent ?? e.amount) === cents(amount)));
}

/** The record a CLI verify belongs to (see {@link VerifyRequest.entryId}); undefined when none or several. */
export async function recordForVerify(ports: TopUpPorts, txHash: string, amount: number): Promise<JournalEntry | undefined> {
  const withHash = (await ports.journal.withHash(txHash, ports.scope))[0];
  if (withHash) return withHash;
  const waiting = awaitingUsdc(await ports.journal.unfinished(ports.scope), amount).filter((e) => e.txHash === undefined);
  return waiting.length === 1 ? waiting[0] : undefined;
}

/** What keydeck's record says of a verify before anything is read or sent ({@link verifyOnRecord}). */
export type VerifyOnRecord =
  /** This hash, or the record, is credited on record: a verify would send nothing. */
  | { readonly credited: JournalEntry; readonly entry?: undefined }
  /** The record the verify acts on (by {@link VerifyRequest.entryId}, else {@link recordForVerify}); none: a new one. */
  | { readonly credited?: undefined; readonly entry?: JournalEntry };

/**
 * Looks `request` up on keydeck's record, as {@link verifyUsdc} does first: the chain is read
 * before a verify (issue 25) only when this says the verify would be sent.
 * @throws JournalError when the record cannot be read
 */
export async function verifyOnRecord(ports: TopUpPorts, request: Pick<VerifyRequest, 'entryId' | 'txHash' | 'amount'>): Promise<VerifyOnRecord> {
  const txHash = request.txHash.trim().toLowerCase();
  const seen = await ports.journal.creditedWithHash(txHash, ports.scope);
  if (seen) return { credited: seen };
  const entry = request.entryId !== undefined ? await ports.journal.get(request.entryId) : await recordForVerify(ports, txHash, request.amount);
  return entry?.state === 'credited' ? { credited: entry } : { ...(entry && { entry }) };
}

/**
 * Verifies the USDC transfer `txHash` of `amount` USD once and moves its record by the
 * module's table (src/billing/journal.ts): the record goes to `verifying` with the hash and the
 * `totalTopUp` baseline before the request is sent (a crash or a lost answer leaves it there);
 * a hash already credited on record is never sent again. Never throws for the service's or the
 * record's failures: they are outcomes.
 */
export async function verifyUsdc(ports: TopUpPorts, request: VerifyRequest): Promise<VerifyOutcome> {
  const { journal, client, scope } = ports;
  const txHash = request.txHash.trim().toLowerCase();
  const amount = request.amount;
  let entry: JournalEntry | undefined;
  try {
    const onRecord = await verifyOnRecord(ports, request);
    if (onRecord.credited) return { kind: 'already_credited', entry: onRecord.credited };
    entry = onRecord.entry;
  } catch (error) {
    return { kind: 'not_sent', error };
  }

  // The baseline: totalTopUp before this verify (kept from an earlier verify whose outcome is unknown).
  let baseline: number | undefined;
  let baselineError: unknown;
  try {
    baseline = (await client.billing.credits()).totalTopUp;
  } catch (error) {
    baselineError = error;
  }

  // On record before anything is sent.
  let priorUnknown = false;
  try {
    if (!entry) {
      if (baseline === undefined) return { kind: 'not_sent', error: baselineError };
      entry = await journal.add({
        amount,
        method: 'usdc',
        state: 'verifying',
        host: scope.host,
        ...(scope.profile !== undefined && { profile: scope.profile }),
        txHash,
        verifyBaselineTotalTopUp: baseline,
        ...(request.chainEvidence !== undefined && { chainEvidence: request.chainEvidence }),
      });
    } else {
      let missingBaseline = false;
      const updated = await journal.update(entry.id, (current) => {
        if (current.state === 'credited') return undefined;
        priorUnknown = current.state === 'verifying' && current.txHash === txHash;
        const kept = priorUnknown ? current.verifyBaselineTotalTopUp : undefined;
        if (kept === undefined && baseline === undefined) {
          missingBaseline = true;
          return undefined;
        }
        return {
          state: 'verifying',
          txHash,
          verifyBaselineTotalTopUp: kept ?? baseline,
          ...(cents(amount) !== cents(current.amount) ? { amountSent: amount } : {}),
          ...(request.chainEvidence !== undefined && { chainEvidence: request.chainEvidence }),
        };
      });
      if (!updated) return { kind: 'not_sent', error: new Error('the top-up is no longer on record') };
      if (updated.state === 'credited') return { kind: 'already_credited', entry: updated };
      if (missingBaseline) return { kind: 'not_sent', entry: updated, error: baselineError };
      entry = updated;
    }
  } catch (error) {
    return { kind: 'not_sent', ...(entry && { entry }), error };
  }
  const id = entry.id;
  const save = async (patch: Parameters<TopUpJournal['update']>[1]): Promise<JournalEntry> => (await journal.update(id, patch)) ?? entry!;

  let verified: VerifiedTopUp;
  try {
    verified = await client.billing.verifyTopUp({ txHash, amount });
  } catch (error) {
    try {
      return await afterFailure(ports, entry, error, amount, priorUnknown, save);
    } catch (recordError) {
      return { kind: 'not_sent', entry, error: recordError };
    }
  }
  const done = await save({
    state: 'credited',
    credited: verified.credited,
    balance: verified.balance,
    evidence: 'the verify answer for this transaction hash',
    reason: undefined,
    reasonCode: undefined,
    verifyBaselineTotalTopUp: undefined,
  }).catch(() => ({ ...entry!, state: 'credited' as const, credited: verified.credited, balance: verified.balance }));
  return { kind: 'credited', entry: done, credited: verified.credited, balance: verified.balance, byEarlierVerify: false };
}

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
  switch (code) {
    case 'tx_already_used': {
      if (!priorUnknown) {
        const next = await save({ state: 'refused', reasonCode: code, reason: 'this transaction hash was already used for another top-up', verifyBaselineTotalTopUp: undefined });
        return { kind: 'refused', entry: next, code, error };
      }
      // Its own earlier verify's outcome is unknown: credited only when totalTopUp rose by its amount since that verify's baseline.
      const baseline = entry.verifyBaselineTotalTopUp;
      let credits: CreditBalance | undefined;
      try {
        credits = await ports.client.billing.credits();
      } catch {
        credits = undefined;
      }
      if (baseline === undefined || credits === undefined) {
        const next = await save({
          reasonCode: 'used_unconfirmed',
          reason: 'the hash was already used, most likely by keydeck’s earlier verification whose answer was lost; the balance could not be read to confirm it',
        });
        return { kind: 'used_unconfirmed', entry: next, error };
      }
      const rise = cents(credits.totalTopUp) - cents(baseline);
      if (rise >= cents(amount)) {
        const next = await save({
          state: 'credited',
          credited: amount,
          balance: credits.remaining,
          evidence: `tx_already_used for this hash after keydeck’s own earlier verification, whose answer was lost, while the total of top-ups rose by ${formatDollars(rise / 100)} (at least ${formatDollars(amount)}) since that verification`,
          reason: undefined,
          reasonCode: undefined,
          verifyBaselineTotalTopUp: undefined,
        });
        return { kind: 'credited', entry: next, credited: amount, balance: credits.remaining, byEarlierVerify: true };
      }
      const next = await save({
        state: 'refused',
        reasonCode: code,
        reason: `this transaction hash was already used, and the total of top-ups rose by only ${formatDollars(Math.max(0, rise) / 100)} since keydeck’s earlier verification: another top-up used it`,
        verifyBaselineTotalTopUp: undefined,
      });
      return { kind: 'refused', entry: next, code, error };
    }
    case 'amount_mismatch': {
      const next = await save({ state: 'refused', reasonCode: code, reason: `the amount must equal what was sent (not ${formatDollars(amount)})`, verifyBaselineTotalTopUp: undefined });
      return { kind: 'refused', entry: next, code, error };
    }
    case 'not_found': {
      const next = await save({ state: 'awaiting_payment', reasonCode: code, reason: 'not found yet (may still be confirming)', verifyBaselineTotalTopUp: undefined });
      return { kind: 'not_found', entry: next, error };
    }
    default: {
      // Answered, nothing credited by this request; an earlier unknown verify stays unresolved.
      const next = await save(
        priorUnknown
          ? { reasonCode: code, reason: messageOf(error) }
          : { state: 'awaiting_payment', reasonCode: code, reason: messageOf(error), verifyBaselineTotalTopUp: undefined },
      );
      return { kind: 'failed', entry: next, error };
    }
  }
}

/** Words for the user's next step, by face (TUI keys or command lines). */
export interface VerifyHints {
  /** How to verify again with the amount actually sent. */
  readonly amountSent: string;
  /** How to verify again. */
  readonly again: string;
}

/** The outcome in sentences (shared by the TUI and the commands). */
export function verifyOutcomeLines(outcome: VerifyOutcome, amount: number, hints: VerifyHints): string[] {
  switch (outcome.kind) {
    case 'credited':
      return outcome.byEarlierVerify
        ? [
            `Credited ${formatDollars(outcome.credited)}: keydeck’s earlier verification of this transaction, whose answer was lost, credited it (the service now says the hash was used, and the total of top-ups rose by at least ${formatDollars(outcome.credited)} since).`,
          ]
        : [`Credited ${formatDollars(outcome.credited)}${outcome.balance !== undefined ? `: the balance is ${formatDollars(outcome.balance)}` : ''}.`];
    case 'already_credited':
      return [
        `Already credited: this transaction credited ${formatDollars(outcome.entry.credited ?? outcome.entry.amount)} on ${outcome.entry.updatedAt.slice(0, 16).replace('T', ' ')} UTC (keydeck’s record). Nothing was sent.`,
      ];
    case 'refused':
      if (outcome.code === 'amount_mismatch') {
        return [`Refused: the amount must equal what was sent in this transaction, and it is not ${formatDollars(amount)}.`, `If you sent a different amount, ${hints.amountSent}.`];
      }
      return [`Refused: ${outcome.entry.reason ?? 'this transaction hash was already used'}; a transfer is credited once.`, 'Check the hash, or the list of top-ups.'];
    case 'unknown':
      return [
        'The verification was sent but its answer was lost, so keydeck does not know whether it was credited. The top-up stays "verifying".',
        `Verifying again is safe (${hints.again}): a transaction is credited once at most, and keydeck recognises its own earlier verification.`,
      ];
    case 'used_unconfirmed':
      return [
        'The service says this hash was already used: most likely by keydeck’s earlier verification, whose answer was lost, but the balance could not be read to confirm it.',
        `The top-up stays "verifying": check the balance, then ${hints.again}.`,
      ];
    case 'not_found':
      return [
        'Not found yet: the transfer may still be confirming on Base, or it did not pay this deposit address.',
        `Try again in a minute (${hints.again}): keydeck never retries it by itself. The top-up stays open, even after a restart.`,
      ];
    case 'failed':
      return [messageOf(outcome.error) + '.', `Nothing was credited by this request and nothing was retried: ${hints.again} when the problem is solved.`];
    case 'not_sent':
      return [`${messageOf(outcome.error)}.`, 'Nothing was sent.'];
  }
}
