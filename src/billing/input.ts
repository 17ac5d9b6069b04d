/**
 * Input that means money, read one way for the TUI and the commands: a USD
 * amount and a transaction hash, each refused with the reason in words. Pure.
 *
 * The amount rule (the stricter of the two the tool had): a plain decimal, digits with optionally
 * `.` and one or two more digits (`10`, `10.5`, `12.50`). Refused: `$` (in a shell `--amount $250`
 * becomes `50`), a trailing or leading dot (`25.`, `.5`), signs, exponents, thousands separators,
 * more than two decimals; then at least {@link MIN_TOP_UP_USD} and at most {@link MAX_TOP_UP_USD}
 *. So the amount sent is exactly the amount typed.
 *
 * A hash is `0x` + 64 hex digits; a longer one is refused with its count ("65 of 64 hex
 * digits"), never cut to 64.
 */
import { groupThousands } from '../api/money.js';
import { MAX_TOP_UP_USD, MIN_TOP_UP_USD, TopUpAmountSchema, TxHashSchema } from '../api/schemas.js';

/** What an amount is for: a new top-up, or a USDC transfer already sent (to verify). */
export type AmountPurpose = 'topup' | 'transfer';

/** Result of {@link parseUsdAmount}. */
export type AmountParse =
  | { readonly ok: true; readonly amount: number }
  | {
      readonly ok: false;
      /** The reason, as the end of a sentence (no final stop), e.g. "at most two decimals (whole cents)". */
      readonly reason: string;
      /**
       * `format` (not a plain decimal), `empty`, `decimals` (more than two), `minimum`, `maximum`;
       * `uncreditable` for a transfer that can never be credited (below the minimum, sub-cent digits).
       */
      readonly code: 'empty' | 'format' | 'decimals' | 'minimum' | 'maximum' | 'uncreditable';
    };

const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Reads `text` (trimmed) as USD by the module's rule. For a `transfer` (the amount a USDC
 * transfer actually sent), an amount below the minimum or with sub-cent digits is `uncreditable`:
 * the reason says that verify-topup can never credit it, and what to do.
 */
export function parseUsdAmount(text: string, purpose: AmountPurpose = 'topup'): AmountParse {
  const t = text.trim();
  if (t === '') return { ok: false, code: 'empty', reason: `type an amount in USD, at least ${MIN_TOP_UP_USD}` };
  const m = PLAIN_DECIMAL.exec(t);
  if (!m) {
    const hint = t.startsWith('$') ? 'the number only, without $' : /\.$/.test(t) ? 'no dot at the end' : 'digits with an optional decimal point';
    return { ok: false, code: 'format', reason: `an amount in USD is a plain decimal number such as 25 or 12.50 (${hint})` };
  }
  const decimals = m[2] ?? '';
  const amount = Number(`${m[1]}.${decimals || '0'}`);
  if (decimals.length > 2) {
    if (purpose === 'transfer' && /[1-9]/.test(decimals.slice(2))) {
      return { ok: false, code: 'uncreditable', reason: uncreditable(t, 'has digits below a cent, and a top-up is verified in whole cents') };
    }
    return { ok: false, code: 'decimals', reason: 'at most two decimals (whole cents)' };
  }
  if (amount < MIN_TOP_UP_USD) {
    if (purpose === 'transfer') return { ok: false, code: 'uncreditable', reason: uncreditable(t, `is below the ${MIN_TOP_UP_USD} USD minimum top-up`) };
    return { ok: false, code: 'minimum', reason: `the minimum top-up is ${MIN_TOP_UP_USD} USD` };
  }
  if (amount > MAX_TOP_UP_USD) return { ok: false, code: 'maximum', reason: `at most ${groupThousands(MAX_TOP_UP_USD)} USD in one top-up` };
  const checked = TopUpAmountSchema.safeParse(amount);
  if (!checked.success) return { ok: false, code: 'format', reason: checked.error.issues[0]?.message ?? 'not a valid amount' };
  return { ok: true, amount: checked.data };
}

function uncreditable(text: string, why: string): string {
  return (
    `a transfer of ${text} USDC ${why}, so the service can never credit it through verification; nothing was sent. ` +
    `Keep its transaction hash and ask the service's support about it; to top up, send a new transfer of at least ${MIN_TOP_UP_USD} USDC in whole cents`
  );
}

/** A hash as it is sent and stored: trimmed, lower case. */
export function normalizeTxHash(text: string): string {
  return text.trim().toLowerCase();
}

/** Hex digits of a transaction hash. */
export const TX_HASH_DIGITS = 64;

/**
 * Why `text` is not (yet) a transaction hash (`0x` + 64 hex), or undefined when it is. Counts
 * the digits both ways: "12 of 64 hex digits" while typing, "65 of 64 hex digits: 1 too many …"
 * for a longer one (never cut).
 */
export function txHashProblem(text: string): string | undefined {
  const t = normalizeTxHash(text);
  if (t === '') return `paste the transaction hash: 0x followed by ${TX_HASH_DIGITS} hex digits`;
  if (!t.startsWith('0x')) return 'a transaction hash starts with 0x';
  const digits = t.slice(2);
  if (/[^0-9a-f]/.test(digits)) return 'only hex digits (0-9, a-f) after 0x';
  if (digits.length < TX_HASH_DIGITS) return `${digits.length} of ${TX_HASH_DIGITS} hex digits`;
  if (digits.length > TX_HASH_DIGITS) {
    const extra = digits.length - TX_HASH_DIGITS;
    return `${digits.length} of ${TX_HASH_DIGITS} hex digits: ${extra} too many; copy the hash again, whole and once (keydeck never cuts one)`;
  }
  return TxHashSchema.safeParse(t).success ? undefined : 'not a transaction hash';
}
