/**
 * Checks the command-line input of `keys`, `mgmt-keys` and `billing` with the shared request
 * schemas of src/api/schemas.ts before any request is sent. A refusal ends the command with exit
 * 2 and one sentence `invalid_request: <flag> <reason>` (see {@link fail}).
 */
import type { z } from 'zod';
import { KeyIdSchema, KeyNameSchema, TopUpAmountSchema, TxHashSchema } from '../api/schemas.js';
import { ExitCode, fail } from './output.js';

/** The first issue's message of a failed zod parse. */
function reasonOf(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'is invalid';
}

/** Parses `value` with `schema` or ends the command (exit 2) naming `what` (a flag or argument). */
function check<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) fail(ExitCode.usage, `invalid_request: ${what}: ${reasonOf(parsed.error)}`);
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

/** A transaction hash (`--tx`): `0x` + 64 hex digits. Exit 2 otherwise. */
export function parseTxHash(text: string): string {
  return check(TxHashSchema, text.trim(), '--tx');
}

/**
 * A USD amount (`--amount`) written as a plain decimal: digits, optionally `.` and 1–2 more
 * digits (`10`, `10.5`, `12.50`); then ≥ 10 and ≤ 1,000,000 (§4, §8). Refused: exponents
 * (`1e3`), a trailing or leading dot (`10.`, `.5`), signs, thousands separators, more than two
 * decimals (`10.001`), so the amount sent is exactly the amount typed. Exit 2 otherwise.
 * @returns the amount in USD
 */
export function parseAmount(text: string, flag = '--amount'): number {
  const t = text.trim();
  if (!/^\d+(\.\d+)?$/.test(t)) {
    fail(ExitCode.usage, `invalid_request: ${flag}: must be an amount in USD written as a plain decimal number, such as 10 or 12.50 (got "${t.slice(0, 40)}")`);
  }
  if (/\.\d{3,}$/.test(t)) fail(ExitCode.usage, `invalid_request: ${flag}: amount must have at most two decimals`);
  return check(TopUpAmountSchema, Number(t), flag);
}
