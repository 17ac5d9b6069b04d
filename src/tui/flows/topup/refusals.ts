/**
 * What a failed `POST /api/billing/verify-topup` (§4, §7) means for the user, in words, and
 * what it does to the top-up's journal entry. Verification is never retried by itself: every
 * outcome here waits for the user. Pure.
 */
import type { JournalPatch } from '../../../billing/journal.js';
import { describeApiError } from '../../../api/describe.js';
import { formatUsd } from '../../format.js';
import { errorCode } from '../../errors.js';

/** A refusal explained. */
export interface VerifyRefusal {
  /** Stable code (the API error's, or `outcome_unknown`). */
  readonly code: string;
  /** One or two sentences for the walk-through. */
  readonly lines: readonly string[];
  /** The journal change. */
  readonly patch: JournalPatch;
}

/**
 * Explains `error` from verifying `txHash` for `amount` USD. `previousOutcomeUnknown`: an
 * earlier verification of this top-up was sent and its answer lost (then "already used" most
 * likely means that earlier attempt credited it).
 */
export function explainVerifyFailure(error: unknown, amount: number, previousOutcomeUnknown = false): VerifyRefusal {
  const code = errorCode(error) ?? 'error';
  const outcomeUnknown = (error as { outcomeUnknown?: unknown } | null)?.outcomeUnknown === true;
  if (outcomeUnknown) {
    return {
      code: 'outcome_unknown',
      lines: [
        'The verification was sent but its answer was lost, so keydeck does not know whether it was credited.',
        'Check the balance (r). Verifying again is safe: a transaction is credited once at most.',
      ],
      patch: { state: 'verifying', reasonCode: 'outcome_unknown', reason: 'the answer to the verification was lost' },
    };
  }
  switch (code) {
    case 'amount_mismatch':
      return {
        code,
        lines: [
          `Refused: the amount must equal what was sent in this transaction, and it is not ${formatUsd(amount)}.`,
          'If you sent a different amount, press e and verify with the amount you actually sent.',
        ],
        patch: { state: 'refused', reasonCode: code, reason: `the amount must equal what was sent (not ${formatUsd(amount)})` },
      };
    case 'tx_already_used':
      return {
        code,
        lines: previousOutcomeUnknown
          ? [
              'This transaction hash was already used: most likely by keydeck’s own earlier verification, whose answer was lost.',
              'Check the balance and the recent top-ups: it should already be credited.',
            ]
          : ['Refused: this transaction hash was already used to credit a top-up; a transfer is credited once.', 'Check the hash, or the recent top-ups.'],
        patch: { state: 'refused', reasonCode: code, reason: 'this transaction hash was already used' },
      };
    case 'not_found':
      return {
        code,
        lines: [
          'Not found yet: the transfer may still be confirming on Base, or it did not pay this deposit address.',
          'Try again in a minute (h, then enter): keydeck never retries it by itself. Your top-up stays open, even after a restart.',
        ],
        patch: { state: 'awaiting_payment', reasonCode: code, reason: 'not found yet (may still be confirming)' },
      };
    default:
      return {
        code,
        lines: [describeApiError(error), 'Nothing was retried: verify again (h, then enter) when the problem is solved.'],
        patch: { state: 'verifying', reasonCode: code, reason: describeApiError(error) },
      };
  }
}
