/**
 * How a command fails: the exit codes shared by every command, {@link CommandFailure} (a
 * {@link KeydeckError} with its exit code), the exit code and the one sentence of any error, and
 * its `--json` form (docs/commands.md, "Errors under `--json`"). Re-exported by ./output.ts, where a command
 * finds them.
 */
import { describeApiError } from '../api/describe.js';
import { KeydeckApiError, redactSecrets } from '../api/errors.js';
import { ConfigError } from '../config/config.js';
import { isRecordDamaged } from '../config/recordDamage.js';
import { isReadOnlyError } from '../config/profileMarks.js';
import { CredentialStoreError } from '../credentials/store.js';
import { KeydeckError, type ExitClass } from '../errors/index.js';
import { belowSentence } from '../words/index.js';

/** Exit codes shared by every command (src/cli.ts). */
export const ExitCode = {
  /** Done. */
  ok: 0,
  /** Refused by the service or the credential store (or a check failed). */
  refused: 1,
  /** Bad usage: a wrong flag or argument, a missing base URL or token, an invalid config file. */
  usage: 2,
  /** `billing watch`: the balance is below its threshold (`autotopup run`: and nothing was charged). */
  belowThreshold: 3,
  /**
   * A record keydeck trusts cannot be read as it is on disk (the top-up record, a record of key
   * creations or rotations: src/config/recordFile.ts `RECORD_DAMAGED`): nothing was sent.
   */
  recordDamaged: 3,
  /** The profile is read-only (src/config/profileMarks.ts): refused before anything was asked or sent, whatever `--yes` says. */
  readOnly: 3,
  /** Network trouble: the service did not answer. */
  network: 4,
} as const;
/** One of {@link ExitCode}'s values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The code of a {@link CommandFailure} that names none, by its exit code: `refused`, `usage`, `stopped`, `network`. */
const CODE_OF_EXIT: Readonly<Record<number, string>> = { 1: 'refused', 2: 'usage', 3: 'stopped', 4: 'network' };
/** The code a command's sentence opens with: `name_taken: the name …`. */
const LEADING_CODE = /^([a-z]+(?:_[a-z]+)+): /;

/**
 * A deliberate end of a command with an exit code and one sentence for stderr (see {@link fail}).
 * Its `code`: the one given; else the code of the {@link KeydeckError} it reports (`cause`: an API
 * error's `not_found`, `timeout`…, whose facts it carries too); else the code its sentence opens
 * with, as the commands write them (`invalid_request: …`, `name_taken: …`); else by its exit code
 * (`refused` 1, `usage` 2, `stopped` 3, `network` 4).
 */
export class CommandFailure extends KeydeckError {
  override readonly name = 'CommandFailure';
  readonly exitCode: ExitCodeValue;
  constructor(exitCode: ExitCodeValue, sentence: string, options: { readonly code?: string; readonly cause?: unknown } = {}) {
    const reported = options.cause instanceof KeydeckError ? options.cause : undefined;
    super(options.code ?? reported?.code ?? LEADING_CODE.exec(sentence)?.[1] ?? CODE_OF_EXIT[exitCode] ?? 'refused', sentence, {
      ...(options.cause !== undefined && { cause: options.cause }),
      possiblySent: reported?.possiblySent === true,
      nothingSent: reported?.nothingSent === true,
    });
    this.exitCode = exitCode;
  }

  /** The facts of the error it reports, when it reports one. */
  override facts(): Record<string, unknown> {
    return this.cause instanceof KeydeckError ? this.cause.facts() : super.facts();
  }
}

/**
 * A row of a command's wording table (./wording.ts and its siblings): the stable `code` of a
 * failure and its sentence from the facts (names, amounts, ids; a value from outside is passed
 * through `visible()` by the row, never by the call site). Built by {@link row}.
 */
export interface WordingRow<F> {
  readonly code: string;
  readonly words: (facts: F) => string;
}

/** An error's own sentence as a row passes it through (`message`, or the thrown value in words). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A row of a wording table: its `code` and the function that words its facts. */
export function row<F = void>(code: string, words: (facts: F) => string): WordingRow<F> {
  return { code, words };
}

/**
 * Ends the command: throws a {@link CommandFailure} that {@link runCommand} turns into
 * `keydeck: <sentence>` on stderr (under `--json`, the JSON error on stdout) and exit `code`.
 * Given a row of a wording table and its facts (the way every command fails: checked by
 * test/house/errors.test.ts), the row words the sentence and names its code. Given a sentence
 * (the few passthroughs of another error's sentence the house test lists), it must hold no
 * secret; `errorCode` is its stable code (default: by the exit code).
 */
export function fail(code: ExitCodeValue, wording: WordingRow<void>): never;
export function fail<F>(code: ExitCodeValue, wording: WordingRow<F>, facts: NoInfer<F>): never;
export function fail(code: ExitCodeValue, sentence: string, errorCode?: string): never;
export function fail(code: ExitCodeValue, wording: string | WordingRow<never>, third?: unknown): never {
  if (typeof wording !== 'string') throw new CommandFailure(code, wording.words(third as never), { code: wording.code });
  throw new CommandFailure(code, wording, third === undefined ? {} : { code: third as string });
}

/** The exit code of a record's error: 3 when it cannot be read as it is on disk ({@link ExitCode}`.recordDamaged`), else 1. */
export function recordExit(error: unknown): ExitCodeValue {
  return isRecordDamaged(error) ? ExitCode.recordDamaged : ExitCode.refused;
}

/**
 * The exit code for an error: {@link CommandFailure}'s own; 3 for a record that cannot be read; network trouble 4 (`network_error`,
 * `timeout`, and `server_error`: no usable answer, trying later may work); bad input found before
 * sending 2 (`invalid_request` without an HTTP status); else 1 (a refusal, including a 400 sent
 * by the service).
 */
export function exitCodeOf(error: unknown): ExitCodeValue {
  if (error instanceof CommandFailure) return error.exitCode;
  if (isRecordDamaged(error)) return ExitCode.recordDamaged;
  if (isReadOnlyError(error)) return ExitCode.readOnly;
  if (error instanceof KeydeckApiError) {
    if (error.code === 'read_only') return ExitCode.readOnly;
    if (error.code === 'network_error' || error.code === 'timeout' || error.code === 'server_error') return ExitCode.network;
    if (error.code === 'invalid_request') return error.status === undefined ? ExitCode.usage : ExitCode.refused;
    return ExitCode.refused;
  }
  if (error instanceof ConfigError) return error.code === 'config_write_failed' || error.code === 'config_untrusted' || error.code === 'data_untrusted' ? ExitCode.refused : ExitCode.usage;
  if (error instanceof CredentialStoreError) {
    return error.code === 'consumption_key' || error.code === 'invalid_token' ? ExitCode.usage : ExitCode.refused;
  }
  if (error instanceof KeydeckError && error.exitClass !== undefined) return EXIT_OF_CLASS[error.exitClass];
  return ExitCode.refused;
}

/** The exit code of each {@link ExitClass}. */
const EXIT_OF_CLASS: Readonly<Record<ExitClass, ExitCodeValue>> = { refused: ExitCode.refused, usage: ExitCode.usage, stopped: ExitCode.readOnly, network: ExitCode.network };

/**
 * The `--json` form of a command's failure: `{ "error": { code, message, …facts } }`, `message`
 * being the sentence the command prints on stderr without `--json`, the facts those of the
 * {@link KeydeckError} (`status`, `field`, `possiblySent`, `nothingSent`…; none for another error,
 * whose code is `unexpected`).
 */
export function jsonErrorOf(error: unknown): { error: Record<string, unknown> } {
  const typed = error instanceof KeydeckError ? error : undefined;
  return { error: { code: typed?.code ?? 'unexpected', message: sentenceOf(error), ...typed?.facts() } };
}

/** One sentence for any error, ending with a period, secrets redacted (a lower layer's coded error in the command line's words: src/words). */
export function sentenceOf(error: unknown): string {
  const below = belowSentence(error);
  if (below !== undefined) return asSentence(redactSecrets(below));
  if (error instanceof CommandFailure || error instanceof ConfigError || error instanceof CredentialStoreError || isReadOnlyError(error)) {
    return asSentence(redactSecrets(error.message));
  }
  return asSentence(describeApiError(error));
}

/** `text` trimmed, ending with `.`, `!` or `?`. */
export function asSentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}
