/**
 * src/errors: keydeck's one error type, {@link KeydeckError}, which every error class of src/
 * extends (docs/architecture.md, "The error type"). It sits below every layer beside
 * src/failpoints, so that each layer, the sandbox included, may import it.
 *
 * May import: nothing of keydeck.
 * Imported by: every layer of src/ but src/failpoints.
 */

/**
 * How a command ends on an error of this kind (src/commands/output.ts `ExitCode`): `refused` 1
 * (refused by the service, a store, a file, a check), `usage` 2 (bad input found before anything
 * was sent), `stopped` 3 (a record that cannot be trusted, a read-only profile: nothing was sent),
 * `network` 4 (the service gave no usable answer; trying later may work).
 */
export type ExitClass = 'refused' | 'usage' | 'stopped' | 'network';

/** Options of {@link KeydeckError}. */
export interface KeydeckErrorOptions {
  /** See {@link ExitClass}; a subclass may decide it from its code instead. */
  readonly exitClass?: ExitClass;
  /** True when a request that changes state may or may not have been applied (never retried automatically). */
  readonly possiblySent?: boolean;
  /** True when it is known that nothing was sent to the service. */
  readonly nothingSent?: boolean;
  /** The error this one reports (`Error.cause`). */
  readonly cause?: unknown;
}

/**
 * A failure keydeck reports: a stable `code` (a lower-case word with underscores: `timeout`,
 * `not_found`, `record_damaged`, `subscription_ended`, `usage`…: the codes of each subclass are in
 * its docstring), one sentence `message` with no secret in it, and the facts a face needs: the
 * exit class, and what was sent when it is known (`possiblySent`, `nothingSent`). A face words it
 * through the wording tables (src/api/wording.ts, src/operations/wording.ts); `--json` prints it
 * as `{ "error": { code, message, …facts() } }` (src/commands/output.ts).
 *
 * Subclasses keep their own names (`KeydeckApiError`, `ConfigError`…), so `instanceof` of either
 * works; `FailpointHalt` (src/failpoints) is deliberately not one: it stands for a kill, which no
 * handler of failures may take for one.
 */
export class KeydeckError extends Error {
  override readonly name: string = 'KeydeckError';
  readonly code: string;
  /** See {@link ExitClass}; undefined: the face decides by the subclass and code (src/commands/output.ts `exitCodeOf`). */
  readonly exitClass?: ExitClass;
  /** See {@link KeydeckErrorOptions.possiblySent}. */
  readonly possiblySent?: boolean;
  /** See {@link KeydeckErrorOptions.nothingSent}. */
  readonly nothingSent?: boolean;

  constructor(code: string, message: string, options: KeydeckErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    if (options.exitClass !== undefined) this.exitClass = options.exitClass;
    if (options.possiblySent === true) this.possiblySent = true;
    if (options.nothingSent === true) this.nothingSent = true;
  }

  /**
   * The facts beside `code` and `message` a machine reads (`--json`'s error object): what was
   * sent, plus each subclass's own (a status, a field, a path). Never a secret.
   */
  facts(): Record<string, unknown> {
    return {
      ...(this.possiblySent === true && { possiblySent: true }),
      ...(this.nothingSent === true && { nothingSent: true }),
    };
  }
}

/** True when `error` is a {@link KeydeckError} (of any subclass). */
export function isKeydeckError(error: unknown): error is KeydeckError {
  return error instanceof KeydeckError;
}
