/**
 * Checks before verify: what Base shows about a USDC transfer, compared with
 * the top-up it is meant to pay, each mismatch as one sentence that says what the chain shows and
 * what to do. The chain's word improves the sentences and never the verdict: "credited" still
 * needs the service's verify answer (src/billing/evidence.ts), so a passed check only lets keydeck send
 * the verify without asking.
 *
 * {@link checkTransfer} is pure; {@link checkTransaction} loads the reader (viem) lazily and
 * never throws. Everything in a sentence that came from the RPC is a checked address, a chain id
 * or an integer: nothing the RPC wrote reaches a terminal as text.
 */
import type { ChainUnavailableError, ChainUnavailableReason, TransactionRead, TransferLog } from '../api/chain/reader.js';
import { BASE_CHAIN_ID, USDC_BASE_CONTRACT, rpcHostOf } from '../api/chain/rpcUrl.js';
import type { ChainSettings } from './chainSettings.js';
import { shortAddress, toBaseUnits, usdcText } from './eip681.js';
import type { ChainEvidence } from './journalEntry.js';

/** Why a transfer does not pay the top-up, as a stable code. */
export type ChainProblemCode = 'not_found' | 'pending' | 'reverted' | 'wrong_chain' | 'eth_not_usdc' | 'wrong_token' | 'no_transfer' | 'wrong_recipient' | 'amount_differs';

/** What the chain showed about one transfer (the record's `chainEvidence`, ./journalEntry.ts). */
export type { ChainEvidence };

/** The outcome of the checks for one hash. */
export type ChainCheck =
  /** Every check passed: `sentence` says what the chain shows. */
  | { readonly kind: 'passed'; readonly sentence: string; readonly evidence: ChainEvidence }
  /** One check failed: `sentence` says what the chain shows and what to do. */
  | { readonly kind: 'problem'; readonly code: ChainProblemCode; readonly sentence: string; readonly evidence?: ChainEvidence }
  /** The chain could not be read: `sentence` says so in one line; the service's verdict decides. */
  | { readonly kind: 'unavailable'; readonly sentence: string }
  /** The checks are off (`--no-chain`, `chainChecks: false`, or a sandbox without a chain). */
  | { readonly kind: 'off'; readonly why: string };

/** What the transfer is checked against. */
export interface ExpectedTransfer {
  readonly txHash: string;
  /** USD of the top-up (at most two decimals). */
  readonly amount: number;
  /** The instruction's deposit address, when the top-up record has it. */
  readonly depositAddress?: string;
}

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * Compares what the chain says (`read`) with the top-up (`expected`). Pure; `now` stamps the
 * evidence. The order of the checks: found, chain, mined, status, token, recipient, amount.
 */
export function checkTransfer(read: TransactionRead, expected: ExpectedTransfer, now: Date = new Date()): ChainCheck {
  if (read.chainId !== BASE_CHAIN_ID) {
    return {
      kind: 'problem',
      code: 'wrong_chain',
      sentence: `the chain RPC serves chain id ${read.chainId}, not Base (${BASE_CHAIN_ID}): point --chain-rpc at a Base endpoint to check this transfer`,
    };
  }
  if (read.kind === 'not_found') {
    return { kind: 'problem', code: 'not_found', sentence: 'no transaction with this hash on Base: was it sent on another network? Check the hash and the network in the wallet' };
  }
  if (read.kind === 'pending') {
    return { kind: 'problem', code: 'pending', sentence: 'pending: not in a block yet; wait until the wallet shows it confirmed, then verify' };
  }
  if (read.status === 'reverted') {
    return { kind: 'problem', code: 'reverted', sentence: 'reverted: no USDC moved, nothing can be credited; send the payment again' };
  }
  const usdc = read.transfers.filter((t) => same(t.token, USDC_BASE_CONTRACT));
  if (usdc.length === 0) {
    const other = read.transfers[0];
    if (other) {
      return {
        kind: 'problem',
        code: 'wrong_token',
        sentence: `this transaction moved another token (${shortAddress(other.token)}), not native USDC (${shortAddress(USDC_BASE_CONTRACT)}): the service credits native USDC on Base only`,
      };
    }
    if (read.valueWei > 0n) {
      return { kind: 'problem', code: 'eth_not_usdc', sentence: 'this transaction moved ETH, not USDC: the service credits native USDC on Base only' };
    }
    return { kind: 'problem', code: 'no_transfer', sentence: 'this transaction moved no USDC: check the hash in the wallet' };
  }
  const toDeposit = expected.depositAddress !== undefined ? usdc.filter((t) => same(t.to, expected.depositAddress!)) : usdc;
  if (toDeposit.length === 0) {
    return {
      kind: 'problem',
      code: 'wrong_recipient',
      sentence: `USDC went to ${shortAddress(usdc[0]!.to)}, not to the deposit address ${shortAddress(expected.depositAddress!)}: it cannot be credited to this top-up`,
    };
  }
  const recipients = new Set(toDeposit.map((t) => t.to.toLowerCase()));
  const arrived = toDeposit.reduce((sum, t: TransferLog) => sum + t.value, 0n);
  const evidence: ChainEvidence = {
    txHash: expected.txHash.toLowerCase(),
    blockNumber: read.blockNumber.toString(),
    confirmations: Number(read.confirmations > 1_000_000_000n ? 1_000_000_000n : read.confirmations),
    from: read.from,
    amount: usdcText(arrived, { grouped: false }),
    checkedAt: now.toISOString(),
  };
  if (recipients.size > 1) {
    return { kind: 'problem', code: 'wrong_recipient', sentence: `USDC went to ${recipients.size} addresses in this transaction: verify it on the service's word only`, evidence };
  }
  const wanted = toBaseUnits(expected.amount);
  if (arrived !== wanted) {
    return {
      kind: 'problem',
      code: 'amount_differs',
      sentence: `${usdcText(arrived)} USDC arrived, the top-up is for ${usdcText(wanted)}: verify with ${usdcText(arrived)} or top up again`,
      evidence,
    };
  }
  const blocks = evidence.confirmations === 1 ? '1 confirmation' : `${evidence.confirmations} confirmations`;
  return {
    kind: 'passed',
    sentence: `the chain shows ${usdcText(arrived)} USDC from ${shortAddress(read.from)} to ${shortAddress(toDeposit[0]!.to)} in block ${evidence.blockNumber} (${blocks})`,
    evidence,
  };
}

/**
 * The one line for a chain that could not be read: `error` is what the reader threw (a
 * `ChainUnavailableError` names its reason; anything else counts as an invalid answer).
 */
export function unavailableSentence(rpcUrl: string, error: unknown): string {
  const { reason, status } = (error ?? {}) as Partial<Pick<ChainUnavailableError, 'reason' | 'status'>>;
  const why: Record<ChainUnavailableReason, string> = {
    timeout: 'it did not answer in time',
    unreachable: 'it cannot be reached',
    too_large: 'its answer was too large',
    http_status: `it answered HTTP ${status ?? '?'}`,
    invalid_answer: 'its answer was not a valid chain answer',
  };
  return `the chain could not be read at ${rpcHostOf(rpcUrl)} (${why[reason ?? 'invalid_answer'] ?? why.invalid_answer}): going on with the service's verdict alone`;
}

/**
 * Reads `expected.txHash` on the chain of `settings` and checks it ({@link checkTransfer});
 * `timeoutMs` bounds each RPC request (default the reader's, 8 s).
 * Never throws: an unreadable chain is `unavailable`, checks turned off are `off`.
 */
export async function checkTransaction(settings: ChainSettings, expected: ExpectedTransfer, options: { readonly timeoutMs?: number } = {}): Promise<ChainCheck> {
  if (!settings.enabled) return { kind: 'off', why: settings.why };
  const { ChainReader } = await import('../api/chain/reader.js');
  try {
    const reader = new ChainReader(settings.rpcUrl, options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {});
    return checkTransfer(await reader.readTransaction(expected.txHash as `0x${string}`), expected);
  } catch (error) {
    return { kind: 'unavailable', sentence: unavailableSentence(settings.rpcUrl, error) };
  }
}
