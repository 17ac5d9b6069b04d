/**
 * Checks the command-line input of `keys`, `mgmt-keys` and `billing` with the shared request
 * schemas of src/api/schemas.ts before any request is sent. A refusal ends the command with exit
 * 2 and one sentence `invalid_request: <flag> <reason>` (see {@link fail}).
 */
import type { z } from 'zod';
import { SubscriptionIdSchema } from '../api/poolSchemas.js';
import { KeyIdSchema, KeyNameSchema } from '../api/schemas.js';
import { normalizeTxHash, parseUsdAmount, txHashProblem, type AmountPurpose } from '../billing/input.js';
import { toChecksumAddress } from '../billing/eip681.js';
import { ExitCode, fail } from './output.js';
import { accountWords } from './wordingAccount.js';

/** The first issue's message of a failed zod parse. */
function reasonOf(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'is invalid';
}

/** Parses `value` with `schema` or ends the command (exit 2) naming `what` (a flag or argument). */
function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) fail(ExitCode.usage, accountWords.invalidInput, { what, problem: reasonOf(parsed.error) });
  return parsed.data;
}

/** A key name (`--name`): trimmed, 1–128 characters, no control characters. Exit 2 otherwise. */
export function parseKeyName(text: string): string {
  return check(KeyNameSchema, text, '--name');
}

/** A key id (the `ID` argument): non-empty, no `/ ? #` or spaces. Exit 2 otherwise. */
export function parseKeyId(text: string): string {
  return check(KeyIdSchema, text, 'ID');
}

/**
 * A subscription or pool pledge id (`--subscription`, or `what`: `SUBSCRIPTION_ID`): 1–200
 * letters, digits, `_-.:`. Exit 2 otherwise.
 */
export function parseSubscriptionId(text: string, what = '--subscription'): string {
  return check(SubscriptionIdSchema, text, what);
}

/**
 * A transaction hash (`--tx`): `0x` + 64 hex digits, checked by the rule the TUI uses
 * (src/billing/input.ts: a longer one is refused with its count, never cut). Exit 2 otherwise.
 * @returns the hash, lower case
 */
export function parseTxHash(text: string): string {
  const problem = txHashProblem(text);
  if (problem) fail(ExitCode.usage, accountWords.invalidTxHash, { problem });
  return normalizeTxHash(text);
}

/**
 * A USD amount (`--amount`) by the rule the TUI uses (src/billing/input.ts): a plain decimal
 * (`10`, `10.5`, `12.50`), ≥ 10 and ≤ 1,000,000. `purpose` `transfer` (a USDC transfer
 * already sent) says when such a transfer can never be credited, and what to do. Exit 2 otherwise.
 * @returns the amount in USD
 */
export function parseAmount(text: string, flag = '--amount', purpose: AmountPurpose = 'topup'): number {
  const parsed = parseUsdAmount(text, purpose);
  if (!parsed.ok) {
    const got = parsed.code === 'format' ? ` (got "${text.trim().slice(0, 40)}")` : '';
    fail(ExitCode.usage, accountWords.invalidFlag, { flag, reason: parsed.reason, got });
  }
  return parsed.amount;
}

/** `--to`: a deposit address, `0x` + 40 hex (its checksum checked when mixed-case). @throws CommandFailure exit 2 */
export function parseDepositAddress(text: string): string {
  try {
    return toChecksumAddress(text);
  } catch (error) {
    return fail(ExitCode.usage, accountWords.invalidRequestSent, { error });
  }
}
