/**
 * Shared helpers of the scriptable commands (`auth`, `doctor`, `keys`, `mgmt-keys`, `billing`):
 * exit codes, one-line errors on stderr, warnings, JSON output, the session (resolved profile +
 * credential + API client) a command works with, and the two terminal prompts (plain, masked).
 *
 * Usage in a command's action (src/cli.ts):
 * ```ts
 * .action(async (opts, cmd) => {
 *   const { runCommand, openSession } = await import('./commands/output.js');
 *   await runCommand(async () => {
 *     const { client } = await openSession(globalOptionsOf(cmd));
 *     …; return ExitCode.ok;
 *   });
 * })
 * ```
 * `runCommand` ends the process with `process.exit(code)`: a keychain call that hung past its
 * time limit would otherwise keep the process alive.
 */
import type { Command } from 'commander';
import { KeydeckClient, type KeydeckClientOptions } from '../api/client.js';
import { describeApiError } from '../api/describe.js';
import { KeydeckApiError, redactSecrets } from '../api/errors.js';
import { ConfigError } from '../config/config.js';
import { resolveProfile, type ResolvedProfile } from '../config/profile.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { dataDir } from '../config/paths.js';
import { insecureHttpFromEnv, insecureHttpProblem } from '../api/baseUrl.js';
import { createCredentialStore, describeCredential, originOf, originTarget } from '../credentials/index.js';
import { createActivity, withActivity } from '../terminal/spinner.js';
import { CredentialStoreError, type CredentialStore, type StoredCredential } from '../credentials/store.js';
import { escapeJsonForTerminal, visible } from '../terminal/sanitize.js';
import type { TerminalText } from './table.js';

/** Exit codes shared by every command (src/cli.ts). */
export const ExitCode = {
  /** Done. */
  ok: 0,
  /** Refused by the service or the credential store (or a check failed). */
  refused: 1,
  /** Bad usage: a wrong flag or argument, a missing base URL or token, an invalid config file. */
  usage: 2,
  /** `billing watch`: the balance is below its threshold. */
  belowThreshold: 3,
  /** Network trouble: the service did not answer. */
  network: 4,
} as const;
/** One of {@link ExitCode}'s values. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A deliberate end of a command with an exit code and one sentence for stderr (see {@link fail}). */
export class CommandFailure extends Error {
  override readonly name = 'CommandFailure';
  readonly exitCode: ExitCodeValue;
  constructor(exitCode: ExitCodeValue, sentence: string) {
    super(sentence);
    this.exitCode = exitCode;
  }
}

/**
 * Ends the command: throws a {@link CommandFailure} that {@link runCommand} turns into
 * `keydeck: <sentence>` on stderr and exit `code`. The sentence must hold no secret.
 */
export function fail(code: ExitCodeValue, sentence: string): never {
  throw new CommandFailure(code, sentence);
}

/** Writes `warning: <text>` on stderr, one line, sanitised (src/terminal/sanitize.ts). */
export function warn(text: string): void {
  process.stderr.write(`warning: ${visible(text.trim())}\n`);
}

/** Longest text {@link printLine} writes (code units); more ends with `…`. */
const MAX_LINE_TEXT = 65_536;

/**
 * Writes text and a newline on stdout, sanitised (src/terminal/sanitize.ts): `\n` stays a line
 * break, every other control, bidi or invisible character shows as its `\uXXXX` escape. Service
 * values put into a sentence should still pass through `visible()` first, so that a newline in
 * them shows as `\u000a` instead of starting a line.
 */
export function printLine(text = ''): void {
  process.stdout.write(`${visible(text, { newlines: true, maxLength: MAX_LINE_TEXT })}\n`);
}

/**
 * Writes a table or key/value block from table.ts (already sanitised cell by cell, coloured
 * perhaps) and a newline on stdout, as it is.
 */
export function printFormatted(text: TerminalText): void {
  process.stdout.write(`${text}\n`);
}

/**
 * Writes `value` as pretty JSON (2 spaces) on stdout; C1, bidi and invisible characters inside
 * strings are written as `\uXXXX` escapes (the same value for a JSON parser, nothing a terminal acts on).
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${escapeJsonForTerminal(JSON.stringify(value, null, 2) ?? 'null')}\n`);
}

/**
 * The exit code for an error: {@link CommandFailure}'s own; network trouble 4 (`network_error`,
 * `timeout`, and `server_error`: no usable answer, trying later may work); bad input found before
 * sending 2 (`invalid_request` without an HTTP status); else 1 (a refusal, including a 400 sent
 * by the service).
 */
export function exitCodeOf(error: unknown): ExitCodeValue {
  if (error instanceof CommandFailure) return error.exitCode;
  if (error instanceof KeydeckApiError) {
    if (error.code === 'network_error' || error.code === 'timeout' || error.code === 'server_error') return ExitCode.network;
    if (error.code === 'invalid_request') return error.status === undefined ? ExitCode.usage : ExitCode.refused;
    return ExitCode.refused;
  }
  if (error instanceof ConfigError) return error.code === 'config_write_failed' || error.code === 'config_untrusted' ? ExitCode.refused : ExitCode.usage;
  if (error instanceof CredentialStoreError) {
    return error.code === 'consumption_key' || error.code === 'invalid_token' ? ExitCode.usage : ExitCode.refused;
  }
  return ExitCode.refused;
}

/** One sentence for any error, ending with a period, secrets redacted. */
export function sentenceOf(error: unknown): string {
  if (error instanceof CommandFailure || error instanceof ConfigError || error instanceof CredentialStoreError) {
    return asSentence(redactSecrets(error.message));
  }
  return asSentence(describeApiError(error));
}

/** `text` trimmed, ending with `.`, `!` or `?`. */
export function asSentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/**
 * Runs a command body and ends the process: exit with the code it returns (default 0), or on a
 * throw write `keydeck: <sentence>` on stderr and exit with {@link exitCodeOf}. Never returns.
 */
export async function runCommand(body: () => Promise<ExitCodeValue | number | void>): Promise<never> {
  let code: number;
  try {
    code = (await body()) ?? ExitCode.ok;
  } catch (error) {
    process.stderr.write(`keydeck: ${visible(sentenceOf(error), { maxLength: MAX_LINE_TEXT })}\n`);
    code = exitCodeOf(error);
  }
  // A pipe is written asynchronously: let what was printed (150,000 keys, say) reach it first.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/**
 * Resolves once everything written to `stream` so far has been handed to the OS, or after 10 s (a
 * reader that stopped reading does not keep the process alive): what to await before
 * `process.exit`, which drops what a pipe has not taken yet. Never rejects.
 */
export function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (!stream.writableNeedDrain && stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    timer.unref();
    stream.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** keydeck's global options (root program; commander already applies the env fallbacks). */
export interface GlobalOptions {
  /** `--base-url` / `KEYDECK_BASE_URL`. */
  readonly baseUrl?: string;
  /** True when `baseUrl` came from `KEYDECK_BASE_URL` rather than the flag. */
  readonly baseUrlFromEnv?: boolean;
  /** `--profile` / `KEYDECK_PROFILE`. */
  readonly profile?: string;
  /** `--insecure-storage`. */
  readonly insecureStorage?: boolean;
  /** `--allow-insecure-http` or `KEYDECK_ALLOW_INSECURE_HTTP=1`: a key may go over plain http off loopback. */
  readonly allowInsecureHttp?: boolean;
  /** `--no-chain`: never read the chain (issue 25). */
  readonly noChain?: boolean;
  /** `--chain-rpc URL`: the chain's JSON-RPC endpoint for this command. */
  readonly chainRpc?: string;
}

/** The global options as seen from a (sub)command: `command.optsWithGlobals()`. */
export function globalOptionsOf(command: Command): GlobalOptions {
  const all = command.optsWithGlobals<Record<string, unknown>>();
  let root = command;
  while (root.parent) root = root.parent;
  return {
    ...(typeof all.baseUrl === 'string' && { baseUrl: all.baseUrl }),
    ...(root.getOptionValueSource('baseUrl') === 'env' && { baseUrlFromEnv: true }),
    ...(typeof all.profile === 'string' && { profile: all.profile }),
    ...(all.insecureStorage === true && { insecureStorage: true }),
    ...((all.allowInsecureHttp === true || insecureHttpFromEnv()) && { allowInsecureHttp: true }),
    ...(all.chain === false && { noChain: true }),
    ...(typeof all.chainRpc === 'string' && { chainRpc: all.chainRpc }),
  };
}

/** The warning shown wherever a key from the plaintext fallback file is used. */
export function insecureStorageWarning(path: string): string {
  return `using the management key stored in plaintext at ${path} (--insecure-storage)`;
}

/** What a command that talks to the service works with. */
export interface Session {
  readonly profile: ResolvedProfile & { readonly baseUrl: string };
  readonly credential: StoredCredential;
  readonly client: KeydeckClient;
  readonly store: CredentialStore;
}

/** Options of {@link openSession}. */
export interface OpenSessionOptions {
  /** Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Default `createCredentialStore({ env })`. */
  readonly store?: CredentialStore;
  /** False: no spinner on stderr during calls (a live view owns the terminal). Default true. */
  readonly spinner?: boolean;
  /** Extra client options (timeoutMs, retries, userAgent). */
  readonly client?: Omit<KeydeckClientOptions, 'baseUrl' | 'token'>;
  /** False: no warning about interrupted rotations (`keys rotate` handles them itself). Default true. */
  readonly pendingRotations?: boolean;
  /** False: no warning about interrupted key creations (`keys create --finish`/`--undo` handle them). Default true. */
  readonly pendingCreations?: boolean;
}

/**
 * Resolves the profile and its credential and builds a {@link KeydeckClient} for them. Prints
 * the insecure-storage warning when the key comes from the plaintext file.
 * @throws CommandFailure exit 2 when the profile has no base URL (naming `--base-url`), exit 1
 *   when no key is found (naming `keydeck auth login` / `KEYDECK_TOKEN`, and why the keychain
 *   could not be asked); ConfigError (exit 2); CredentialStoreError (a bad `KEYDECK_TOKEN`: exit 2).
 */
export async function openSession(globals: GlobalOptions, options: OpenSessionOptions = {}): Promise<Session> {
  const env = options.env ?? process.env;
  const profile = await resolveProfile(globals, env);
  if (profile.baseUrl === undefined) fail(ExitCode.usage, noBaseUrlSentence(profile.name));
  // Before any key is read: no key goes over plain http to another machine without the opt-in.
  const insecure = insecureHttpProblem(profile.baseUrl, globals.allowInsecureHttp === true);
  if (insecure !== undefined) fail(ExitCode.usage, insecure);
  const store = options.store ?? createCredentialStore({ env });
  // Only the key stored for this service's origin (src/credentials/origin.ts).
  const credential = await store.get(profile.name, originTarget(profile.baseUrl, profile.savedBaseUrl));
  if (!credential) fail(ExitCode.refused, await noCredentialSentence(profile.name, store, profile));
  if (credential.source === 'file' && credential.path) warn(insecureStorageWarning(credential.path));
  if (options.pendingRotations !== false || options.pendingCreations !== false) {
    const { pendingRotationWarnings, pendingCreationWarnings } = await import('./pendingRotations.js');
    if (options.pendingRotations !== false) for (const sentence of await pendingRotationWarnings(dataDir(env), profile.name, originOf(profile.baseUrl))) warn(sentence);
    if (options.pendingCreations !== false) for (const sentence of await pendingCreationWarnings(dataDir(env), profile.name, originOf(profile.baseUrl))) warn(sentence);
  }
  // KEYDECK_TIMEOUT_MS sets the call deadline unless the caller passed its own.
  const bare = new KeydeckClient({
    ...clientTimeoutFromEnv(env),
    ...(profile.topUpMethods !== undefined && { methodNames: profile.topUpMethods }),
    // Said once per command on stderr, so stdout stays clean for --json.
    onNotice: (notice) => warn(notice.message),
    ...options.client,
    baseUrl: profile.baseUrl,
    token: credential.token,
    ...(globals.allowInsecureHttp === true && { allowInsecureHttp: true }),
    // Every 401/403 names the credential and where it came from (a rejected KEYDECK_TOKEN says so).
    credential: describeCredential(credential.token, credential.source, profile.name),
  });
  // A call that takes longer than ~300 ms shows a spinner on stderr (a terminal only).
  const client = options.spinner === false ? bare : withActivity(bare, createActivity({ env }), `waiting for ${new URL(profile.baseUrl).host}`);
  return { profile: { ...profile, baseUrl: profile.baseUrl }, credential, client, store };
}

/** The sentence for a profile without a base URL. */
export function noBaseUrlSentence(profile: string): string {
  return (
    `profile "${profile}" has no base URL: pass --base-url URL (or set KEYDECK_BASE_URL), ` +
    `or save one with \`keydeck auth login --base-url URL\``
  );
}

/**
 * The sentence for a profile without a key, with the keychain's reason when it could not be asked.
 * When the base URL is another service than the profile's saved one, it says that keys are kept
 * per service and how to get one for this service.
 */
export async function noCredentialSentence(
  profile: string,
  store: CredentialStore,
  where: { readonly baseUrl?: string; readonly savedBaseUrl?: string } = {},
  options: { readonly keychainReason?: boolean } = {},
): Promise<string> {
  const status = options.keychainReason === false ? { available: true } : await store.keychainStatus();
  const why = status.available ? '' : `; the keychain could not be asked: ${(status as { reason?: string }).reason}`;
  if (where.baseUrl !== undefined && where.savedBaseUrl !== undefined && originOf(where.baseUrl) !== originOf(where.savedBaseUrl)) {
    return (
      `no key for profile "${profile}" at ${originOf(where.baseUrl)} (its stored key belongs to ${originOf(where.savedBaseUrl)}, and keydeck ` +
      `sends a key only to the service it was made for): run \`keydeck auth login --base-url ${where.baseUrl}\`, or set KEYDECK_TOKEN${why}`
    );
  }
  return `no key for profile "${profile}"${where.baseUrl !== undefined ? ` at ${originOf(where.baseUrl)}` : ''}: run \`keydeck auth login\`, or set KEYDECK_TOKEN${why}`;
}

// ---- prompts (stderr, so stdout stays clean for --json) ----

/** True when both stdin and stderr are terminals (a prompt can be shown and answered). */
export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** Asks one visible line on the terminal (stderr), trimmed. Ctrl-C or Ctrl-D exits 130. */
export async function askLine(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  rl.on('SIGINT', () => {
    process.stderr.write('\n');
    process.exit(130);
  });
  try {
    return (await rl.question(visible(question, { maxLength: MAX_LINE_TEXT }))).trim();
  } finally {
    rl.close();
  }
}

/**
 * Asks for a secret on the terminal: raw mode, each typed or pasted character echoed as `*`,
 * Backspace erases, Enter ends, Ctrl-U clears, Ctrl-C exits 130. The answer is trimmed.
 */
export function askSecret(question: string): Promise<string> {
  const stdin = process.stdin;
  // Raw mode (no echo) first, then the prompt: what is typed once the prompt shows is never echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  return new Promise((resolve) => {
    let value = '';
    let inEscape = false;
    const finish = (): void => {
      stdin.setRawMode(false);
      stdin.off('data', onData);
      stdin.pause();
      process.stderr.write('\n');
      resolve(value.trim());
    };
    const onData = (chunk: Buffer): void => {
      for (const ch of chunk.toString('utf8')) {
        if (inEscape) {
          // Skip an escape sequence (arrow keys and the like): ESC [ … final letter or ~.
          if (/[A-Za-z~]/.test(ch)) inEscape = false;
          continue;
        }
        if (ch === '\u001b') {
          inEscape = true;
          continue;
        }
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') {
          stdin.setRawMode(false);
          process.stderr.write('\n');
          process.exit(130);
        }
        if (ch === '\u007f' || ch === '\b') {
          if (value.length > 0) {
            value = value.slice(0, -1);
            process.stderr.write('\b \b');
          }
        } else if (ch === '\u0015') {
          process.stderr.write('\b \b'.repeat(value.length));
          value = '';
        } else if (ch >= ' ') {
          value += ch;
          process.stderr.write('*');
        }
      }
    };
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** Reads all of stdin as text (for `--token-stdin`), trimmed. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim();
}
