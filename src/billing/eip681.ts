/**
 * The USDC-on-Base payment request of a USDC top-up: EIP-55 checksummed addresses, USD
 * amounts in USDC's 6-decimal base units (integer arithmetic only), and the EIP-681 URI a phone
 * wallet scans from the QR code:
 *
 *     ethereum:<USDC contract>@8453/transfer?address=<deposit address>&uint256=<base units>
 *
 * (EIP-681: `ethereum:<target>[@<chain id>][/<function>][?<parameters>]`; an ERC-20 payment
 * targets the token contract and calls `transfer(address, uint256)`.) Also the words for what the
 * chain shows of such a payment: USDC amounts, short addresses, a found transfer as one line.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { FoundTransfer } from '../api/chain/reader.js';
import { groupThousands } from '../api/money.js';

import { BASE_CHAIN_ID, USDC_BASE_CONTRACT, USDC_DECIMALS } from '../api/chain/rpcUrl.js';
import { KeydeckError } from '../errors/index.js';

/** USDC's contract on Base mainnet, the chain id and USDC's decimals: one definition, in src/api/chain/rpcUrl.ts. */
export { BASE_CHAIN_ID, USDC_BASE_CONTRACT, USDC_DECIMALS };

/** Why an address or amount was refused, as a stable code. */
export type PaymentRequestErrorCode = 'invalid_address' | 'bad_checksum' | 'invalid_amount';

/** An address or amount that cannot go into a payment request; `message` is one sentence. */
export class PaymentRequestError extends KeydeckError {
  override readonly name = 'PaymentRequestError';
  override readonly code: PaymentRequestErrorCode;
  constructor(code: PaymentRequestErrorCode, message: string) {
    super(code, message);
    this.code = code;
  }
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The EIP-55 checksummed form of `address` (`0x` + 40 hex): each hex letter is upper case when
 * the matching nibble of keccak-256(lower-case hex, without `0x`) is ≥ 8.
 * @throws PaymentRequestError `invalid_address` when it is not `0x` + 40 hex digits;
 *   `bad_checksum` when it is mixed-case but not a valid checksum (a typo: never pay to it).
 */
export function toChecksumAddress(address: string): string {
  const trimmed = address.trim();
  if (!ADDRESS.test(trimmed)) {
    throw new PaymentRequestError('invalid_address', 'The deposit address is not 0x followed by 40 hex digits.');
  }
  const hex = trimmed.slice(2);
  const lower = hex.toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const byte = hash[i >> 1]!;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    const ch = lower[i]!;
    out += nibble >= 8 ? ch.toUpperCase() : ch;
  }
  const mixed = hex !== lower && hex !== hex.toUpperCase();
  if (mixed && `0x${hex}` !== out) {
    throw new PaymentRequestError('bad_checksum', 'The deposit address fails its EIP-55 checksum: it may be mistyped, do not send to it.');
  }
  return out;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Converts a USD amount to integer base units of `decimals` digits, without floating-point
 * arithmetic: `10.01` → `10010000n`, `"25"` → `25000000n`. A number is read through its
 * shortest decimal form (`String(10.01)` is `"10.01"`).
 * @throws PaymentRequestError `invalid_amount` for a negative, non-finite or exponent-form value,
 *   or one with more than `decimals` decimals.
 */
export function toBaseUnits(amount: number | string, decimals: number = USDC_DECIMALS): bigint {
  const text = typeof amount === 'number' ? (Number.isFinite(amount) ? String(amount) : '') : amount.trim();
  const match = DECIMAL.exec(text);
  if (!match) throw new PaymentRequestError('invalid_amount', `The amount "${text}" is not a plain positive decimal number.`);
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    throw new PaymentRequestError('invalid_amount', `The amount ${text} has more than ${decimals} decimals.`);
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** Base units back to a plain decimal string without trailing zeros: `10010000n` → `"10.01"`. */
export function fromBaseUnits(units: bigint, decimals: number = USDC_DECIMALS): string {
  const scale = 10n ** BigInt(decimals);
  const whole = units / scale;
  const fraction = (units % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}

/**
 * USDC base units as USD text for people: at least two decimals and every further non-zero digit
 * kept ("24.50", "24.505"), thousands grouped unless `grouped: false` (the record's form).
 */
export function usdcText(units: bigint, options: { readonly grouped?: boolean } = {}): string {
  const [whole = '0', fraction = ''] = fromBaseUnits(units).split('.');
  return `${options.grouped === false ? whole : groupThousands(whole)}.${fraction.padEnd(2, '0')}`;
}

/** An address (or hash) shortened for narrow places and sentences: `0x12ab…9f3c`. */
export function shortAddress(address: string): string {
  return address.length <= 12 ? address : `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/** Input of {@link usdcTransferUri}. */
export interface UsdcTransferRequest {
  /** The deposit address of the USDC payment instruction (`0x` + 40 hex; checksummed here). */
  readonly address: string;
  /** The amount in USD (= USDC), a number or decimal string with at most 6 decimals. */
  readonly amount: number | string;
}

/**
 * The EIP-681 URI of a USDC transfer of `amount` to `address` on Base mainnet:
 * `ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=<EIP-55>&uint256=<units>`.
 * @throws PaymentRequestError for an unusable address or amount (see {@link toChecksumAddress},
 *   {@link toBaseUnits}); also `invalid_amount` for zero.
 */
export function usdcTransferUri(request: UsdcTransferRequest): string {
  const address = toChecksumAddress(request.address);
  const units = toBaseUnits(request.amount);
  if (units <= 0n) throw new PaymentRequestError('invalid_amount', 'The amount must be above zero.');
  return `ethereum:${USDC_BASE_CONTRACT}@${BASE_CHAIN_ID}/transfer?address=${address}&uint256=${units}`;
}

/**
 * A transfer found on chain as one line: amount, sender, hash, confirmations (`narrow`: the hash
 * shortened and "conf.", for the TUI's step).
 */
export function foundTransferLine(t: FoundTransfer, options: { readonly narrow?: boolean } = {}): string {
  const hash = options.narrow ? shortAddress(t.txHash) : t.txHash;
  const confirmations = options.narrow ? 'conf.' : `confirmation${t.confirmations === 1n ? '' : 's'}`;
  return `${usdcText(t.value)} USDC from ${shortAddress(t.from)} · ${hash} · ${t.confirmations} ${confirmations}`;
}
