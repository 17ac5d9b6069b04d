/**
 * `keydeck doctor [--json]`: one line per check, `ok`, `warn` or `fail`, exit 1 when any fails
 * (a warning alone exits 0: doctor is a health check for scripts).
 *
 * Checks, in order: the keychain backend (a write probe, so a locked keyring shows), the config
 * file (parses), where the key comes from, whether the service answers, whether it accepts the
 * key (`GET /api/keys/management`). A check that cannot run because an earlier one failed
 * says so and fails too. No keychain is a warning, not a failure, when the key in use comes from
 * a fallback that works (the plaintext file the user chose, or KEYDECK_TOKEN).
 * Nothing secret is printed. `keydeck doctor --exporter` checks an exporter's setup instead
 * (src/exporter/check.ts, printed by {@link printChecks}).
 */
import { requestTimeoutFromEnv } from '../config/timeout.js';
import { KeydeckClient } from '../api/client.js';
import { KeydeckApiError, keyPrefixOf } from '../api/errors.js';
import { ConfigError, emptyConfig, readConfig, type KeydeckConfig } from '../config/config.js';
import { configFilePath, credentialsFilePath } from '../config/paths.js';
import { readTrustedFile } from '../config/trust.js';
import { resolveFromConfig, type ResolvedProfile } from '../config/profile.js';
import { createCredentialStore, credentialAccount, originOf, originTarget, TOKEN_ENV_VAR } from '../credentials/index.js';
import type { CredentialStore, StoredCredential } from '../credentials/store.js';
import { tokenKind } from '../credentials/token.js';
import type { AuthDeps } from './auth.js';
import { ExitCode, warn, insecureStorageWarning, noBaseUrlSentence, noCredentialSentence, printJson, printLine, sentenceOf, type ExitCodeValue, type GlobalOptions } from './output.js';

/** The doctor's deadline for asking the service, ms, unless KEYDECK_TIMEOUT_MS says otherwise (a check should answer fast). */
const DOCTOR_TIMEOUT_MS = 5000;
/** One line of the doctor's report. */
export interface DoctorCheck {
  /** `keychain`, `config` (dir and file: trusted as ssh trusts its own, then parsed), `keyfile` (the plaintext key file, when there is one), `key`, `service` or `accepted`. */
  readonly name: 'keychain' | 'config' | 'keyfile' | 'key' | 'service' | 'accepted';
  /** False only for a failure (a warning is ok). */
  readonly ok: boolean;
  /** `warn`: something to know that does not stop keydeck working (no keychain beside a working fallback). */
  readonly status: CheckStatus;
  /** One sentence: what answers, or exactly why not. Never a secret. */
  readonly detail: string;
}

/** How a check came out. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

/** A check as {@link printChecks} prints it. */
export interface PrintedCheck {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

/** A check from its outcome (`ok` true or false). */
function check(name: DoctorCheck['name'], ok: boolean, detail: string): DoctorCheck {
  return { name, ok, status: ok ? 'ok' : 'fail', detail };
}

/** A token the service cannot know, to see whether it answers at all when no key is stored. */
const PROBE_TOKEN = 'keydeck-doctor-probe';

/**
 * Runs every check and returns them in order. Never throws for a failed check.
 * `globals` as for every command (`--profile`, `--base-url`).
 */
export async function runDoctorChecks(globals: GlobalOptions, deps: AuthDeps = {}): Promise<DoctorCheck[]> {
  const env = deps.env ?? process.env;
  const store: CredentialStore = deps.store ?? createCredentialStore({ env });
  const checks: DoctorCheck[] = [];

  const keychain = await store.keychainStatus({ write: true });
  checks.push(
    check('keychain', keychain.available, keychain.available ? `${keychain.backend} answers (read and write probe: ${Math.round(keychain.probeMs)} ms)` : `${keychain.backend}: ${keychain.reason}`),
  );

  const configPath = configFilePath(env);
  let config: KeydeckConfig = emptyConfig();
  try {
    const read = await readConfig(configPath);
    config = read.config;
    const names = Object.keys(config.profiles);
    checks.push({
      name: 'config',
      ok: true,
      status: 'ok',
      detail: read.exists
        ? `${configPath} parses (${names.length} profile${names.length === 1 ? '' : 's'}${names.length ? `: ${names.join(', ')}` : ''})`
        : `${configPath} does not exist yet (keydeck auth login creates it)`,
    });
    if (read.unknown.paths.length > 0) {
      checks.push({
        name: 'config',
        ok: true,
        status: 'warn',
        detail: `fields this keydeck does not know, ignored (a newer keydeck's, or typos): ${read.unknown.paths.map((f) => `"${f}"`).join(', ')}`,
      });
    }
  } catch (err) {
    checks.push(check('config', false, sentenceOf(err)));
  }

  // The plaintext key file (--insecure-storage), when there is one: a regular file of this user, mode 0600.
  const keyFile = credentialsFilePath(env);
  try {
    const read = await readTrustedFile(keyFile, 'key file');
    if (read.kind === 'refused') checks.push(check('keyfile', false, `${read.problem.sentence}.`));
    else if (read.kind === 'text') checks.push(check('keyfile', true, `${keyFile} is yours and readable by you only (plaintext, --insecure-storage)`));
  } catch (err) {
    checks.push(check('keyfile', false, `cannot read the key file ${keyFile} (${(err as NodeJS.ErrnoException).code ?? 'error'}).`));
  }

  let profile: ResolvedProfile | undefined;
  try {
    profile = resolveFromConfig(config, configPath, globals, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    checks.push(check('key', false, sentenceOf(err)));
  }

  let credential: StoredCredential | undefined;
  if (profile) {
    try {
      credential = await store.get(profile.name, profile.baseUrl !== undefined ? originTarget(profile.baseUrl, profile.savedBaseUrl) : {});
      if (credential) {
        const what = tokenKind(credential.token) === 'management' ? `management key ${keyPrefixOf(credential.token)}…` : 'a session token';
        const from =
          credential.source === 'env'
            ? `${TOKEN_ENV_VAR} (environment)`
            : credential.source === 'keychain'
              ? `the ${keychain.backend} (account "${profile.baseUrl !== undefined ? credentialAccount(profile.name, originOf(profile.baseUrl)) : profile.name}")`
              : `the plaintext file ${credential.path} (--insecure-storage)`;
        checks.push(check('key', true, `profile "${profile.name}": ${what} from ${from}`));
        if (credential.source === 'file' && credential.path) warn(insecureStorageWarning(credential.path));
      } else if (globals.sandboxToken !== undefined) {
        // keydeck --sandbox doctor with nothing stored: the commands use the demo token.
        credential = { token: globals.sandboxToken, source: 'env' };
        checks.push(check('key', true, `profile "${profile.name}": the sandbox’s demo session token (never stored)`));
      } else {
        checks.push(check('key', false, await noCredentialSentence(profile.name, store, profile, { keychainReason: false })));
      }
    } catch (err) {
      checks.push(check('key', false, sentenceOf(err)));
    }
  }

  // No keychain is only a warning while the key in use comes from a fallback that works.
  if (!keychain.available && (credential?.source === 'file' || credential?.source === 'env')) {
    const fallback =
      credential.source === 'file' ? `the key is read from the plaintext file you chose (${credential.path ?? 'credentials.json'}, --insecure-storage)` : `the key comes from ${TOKEN_ENV_VAR}`;
    checks[0] = { name: 'keychain', ok: true, status: 'warn', detail: `${fallback}, which works without a keychain; ${keychain.backend}: ${keychain.reason}` };
  }

  if (!profile?.baseUrl) {
    const detail = profile ? noBaseUrlSentence(profile) : 'not checked: no profile';
    checks.push(check('service', false, detail));
    checks.push(check('accepted', false, 'not checked: no service to ask'));
    return checks;
  }
  const baseUrl = profile.baseUrl;
  try {
    await new KeydeckClient({
      baseUrl,
      token: credential?.token ?? PROBE_TOKEN,
      ...(globals.allowInsecureHttp === true && { allowInsecureHttp: true }),
      retries: 0,
      timeoutMs: requestTimeoutFromEnv(env) ?? DOCTOR_TIMEOUT_MS,
    }).managementKeys.list();
    checks.push(check('service', true, `${baseUrl} answers`));
    checks.push(check('accepted', true, 'the service accepts the key'));
  } catch (err) {
    const apiError = err instanceof KeydeckApiError ? err : undefined;
    const answered = apiError !== undefined && apiError.status !== undefined;
    checks.push(check('service', answered, answered ? `${baseUrl} answers (HTTP ${apiError.status})` : sentenceOf(err)));
    checks.push({
      name: 'accepted',
      ok: false,
      status: 'fail',
      detail: !answered ? 'not checked: the service does not answer' : credential ? sentenceOf(err) : 'not checked: no key',
    });
  }
  return checks;
}

/**
 * Prints `checks` (one line each: `ok  `, `warn` or `fail`, the name, the detail; or with `json`
 * `{ ok, checks: [{ name, ok, status, detail }] }`). Returns whether none failed.
 */
export function printChecks(checks: readonly PrintedCheck[], json = false): boolean {
  const ok = checks.every((c) => c.status !== 'fail');
  if (json) {
    printJson({ ok, checks: checks.map((c) => ({ name: c.name, ok: c.status !== 'fail', status: c.status, detail: c.detail })) });
  } else {
    const width = Math.max(8, ...checks.map((c) => c.name.length));
    for (const c of checks) printLine(`${c.status === 'ok' ? 'ok  ' : c.status}  ${c.name.padEnd(width)}  ${c.detail}`);
  }
  return ok;
}

/** `keydeck doctor [--json]`: prints the checks and returns 0 when none fails (warnings allowed), else 1. */
export async function doctor(globals: GlobalOptions, options: { json?: boolean } = {}, deps: AuthDeps = {}): Promise<ExitCodeValue> {
  const checks = await runDoctorChecks(globals, deps);
  return printChecks(checks, options.json) ? ExitCode.ok : ExitCode.refused;
}
