/**
 * What the top-up walk-through accepts as typed: an amount in USD (§4, §8: at least 10, at most
 * two decimals) and a transaction hash (`0x` + 64 hex), each with the reason in words while it
 * is refused. Pure.
 */
import { MAX_TOP_UP_USD, MIN_TOP_UP_USD, TopUpAmountSchema, TxHashSchema } from '../../../api/schemas.js';

const AMOUNT_TEXT = /^\$?\s*(\d+)(?:\.(\d*))?$/;

/** Result of {@link parseAmount}. */
export type AmountParse = { ok: true; amount: number } | { ok: false; reason: string };

/**
 * Reads a typed amount ("25", "$10.01", "1,000" not accepted) as USD. Refusals, in words:
 * empty, not a number, more than two decimals, below 10, above the sanity bound.
 */
export function parseAmount(text: string): AmountParse {
  const t = text.trim();
  if (t === '') return { ok: false, reason: `type an amount in USD, at least ${MIN_TOP_UP_USD}` };
  const m = AMOUNT_TEXT.exec(t);
  if (!m) return { ok: false, reason: 'digits only, with an optional decimal point (e.g. 25 or 10.50)' };
  const decimals = m[2] ?? '';
  if (decimals.length > 2) return { ok: false, reason: 'at most two decimals (whole cents)' };
  const amount = Number(`${m[1]}.${decimals || '0'}`);
  if (amount < MIN_TOP_UP_USD) return { ok: false, reason: `the minimum top-up is ${MIN_TOP_UP_USD} USD` };
  if (amount > MAX_TOP_UP_USD) return { ok: false, reason: `at most ${MAX_TOP_UP_USD.toLocaleString('en-US')} USD in one top-up` };
  const checked = TopUpAmountSchema.safeParse(amount);
  if (!checked.success) return { ok: false, reason: checked.error.issues[0]?.message ?? 'not a valid amount' };
  return { ok: true, amount: checked.data };
}

/** The hash as it will be sent: trimmed, lower case. */
export function normalizeHash(text: string): string {
  return text.trim().toLowerCase();
}

/**
 * Why a typed transaction hash is not (yet) valid, or undefined when it is `0x` + 64 hex.
 * Counts the digits while typing ("12 of 64 hex digits").
 */
export function hashProblem(text: string): string | undefined {
  const t = normalizeHash(text);
  if (t === '') return 'paste the transaction hash: 0x followed by 64 hex digits';
  if (!t.startsWith('0x')) return 'a transaction hash starts with 0x';
  const digits = t.slice(2);
  if (/[^0-9a-f]/.test(digits)) return 'only hex digits (0-9, a-f) after 0x';
  if (digits.length < 64) return `${digits.length} of 64 hex digits`;
  if (digits.length > 64) return `too long: ${digits.length} hex digits, a hash has 64`;
  return TxHashSchema.safeParse(t).success ? undefined : 'not a transaction hash';
}
