/**
 * `keydeck auth login | status | logout`: from a session token to a management key that lives in
 * the OS keychain (the service's endpoints management-key endpoints, the service's authentication authentication).
 *
 * - login: takes a session token or an `mk_` key (`--token-stdin`, else a masked prompt), verifies
 *   it (`GET /api/keys/management`), and with a session token creates a management key
 *   (`POST /api/keys/management`, name `--name`, default `keydeck@<hostname> <profile> <date>`) and stores that;
 *   the session token is never stored. Storage is checked before anything is created, so a key is
 *   never created only to be lost; if storing still fails the new key is deleted again.
 * - status (./authStatus.ts): profile, base URL, where the key comes from, its `keyPrefix`, whether it is accepted.
 * - logout: removes the stored key; `--revoke` first deletes it on the service.
 * No full key or token is ever printed.
 */
import { hostname } from 'node:os';
import { KeydeckClient } from '../api/client.js';
import { describeApiError } from '../api/describe.js';
import { KeydeckApiError, keyPrefixOf } from '../api/errors.js';
import type { ManagementKey } from '../api/schemas.js';
import { ConfigError, emptyConfig, normalizeBaseUrl, readConfig, updateConfig, type KeydeckConfig } from '../config/config.js';
import { configFilePath } from '../config/paths.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { resolveFromConfig, resolveProfile } from '../config/profile.js';
import { ensureWritable, readOnlyReason } from '../config/profileMarks.js';
import { createCredentialStore, credentialAccount, describeCredential, managementKeyName, originTarget, TOKEN_ENV_VAR, type OriginTarget } from '../credentials/index.js';
import { type CredentialSource, type CredentialStore, type StoredCredential } from '../credentials/store.js';
import { checkCredentialToken, tokenKind } from '../credentials/token.js';
import { visible } from '../terminal/sanitize.js';
import {
  askLine,
  askSecret,
  canPrompt,
  ExitCode,
  cliSignIn,
  fail,
  insecureStorageWarning,
  printLine,
  readStdin,
  sentenceOf,
  warn,
  exitCodeOf,
  type ExitCodeValue,
  type GlobalOptions,
} from './output.js';
import { accountWords } from './wordingAccount.js';

/** Keychain time limit for an interactive login, in ms: the keyring may ask to be unlocked. */
const INTERACTIVE_KEYCHAIN_TIMEOUT_MS = 60_000;

/** Dependencies of the auth commands (tests and embedding; defaults are the process's). */
export interface AuthDeps {
  readonly env?: NodeJS.ProcessEnv;
  readonly store?: CredentialStore;
}

/** Options of {@link authLogin} (`keydeck auth login`). */
export interface LoginOptions {
  /** Read the token from stdin (trimmed) instead of prompting. */
  readonly tokenStdin?: boolean;
  /** Name of the management key created from a session token (default `keydeck@<hostname> <profile> <date>`). */
  readonly name?: string;
}

/**
 * The default name of the management key created by login: `keydeck@<hostname> <profile>
 * <YYYY-MM-DD>`, numbered ` (2)`… when one of `taken` already has it (≤ 128 chars).
 */
export function defaultKeyName(profile: string, now: number, taken: readonly string[] = []): string {
  return managementKeyName({ host: hostname(), profile, now }, taken);
}

/**
 * `keydeck auth login`. Returns the exit code (0); every refusal throws (see {@link fail}).
 * Exit 2: no base URL and no terminal to ask, no token and no terminal, an `sk_` key, bad config;
 * exit 1: no keychain without `--insecure-storage` (nothing is sent or written), the token is
 * refused by the service; exit 4: the service does not answer.
 */
export async function authLogin(globals: GlobalOptions, options: LoginOptions = {}, deps: AuthDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  const store = deps.store ?? createCredentialStore({ env });
  const interactive = !options.tokenStdin && canPrompt();

  // 1. Profile and base URL. A broken config file is moved to a backup when login writes it.
  const configPath = configFilePath(env);
  let config: KeydeckConfig;
  let configExists = false;
  let brokenConfig: ConfigError | undefined;
  try {
    ({ config, exists: configExists } = await readConfig(configPath));
  } catch (err) {
    if (!(err instanceof ConfigError) || (err.code !== 'config_invalid' && err.code !== 'config_not_json')) throw err;
    brokenConfig = err;
    config = emptyConfig();
    warn(`${err.message.replace(/:[^:]*$/, '')}; a successful login moves it to a backup and writes a new one`);
  }
  const profile = resolveFromConfig(config, configPath, globals, env);
  let baseUrl = profile.baseUrl;
  if (baseUrl === undefined) {
    if (!interactive) {
      fail(ExitCode.usage, accountWords.loginNeedsBaseUrl, { name: profile.name });
    }
    baseUrl = normalizeBaseUrl(await askLine(`Base URL of the service for profile "${profile.name}": `));
  }

  // 2. The token.
  let raw: string;
  if (options.tokenStdin) {
    raw = await readStdin();
  } else if (interactive) {
    const demo = globals.sandboxToken;
    raw = await askSecret(`Session token or management key (mk_…), input hidden${demo !== undefined ? '; enter uses the sandbox’s demo session token' : ''}: `);
    if (raw === '' && demo !== undefined) raw = demo;
  } else if (globals.sandboxToken !== undefined) {
    // keydeck --sandbox auth login in a script: the demo account's session token.
    raw = globals.sandboxToken;
  } else {
    fail(ExitCode.usage, accountWords.usageNoTokenGiven);
  }
  const token = checkCredentialToken(raw, 'the token');
  const kind = tokenKind(token);
  // A session token makes keydeck create a management key: a change, refused on a read-only
  // profile before anything is sent (a management key signs in without one).
  if (kind !== 'management') ensureWritable(profile, 'create a management key from a session token (give an existing management key, mk_…, instead)');
  // The key is stored for this service's origin; a key stored before keys were kept per origin
  // belongs to the profile's saved base URL (src/credentials/origin.ts).
  const savedBaseUrl = config.profiles[profile.name]?.baseUrl;
  const target = originTarget(baseUrl, savedBaseUrl);
  if (savedBaseUrl !== undefined && !target.legacy) {
    // Reading with the saved URL's target moves its pre-origin key under that origin before the
    // profile's URL changes, so that key never counts for this other service.
    await store.get(profile.name, { ...originTarget(savedBaseUrl, savedBaseUrl), ignoreEnv: true }).catch(() => undefined);
  }

  // 3. Where the key will go: decided before anything is created on the service.
  const timeoutMs = interactive ? INTERACTIVE_KEYCHAIN_TIMEOUT_MS : undefined;
  const keychain = await store.keychainStatus({ write: true, ...(timeoutMs && { timeoutMs }) });
  if (!keychain.available && !globals.insecureStorage) {
    fail(ExitCode.refused, accountWords.keychainUnavailable, { reason: keychain.reason });
  }
  const previous = await storedQuietly(store, profile.name, target);

  // 4. Verify the token, and with a session token create the management key.
  const readOnly = readOnlyReason(profile);
  const client = new KeydeckClient({
    ...clientTimeoutFromEnv(env),
    baseUrl,
    token,
    ...(globals.allowInsecureHttp === true && { allowInsecureHttp: true }),
    ...(readOnly !== undefined && { readOnly }),
  });
  const existing = await client.managementKeys.list();
  let managementKey: string;
  let created: { id: string; name: string; keyPrefix: string } | undefined;
  let known: ManagementKey | undefined;
  if (kind === 'management') {
    managementKey = token;
    known = existing.find((k) => k.keyPrefix === keyPrefixOf(token));
  } else {
    // A meaningful, unique default: keydeck@<host> <profile> <date>, numbered when taken.
    const keyName = (
      options.name ??
      defaultKeyName(
        profile.name,
        Date.now(),
        existing.map((k) => k.name),
      )
    ).trim();
    const result = await client.managementKeys.create({ name: keyName });
    managementKey = result.apiKey;
    created = { id: result.id, name: result.name, keyPrefix: result.keyPrefix };
  }

  // 5. Store it (the session token is forgotten with this function's scope).
  let stored: { source: Exclude<CredentialSource, 'env'>; path?: string };
  try {
    stored = await store.set(profile.name, managementKey, { ...target, insecureStorage: globals.insecureStorage === true, ...(timeoutMs && { timeoutMs }) });
  } catch (err) {
    if (!created) throw err;
    let undone = 'it was deleted again on the service';
    try {
      await client.managementKeys.delete(created.id);
    } catch (deleteError) {
      undone = `it could not be deleted again (${describeApiError(deleteError).replace(/\.$/, '')}): delete "${created.name}" (${created.keyPrefix}…) with keydeck mgmt-keys`;
    }
    fail(exitCodeOf(err), `${sentenceOf(err)} The management key just created was not stored, and ${undone}`);
  }

  // 6. Save the profile (never a secret). Not with --sandbox: its address is the running sandbox's,
  // found again at each start (the key stored for it is found by its origin), and the profile
  // keydeck uses without --sandbox stays what it was.
  let defaultProfile = config.currentProfile ?? 'default';
  if (globals.sandboxToken === undefined) {
    // --base-url and a prompted URL are saved; KEYDECK_BASE_URL only fills a profile that has none.
    const saveUrl = !(globals.baseUrlFromEnv && config.profiles[profile.name]?.baseUrl !== undefined);
    const update = await updateConfig(
      configPath,
      (c) => {
        const entry = c.profiles[profile.name] ?? {};
        if (saveUrl) entry.baseUrl = baseUrl;
        c.profiles[profile.name] = entry;
        // The first login records the default it used, never another: no command changes the
        // default as a side effect (only `keydeck profile use` does).
        if (!configExists && profile.chosenBy.rule === 'default') c.currentProfile ??= profile.name;
      },
      { onBroken: brokenConfig ? 'backup' : 'throw' },
    );
    if (update.backupPath) warn(`moved the unreadable config file to ${update.backupPath} and wrote a new ${configPath}`);
    defaultProfile = update.config.currentProfile ?? 'default';
  }

  // 7. Say what happened, never the key.
  const prefix = created?.keyPrefix ?? keyPrefixOf(managementKey);
  printLine(`Logged in: profile "${profile.name}" at ${baseUrl}.`);
  if (created) {
    printLine(`Created the management key "${visible(created.name)}" (${prefix}…) from the session token; the session token was not stored.`);
  } else {
    printLine(`The service accepts the management key ${prefix}…${known ? ` ("${visible(known.name)}")` : ''}.`);
  }
  if (stored.source === 'keychain') {
    printLine(`Stored in the ${keychain.backend} (service "keydeck", account "${credentialAccount(profile.name, target.origin)}").`);
  } else {
    printLine(`Stored in plaintext in ${stored.path} (mode 0600), as --insecure-storage asked; the keychain is unavailable: ${keychain.reason ?? 'it refused the key'}.`);
    warn(`the management key is stored in plaintext at ${stored.path} (--insecure-storage): anyone who can read that file can manage the account`);
  }
  if (previous && previous.token !== managementKey) {
    warn(`this replaced the previously stored key ${keyPrefixOf(previous.token)}…, which stays valid on the service: ` + 'delete it with keydeck mgmt-keys if it is no longer needed');
  }
  if (env[TOKEN_ENV_VAR]?.trim()) warn(`${TOKEN_ENV_VAR} is set and overrides the stored key until it is unset`);
  // Logging in never changes the default: say how this profile is used when it is not the default.
  if (globals.sandboxToken === undefined && profile.name !== defaultProfile && (profile.chosenBy.rule === 'flag' || profile.chosenBy.rule === 'env')) {
    printLine(
      `The default profile is still "${defaultProfile}": use this one with --profile ${profile.name} (or KEYDECK_PROFILE, or a .keydeck file in a directory), or make it the default with \`keydeck profile use ${profile.name}\`.`,
    );
  }
  return ExitCode.ok;
}

/** The stored (not env) credential of `profile` for `target`'s origin, or undefined also when the store cannot be read. */
async function storedQuietly(store: CredentialStore, profile: string, target: OriginTarget): Promise<StoredCredential | undefined> {
  try {
    return await store.get(profile, { ...target, ignoreEnv: true });
  } catch {
    // a store that cannot be read holds nothing this check can use
    return undefined;
  }
}

/**
 * `keydeck auth logout [--revoke]`: removes the profile's stored key (keychain and file). With
 * `revoke`, first deletes that management key on the service (found by `keyPrefix`); when the
 * service does not answer nothing is removed (exit 4), so the command can be retried.
 * Returns 0, also when nothing was stored; when the keychain could not be asked a warning says so.
 */
export async function authLogout(globals: GlobalOptions, options: { revoke?: boolean } = {}, deps: AuthDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  const store = deps.store ?? createCredentialStore({ env });
  const profile = await resolveProfile(globals, env);
  // The key of this service's origin (without a base URL: one stored before keys were kept per origin).
  const target = profile.baseUrl !== undefined ? originTarget(profile.baseUrl, profile.savedBaseUrl) : {};
  const stored = await store.get(profile.name, { ...target, ignoreEnv: true });

  if (options.revoke) {
    ensureWritable(profile, 'delete the management key on the service (keydeck auth logout without --revoke forgets it here only)');
    if (!stored) fail(ExitCode.refused, accountWords.nothingToRevokeNoKeyStored, { name: profile.name });
    if (tokenKind(stored.token) !== 'management') fail(ExitCode.refused, accountWords.nothingToRevokeStoredTokenNot);
    if (profile.baseUrl === undefined) fail(ExitCode.usage, accountWords.noBaseUrl, profile);
    if (stored.source === 'file' && stored.path) warn(insecureStorageWarning(stored.path));
    const prefix = keyPrefixOf(stored.token);
    const client = new KeydeckClient({
      ...clientTimeoutFromEnv(env),
      baseUrl: profile.baseUrl,
      token: stored.token,
      ...(globals.allowInsecureHttp === true && { allowInsecureHttp: true }),
      credential: describeCredential(stored.token, stored.source, profile.name, cliSignIn(profile.name)),
      ...(readOnlyReason(profile) !== undefined && { readOnly: readOnlyReason(profile)! }),
    });
    try {
      const mine = (await client.managementKeys.list()).find((k) => k.keyPrefix === prefix);
      if (mine) {
        await client.managementKeys.delete(mine.id);
        printLine(`Revoked the management key "${visible(mine.name)}" (${prefix}…) on ${profile.baseUrl}.`);
      } else {
        warn(`the service lists no management key ${prefix}… (already deleted?); removing the stored copy`);
      }
    } catch (err) {
      if (!(err instanceof KeydeckApiError) || err.code !== 'unauthorized') throw err;
      warn(`the service no longer accepts ${prefix}… (already revoked?); removing the stored copy`);
    }
  }

  const result = await store.delete(profile.name, target);
  if (result.removedFrom.length > 0) {
    const where = result.removedFrom.map((s) => (s === 'keychain' ? 'the keychain' : 'the plaintext key file')).join(' and ');
    printLine(`Logged out: removed the key${stored ? ` ${keyPrefixOf(stored.token)}…` : ''} of profile "${profile.name}" from ${where}.`);
  } else if (!result.keychainHung) {
    printLine(`No key was stored for profile "${profile.name}"; nothing to remove.`);
  }
  if (result.keychainError && !result.keychainHung) warn(`the keychain could not be asked, so a key stored there may remain: ${result.keychainError}`);
  if (env[TOKEN_ENV_VAR]?.trim()) warn(`${TOKEN_ENV_VAR} is still set, and keydeck keeps using it until it is unset`);
  // A keychain that did not answer (hung) may still hold the key: never "nothing was stored", never exit 0.
  if (result.keychainHung && result.keychainError) {
    fail(ExitCode.refused, accountWords.keychainHung, { name: profile.name, keychainError: result.keychainError });
  }
  return ExitCode.ok;
}
