/**
 * Shared helpers of the scriptable commands (`auth`, `doctor`, `keys`, `mgmt-keys`, `billing`):
 * exit codes, one-line errors on stderr, warnings (each sentence's command hints carry the run's
 * `--sandbox`: src/terminal/commandHint.ts), JSON output, the session (resolved profile +
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
import { statSync } from 'node:fs';
import path from 'node:path';
import { KeydeckClient, type KeydeckClientOptions } from '../api/client.js';
import { resolveProfile, type ResolvedProfile } from '../config/profile.js';
import { noBaseUrlSentence, noCredentialFacts, noCredentialSentence } from './sessionWords.js';
import { readOnlyReason } from '../config/profileMarks.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { dataDir, OPERATION_RECORD_FILES } from '../config/paths.js';
import { insecureHttpFromEnv, insecureHttpProblem } from '../api/baseUrl.js';
import { createCredentialStore, describeCredential, originOf, originTarget } from '../credentials/index.js';
import { createActivity, withActivity } from '../terminal/spinner.js';
import { type CredentialStore, type StoredCredential } from '../credentials/store.js';
import { escapeJsonForTerminal, visible } from '../terminal/sanitize.js';
import { withHintFlags } from '../terminal/commandHint.js';
import type { TerminalText } from './table.js';
import { ExitCode, exitCodeOf, fail, jsonErrorOf, sentenceOf, type ExitCodeValue } from './failure.js';
import { accountWords } from './wordingAccount.js';

export { ExitCode, CommandFailure, fail, recordExit, exitCodeOf, sentenceOf, asSentence, type ExitCodeValue } from './failure.js';

/** A command's next step when the stored credential of `profile` is rejected (src/credentials/describe.ts). */
export function cliSignIn(profile: string): string {
  return `sign in again: keydeck auth login${profile === 'default' ? '' : ` --profile ${profile}`}`;
}

/** The variable that silences warnings (as `--quiet` does, which sets it for the command). */
export const QUIET_ENV = 'KEYDECK_QUIET';

/** True when warnings are silenced: `--quiet`, or `KEYDECK_QUIET` set to 1, true or yes. */
export function quietFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test((env[QUIET_ENV] ?? '').trim());
}

/**
 * Writes `warning: <text>` on stderr, one line, sanitised (src/terminal/sanitize.ts), unless
 * warnings are silenced ({@link quietFromEnv}: a script's cron mail). Errors are never silenced.
 */
export function warn(text: string): void {
  if (quietFromEnv()) return;
  process.stderr.write(`warning: ${visible(withHintFlags(text.trim()))}\n`);
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
  process.stdout.write(`${visible(withHintFlags(text), { newlines: true, maxLength: MAX_LINE_TEXT })}\n`);
}

/**
 * Writes a sentence and a newline on stderr, sanitised as {@link printLine} does, whatever
 * `--quiet` says: what a cron job must not keep quiet (a charge that failed, nothing charged while
 * the balance is low), as opposed to a {@link warn}ing.
 */
export function printProblem(text: string): void {
  process.stderr.write(`${visible(withHintFlags(text), { newlines: true, maxLength: MAX_LINE_TEXT })}\n`);
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

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  /** The command runs with `--json`: a failure is {@link jsonErrorOf} on stdout, nothing of it on stderr. */
  readonly json?: boolean;
}

/**
 * Runs a command body and ends the process: exit with the code it returns (default 0), or on a
 * throw write `keydeck: <sentence>` on stderr (with `json`: the one JSON error object on stdout,
 * docs/commands.md) and exit with {@link exitCodeOf}. Never returns.
 */
export async function runCommand(body: () => Promise<ExitCodeValue | number | void>, options: RunCommandOptions = {}): Promise<never> {
  let code: number;
  try {
    code = (await body()) ?? ExitCode.ok;
  } catch (error) {
    if (options.json === true) printJson(jsonErrorOf(error));
    else process.stderr.write(`keydeck: ${visible(withHintFlags(sentenceOf(error)), { maxLength: MAX_LINE_TEXT })}\n`);
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
  /** Where `profile` came from: `env` (KEYDECK_PROFILE), `sandbox` (`--sandbox`'s own); absent: the flag. */
  readonly profileSource?: 'env' | 'sandbox';
  /** `--read-only`: change nothing on the account in this run (src/config/profileMarks.ts). */
  readonly readOnly?: boolean;
  /** `--insecure-storage`. */
  readonly insecureStorage?: boolean;
  /** `--allow-insecure-http` or `KEYDECK_ALLOW_INSECURE_HTTP=1`: a key may go over plain http off loopback. */
  readonly allowInsecureHttp?: boolean;
  /** `--no-chain`: never read the chain. */
  readonly noChain?: boolean;
  /** `--chain-rpc URL`: the chain's JSON-RPC endpoint for this command. */
  readonly chainRpc?: string;
  /**
   * `--sandbox`: use the sandbox of the data dir (./sandboxTarget.ts), with `--dialect` and
   * `--chain anvil` for when this process starts it.
   */
  readonly sandbox?: { readonly dialect?: 'seed' | 'docs-v1' | 'docs-v2'; readonly chain?: { readonly rpcUrl?: string } };
  /**
   * The sandbox's demo session token, set by ./sandboxTarget.ts once the sandbox is up: the key
   * used when none is stored for the sandbox's origin and `KEYDECK_TOKEN` is unset. Never stored.
   */
  readonly sandboxToken?: string;
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
    ...(typeof all.profile === 'string' && root.getOptionValueSource('profile') === 'env' && { profileSource: 'env' as const }),
    ...(all.readOnly === true && { readOnly: true }),
    ...(all.insecureStorage === true && { insecureStorage: true }),
    ...((all.allowInsecureHttp === true || insecureHttpFromEnv()) && { allowInsecureHttp: true }),
    ...(all.chain === false && { noChain: true }),
    // With --sandbox --chain anvil, --chain-rpc names the sandbox's node (as in the TUI).
    ...(typeof all.chainRpc === 'string' && !(all.sandbox === true && all.chain === 'anvil') && { chainRpc: all.chainRpc }),
    ...(all.sandbox === true && {
      sandbox: {
        ...(typeof all.dialect === 'string' && { dialect: all.dialect as 'seed' | 'docs-v1' | 'docs-v2' }),
        ...(all.chain === 'anvil' && { chain: typeof all.chainRpc === 'string' ? { rpcUrl: all.chainRpc } : {} }),
      },
    }),
  };
}

/** The warning of `auth status`, `auth logout --revoke` and `doctor` when the key comes from the plaintext fallback file. */
export function insecureStorageWarning(path: string): string {
  return `using the management key stored in plaintext at ${path} (--insecure-storage)`;
}

/**
 * The key a command uses: one found by the store (`KEYDECK_TOKEN`, the keychain, the file), or
 * with `--sandbox` and none of those, the sandbox's demo session token (`sandbox`, never stored).
 */
export type SessionCredential = StoredCredential | { readonly token: string; readonly source: 'sandbox'; readonly path?: undefined };

/** What a command that talks to the service works with. */
export interface Session {
  readonly profile: ResolvedProfile & { readonly baseUrl: string };
  readonly credential: SessionCredential;
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
  /**
   * True: warn about interrupted rotations (the key commands; `keys rotate` handles them itself).
   * Default false: a command that does not touch keys says nothing of them (cron mails only what
   * concerns its job).
   */
  readonly pendingRotations?: boolean;
  /**
   * The key of a token file to use instead of the profile's stored one (`mgmt-keys rotate
   * --token-file`): `KEYDECK_TOKEN` and the store are not read; a 401 names the file.
   */
  readonly tokenFile?: { readonly token: string; readonly path: string };
  /** True: warn about interrupted key creations (the key commands; `keys create --finish`/`--undo` handle them). Default false. */
  readonly pendingCreations?: boolean;
}

/**
 * Resolves the profile and its credential and builds a {@link KeydeckClient} for them.
 * @throws CommandFailure exit 2 when the profile has no base URL (naming `--base-url`), exit 1
 *   when no key is found (naming `keydeck auth login` / `KEYDECK_TOKEN`, and why the keychain
 *   could not be asked); ConfigError (exit 2); CredentialStoreError (a bad `KEYDECK_TOKEN`: exit 2).
 */
export async function openSession(globals: GlobalOptions, options: OpenSessionOptions = {}): Promise<Session> {
  const env = options.env ?? process.env;
  const profile = await resolveProfile(globals, env);
  if (profile.baseUrl === undefined) fail(ExitCode.usage, accountWords.noBaseUrl, profile);
  // Before any key is read: no key goes over plain http to another machine without the opt-in.
  const insecure = insecureHttpProblem(profile.baseUrl, globals.allowInsecureHttp === true);
  if (insecure !== undefined) fail(ExitCode.usage, insecure, 'insecure_http');
  const store = options.store ?? createCredentialStore({ env });
  // Only the key stored for this service's origin (src/credentials/origin.ts), or the token file's;
  // with --sandbox, the demo account's token when none is stored.
  const fromFile = options.tokenFile;
  const credential: SessionCredential | undefined = fromFile
    ? { token: fromFile.token, source: 'file', path: fromFile.path }
    : ((await store.get(profile.name, originTarget(profile.baseUrl, profile.savedBaseUrl))) ?? (globals.sandboxToken !== undefined ? { token: globals.sandboxToken, source: 'sandbox' } : undefined));
  if (!credential) fail(ExitCode.refused, accountWords.noCredential, await noCredentialFacts(profile.name, store, profile));
  // The plaintext file is said at login, in `auth status` and in `doctor`, not on every command (cron mail).
  // A record that is not there holds nothing to say: its reader (and zod's schemas of it) is not loaded.
  const data = dataDir(env);
  const recorded = (name: string): boolean => recordMayBeAt(path.join(data, name));
  const rotations = options.pendingRotations === true && recorded(OPERATION_RECORD_FILES.rotations);
  const creations = options.pendingCreations === true && recorded(OPERATION_RECORD_FILES.creations);
  // An older keydeck kept management-key rotations in the consumption-key record: either file may hold one.
  if (options.pendingRotations === true && (rotations || recorded(OPERATION_RECORD_FILES.mgmtRotations))) {
    // Management-key rotations first: their record takes over those the older record still holds.
    const { pendingMgmtRotationWarnings } = await import('./pendingMgmtRotations.js');
    for (const sentence of await pendingMgmtRotationWarnings(data, profile.name, originOf(profile.baseUrl))) warn(sentence);
  }
  if (rotations || creations) {
    const { pendingRotationWarnings, pendingCreationWarnings } = await import('./pendingRotations.js');
    if (rotations) for (const sentence of await pendingRotationWarnings(data, profile.name, originOf(profile.baseUrl))) warn(sentence);
    if (creations) for (const sentence of await pendingCreationWarnings(data, profile.name, originOf(profile.baseUrl))) warn(sentence);
  }
  // KEYDECK_TIMEOUT_MS sets the call deadline unless the caller passed its own.
  const bare = new KeydeckClient({
    ...clientTimeoutFromEnv(env),
    ...(profile.topUpMethods !== undefined && { methodNames: profile.topUpMethods }),
    // Said once per command on stderr, so stdout stays clean for --json.
    onNotice: (notice) => warn(notice.message),
    // Node's own HTTP client: a command sends a few requests and exits, and got costs ~30 ms to
    // load (src/api/nodeHttp.ts); the monitor, left open for hours, asks for got.
    transport: 'node:http',
    ...options.client,
    baseUrl: profile.baseUrl,
    token: credential.token,
    ...(globals.allowInsecureHttp === true && { allowInsecureHttp: true }),
    ...(readOnlyReason(profile) !== undefined && { readOnly: readOnlyReason(profile)! }), // the last line: src/config/profileMarks.ts
    // Every 401/403 names the credential and where it came from (a rejected KEYDECK_TOKEN says so).
    credential: fromFile
      ? { label: `the management key ${credential.token.slice(0, 11)} in the token file ${fromFile.path}`, whenRejected: `put a valid management key in ${fromFile.path}` }
      : describeCredential(credential.token, credential.source, profile.name, cliSignIn(profile.name)),
  });
  // A call that takes longer than ~300 ms shows a spinner on stderr (a terminal only).
  const client = options.spinner === false ? bare : withActivity(bare, createActivity({ env }), `waiting for ${new URL(profile.baseUrl).host}`);
  return { profile: { ...profile, baseUrl: profile.baseUrl }, credential, client, store };
}

/**
 * False only when nothing is at `file` (ENOENT, ENOTDIR; a link to nothing too): then the record
 * reads as empty (src/config/recordFile.ts, which opens it following links), and its reader need
 * not be loaded. Anything else there, readable or not, is left to the reader to say.
 */
function recordMayBeAt(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

// ---- the sentences of a session that cannot open: ./sessionWords.ts ----
export { noBaseUrlSentence, noCredentialSentence };

// ---- prompts (stderr, so stdout stays clean for --json): ./prompt.ts ----
export { askLine, askSecret, canPrompt, readStdin } from './prompt.js';
