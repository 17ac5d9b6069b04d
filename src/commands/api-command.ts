/**
 * How the service-facing commands (`keys`, `mgmt-keys`, `billing`) end: a failure of the API
 * client becomes one sentence on stderr that names its error code, and an exit code.
 *
 *   keydeck: insufficient_balance: could not create the credit key: the credit balance is 0; top up first (keydeck billing topup --amount USD --method card_checkout|usdc).
 *
 * Exit codes: 0 done; 1 refused by the service (any error status, including a 400 the
 * service sends, `rate_limited` and `invalid_response`); 2 bad usage (input refused before
 * anything was sent, a missing `--yes` without a terminal); 3 `billing watch` below its
 * threshold; 4 network trouble: `network_error`, `timeout` and `server_error` (HTTP 5xx after the
 * retries a GET gets), i.e. the service gave no usable answer and trying later may work.
 */
import { KeydeckApiError, type ApiErrorCode } from '../api/errors.js';
import { CommandFailure, asSentence, exitCodeOf, printJson, runCommand, type ExitCodeValue, type OpenSessionOptions, type RunCommandOptions } from './output.js';

/** Dependencies of the `keys`, `mgmt-keys` and `billing` commands (tests and embedding). */
export interface CommandDeps {
  /** Passed to openSession (env, credential store, client options). */
  readonly session?: OpenSessionOptions;
}

/** The `--json` flag. */
export interface JsonFlag {
  readonly json?: boolean;
}

/** The `--yes` flag of destructive commands (with `--json`). */
export interface YesFlag extends JsonFlag {
  readonly yes?: boolean;
}

/** Error codes that mean "the service gave no usable answer": exit 4. */
export const NETWORK_ERROR_CODES: ReadonlySet<ApiErrorCode> = new Set<ApiErrorCode>(['network_error', 'timeout', 'server_error']);

/**
 * What a user can run next, appended to the sentence of some error codes. (A 401 has none here:
 * the client's sentence names the credential and its own next step, which depends on where the
 * credential came from: a rejected KEYDECK_TOKEN is never answered with `auth login`.)
 */
const NEXT_STEP: Partial<Record<ApiErrorCode, string>> = {
  insufficient_balance: 'keydeck billing topup --amount USD --method card_checkout|usdc',
  budget_exceeded: 'keydeck billing topup --amount USD --method card_checkout|usdc',
};

/**
 * The exit code of an API error: output.ts's {@link exitCodeOf} (one rule for every command):
 * 4 for {@link NETWORK_ERROR_CODES}; 2 for `invalid_request` found before sending (no HTTP
 * status); 1 for everything the service refused.
 */
export function apiExitCode(error: KeydeckApiError): ExitCodeValue {
  return exitCodeOf(error);
}

/** `<code>: <the client's sentence, first letter lowered>[ (next step)].` — no secret (the client's messages are redacted). */
export function apiErrorSentence(error: KeydeckApiError): string {
  const message = error.message.trim().replace(/[.!]$/, '');
  const lowered = /^[A-Z][a-z]/.test(message) ? message[0]!.toLowerCase() + message.slice(1) : message;
  const next = NEXT_STEP[error.code];
  return asSentence(`${error.code}: ${lowered}${next ? ` (${next})` : ''}`);
}

/** Turns a {@link KeydeckApiError} into the {@link CommandFailure} the commands end with; other errors pass through. */
export function asCommandFailure(error: unknown): unknown {
  return error instanceof KeydeckApiError ? new CommandFailure(apiExitCode(error), apiErrorSentence(error), { cause: error }) : error;
}

/**
 * {@link runCommand} for the service-facing commands: API errors are reported by
 * {@link apiErrorSentence} with {@link apiExitCode}; everything else as runCommand does
 * (config, credential store, {@link CommandFailure}); `options.json`: as JSON on stdout. Ends the
 * process; never returns.
 */
export function runApiCommand(body: () => Promise<ExitCodeValue | number | void>, options: RunCommandOptions = {}): Promise<never> {
  return runCommand(async () => {
    try {
      return await body();
    } catch (error) {
      throw asCommandFailure(error);
    }
  }, options);
}

/**
 * `--json` output: the service's data as one JSON document on stdout. A body the service left
 * empty (`undefined`) prints `null`, so stdout always parses.
 */
export function printData(value: unknown): void {
  printJson(value === undefined ? null : value);
}
