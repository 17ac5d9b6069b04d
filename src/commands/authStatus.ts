/**
 * `keydeck auth status`: the profile and which rule chose it (--profile, KEYDECK_PROFILE, a
 * `.keydeck` file, profileRules, the default: src/config/profileChoice.ts), its marks (read-only,
 * protected), its base URL, where its key comes from (never the key), its `keyPrefix`, and whether
 * the service accepts it (`GET /api/keys/management`).
 */
import { KeydeckClient } from '../api/client.js';
import { KeydeckApiError, keyPrefixOf } from '../api/errors.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { resolveProfile, type ResolvedProfile } from '../config/profile.js';
import { describeChoice, type ProfileChoice } from '../config/profileChoice.js';
import type { ReadOnlyMark } from '../config/profileMarks.js';
import { createCredentialStore, credentialAccount, describeCredential, keychainBackendName, originOf, originTarget, TOKEN_ENV_VAR } from '../credentials/index.js';
import { CredentialStoreError, type CredentialSource, type CredentialStore } from '../credentials/store.js';
import { tokenKind, type TokenKind } from '../credentials/token.js';
import { visible } from '../terminal/sanitize.js';
import type { AuthDeps } from './auth.js';
import {
  ExitCode,
  exitCodeOf,
  insecureStorageWarning,
  cliSignIn,
  noBaseUrlSentence,
  noCredentialSentence,
  printJson,
  printLine,
  sentenceOf,
  warn,
  type ExitCodeValue,
  type GlobalOptions,
  type SessionCredential,
} from './output.js';

/** The report of `keydeck auth status --json`. */
export interface AuthStatusReport {
  readonly profile: string;
  /**
   * The rule that chose the profile (src/config/profileChoice.ts): `{ rule: "flag" }` (--profile),
   * `"sandbox"`, `"env"` (KEYDECK_PROFILE), `{ rule: "file", path }` (a .keydeck file),
   * `{ rule: "profileRules", path, configPath }`, `{ rule: "currentProfile", configPath }`, `"default"`.
   */
  readonly chosenBy: ProfileChoice;
  /** Set when nothing may be changed on the account: `{ by: "profile" }` (its readOnly) or `{ by: "flag" }` (--read-only). */
  readonly readOnly: ReadOnlyMark | null;
  /** Marked protected: a delete or a deactivation asks for the key's name typed. */
  readonly protected: boolean;
  /** The base URL in use, or null when none is configured. */
  readonly baseUrl: string | null;
  /**
   * Where the key comes from: `env`, `keychain`, `file`, `sandbox` (with `--sandbox` and nothing
   * stored: the sandbox's demo session token), or null when there is none.
   */
  readonly store: CredentialSource | 'sandbox' | null;
  /** The plaintext file, when `store` is `file`. */
  readonly path?: string;
  /** `management` (`mk_`) or `session` (a session token in `KEYDECK_TOKEN`); null when no key. */
  readonly tokenKind: Exclude<TokenKind, 'consumption'> | null;
  /** `mk_` + 8 characters, or null (no key, or a session token). */
  readonly keyPrefix: string | null;
  /** The management key's name on the service, when it was found in the list. */
  readonly keyName?: string;
  /** True when the service accepted the key (`GET /api/keys/management` succeeded). */
  readonly accepted: boolean;
  /** Why not accepted (one sentence), when `accepted` is false. */
  readonly reason?: string;
}

/**
 * `keydeck auth status [--json]`: prints the report (JSON or lines) and returns the exit code:
 * 0 accepted; 1 no key, or refused; 2 no base URL; 4 the service does not answer.
 */
export async function authStatus(globals: GlobalOptions, options: { json?: boolean } = {}, deps: AuthDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  const store = deps.store ?? createCredentialStore({ env });
  const profile = await resolveProfile(globals, env);
  const { report, code } = await statusReport(profile, store, env, globals.allowInsecureHttp === true, globals.sandboxToken);
  if (options.json) {
    printJson(report);
  } else {
    printLine(`profile   ${report.profile}`);
    printLine(`chosen by ${describeChoice(report.chosenBy)}`);
    const marks = [
      ...(report.readOnly ? [`read-only${report.readOnly.by === 'flag' ? ' (--read-only)' : ''}: keydeck changes nothing on this account`] : []),
      ...(report.protected ? ['protected: a delete or a deactivation asks for the key’s name'] : []),
    ];
    if (marks.length > 0) printLine(`marks     ${marks.join('; ')}`);
    printLine(`base URL  ${report.baseUrl ?? '(none)'}`);
    printLine(`key       ${report.keyPrefix ? `${report.keyPrefix}…` : report.tokenKind === 'session' ? 'a session token' : '(none)'}${report.keyName ? ` ("${visible(report.keyName)}")` : ''}`);
    printLine(`from      ${describeSource(report, keychainBackendName(process.platform), profile.baseUrl !== undefined ? credentialAccount(profile.name, originOf(profile.baseUrl)) : profile.name)}`);
    printLine(`service   ${report.accepted ? 'accepts the key' : `no: ${report.reason}`}`);
  }
  return code;
}

function describeSource(report: AuthStatusReport, backend: string, profile: string): string {
  switch (report.store) {
    case 'env':
      return `${TOKEN_ENV_VAR} (environment; never stored)`;
    case 'keychain':
      return `keychain: ${backend} (service "keydeck", account "${profile}")`;
    case 'file':
      return `file: ${report.path} (plaintext, --insecure-storage)`;
    case 'sandbox':
      return 'the sandbox’s demo session token (never stored; keydeck --sandbox auth login stores a management key instead)';
    default:
      return '(nowhere)';
  }
}

/** Builds the status report of `profile`, printing the file warning; `env` gives KEYDECK_TIMEOUT_MS. */
async function statusReport(
  profile: ResolvedProfile,
  store: CredentialStore,
  env: NodeJS.ProcessEnv,
  allowInsecureHttp: boolean,
  sandboxToken?: string,
): Promise<{ report: AuthStatusReport; code: ExitCodeValue }> {
  const base = { profile: profile.name, chosenBy: profile.chosenBy, readOnly: profile.readOnly ?? null, protected: profile.protected, baseUrl: profile.baseUrl ?? null };
  let credential: SessionCredential | undefined;
  try {
    credential = await store.get(profile.name, profile.baseUrl !== undefined ? originTarget(profile.baseUrl, profile.savedBaseUrl) : {});
  } catch (err) {
    // A bad KEYDECK_TOKEN (an sk_ key, spaces) is bad usage: reported on stderr, exit 2.
    if (!(err instanceof CredentialStoreError) || err.code === 'consumption_key' || err.code === 'invalid_token') throw err;
    const report: AuthStatusReport = { ...base, store: null, tokenKind: null, keyPrefix: null, accepted: false, reason: sentenceOf(err) };
    return { report, code: exitCodeOf(err) };
  }
  if (!credential && sandboxToken !== undefined) credential = { token: sandboxToken, source: 'sandbox' };
  if (!credential) {
    const reason = `${await noCredentialSentence(profile.name, store, profile)}.`;
    return { report: { ...base, store: null, tokenKind: null, keyPrefix: null, accepted: false, reason }, code: ExitCode.refused };
  }
  if (credential.source === 'file' && credential.path) warn(insecureStorageWarning(credential.path));
  const kind = tokenKind(credential.token) === 'management' ? 'management' : 'session';
  const found = {
    ...base,
    store: credential.source,
    ...(credential.path && { path: credential.path }),
    tokenKind: kind,
    keyPrefix: kind === 'management' ? keyPrefixOf(credential.token) : null,
  } as const;
  if (profile.baseUrl === undefined) {
    return { report: { ...found, accepted: false, reason: `${noBaseUrlSentence(profile)}.` }, code: ExitCode.usage };
  }
  try {
    const client = new KeydeckClient({
      ...clientTimeoutFromEnv(env),
      baseUrl: profile.baseUrl,
      token: credential.token,
      credential: describeCredential(credential.token, credential.source, profile.name, cliSignIn(profile.name)),
      ...(allowInsecureHttp && { allowInsecureHttp }),
    });
    const keys = await client.managementKeys.list();
    const mine = found.keyPrefix ? keys.find((k) => k.keyPrefix === found.keyPrefix) : undefined;
    return { report: { ...found, ...(mine && { keyName: mine.name }), accepted: true }, code: ExitCode.ok };
  } catch (err) {
    if (!(err instanceof KeydeckApiError)) throw err;
    return { report: { ...found, accepted: false, reason: sentenceOf(err) }, code: exitCodeOf(err) };
  }
}
