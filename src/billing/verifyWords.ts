/**
 * The outcome of a USDC verify (./verifyUsdc.ts) in the sentences a user reads, shared by the TUI's
 * walk-through and `keydeck billing verify`: what was credited or refused, what keydeck does not
 * know, and the next step in each face's words ({@link VerifyHints}).
 */
import { formatUsd } from '../api/money.js';
import type { JournalEntry } from './journal.js';
import { messageOf } from './topUpPorts.js';
import type { VerifyOutcome } from './verifyUsdc.js';

/** Words for the user's next step, by face (TUI keys or command lines). */
export interface VerifyHints {
  /** How to verify again with the amount actually sent. */
  readonly amountSent: string;
  /** How to verify again. */
  readonly again: string;
}

/** "The USDC top-up of $25.00 to 0x… still awaits its payment on keydeck's record: …". */
export function stillAwaits(entry: JournalEntry): string {
  return `The USDC top-up of ${formatUsd(entry.amount)}${entry.address !== undefined ? ` to ${entry.address}` : ''} still awaits its payment on keydeck’s record: verify the transfer that paid it when you have its hash.`;
}

/** The outcome in sentences (shared by the TUI and the commands). */
export function verifyOutcomeLines(outcome: VerifyOutcome, amount: number, hints: VerifyHints): string[] {
  switch (outcome.kind) {
    case 'credited':
      return outcome.byEarlierVerify
        ? [
            `Credited ${formatUsd(outcome.credited)}: keydeck’s earlier verification of this transaction, whose answer was lost, credited it (${outcome.entry.evidence ?? 'the service now says the hash was used'}).`,
          ]
        : [`Credited ${formatUsd(outcome.credited)}${outcome.balance !== undefined ? `: the balance is ${formatUsd(outcome.balance)}` : ''}.`];
    case 'already_credited':
      return [
        `Already credited: this transaction credited ${formatUsd(outcome.entry.credited ?? outcome.entry.amount)} on ${outcome.entry.updatedAt.slice(0, 16).replace('T', ' ')} UTC (keydeck’s record). Nothing was sent.`,
      ];
    case 'refused': {
      // I4: an instruction a transfer may still pay stays open, and says so.
      const open = outcome.entry.state === 'awaiting_payment' ? [stillAwaits(outcome.entry)] : [];
      if (outcome.code === 'amount_mismatch') {
        return [`Refused: the amount must equal what was sent in this transaction, and it is not ${formatUsd(amount)}.`, `If you sent a different amount, ${hints.amountSent}.`, ...open];
      }
      return [`Refused: ${outcome.entry.reason ?? 'this transaction hash was already used'}; a transfer is credited once.`, 'Check the hash, or the list of top-ups.', ...open];
    }
    case 'unknown':
      return [
        'The verification was sent but its answer was lost, so keydeck does not know whether it was credited. The top-up stays "verifying".',
        `Verifying again is safe (${hints.again}): a transaction is credited once at most, and keydeck recognises its own earlier verification.`,
      ];
    case 'used_unconfirmed':
      return [
        `The service says this hash was already used, and keydeck cannot tell whether its own earlier verification, whose answer was lost, credited it: ${outcome.entry.reason ?? 'the balance could not be read to confirm it'}.`,
        `The top-up stays "verifying": check the balance, then ${hints.again}.`,
      ];
    case 'not_found':
      return [
        'Not found yet: the transfer may still be confirming on Base, or it did not pay this deposit address.',
        outcome.entry.state === 'awaiting_payment'
          ? `Try again in a minute (${hints.again}): keydeck never retries it by itself. The top-up stays open, even after a restart.`
          : `Try again in a minute (${hints.again}): keydeck never retries it by itself, and keeps the hash on its record.`,
      ];
    case 'failed':
      return [messageOf(outcome.error) + '.', `Nothing was credited by this request and nothing was retried: ${hints.again} when the problem is solved.`];
    case 'not_sent':
      return [`${messageOf(outcome.error)}.`, 'Nothing was sent.'];
  }
}
