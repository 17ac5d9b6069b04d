/**
 * `keydeck doctor [--json]`: one line per check, `ok` or `fail`, exit 1 when any fails.
 *
 * Checks, in order: the keychain backend (a write probe, so a locked keyring shows), the config
 * file (parses), where the key comes from, whether the service answers, whether it accepts the
 * key (`GET /api/keys/management`, §4/§5). A check that cannot run because an earlier one failed
 * says so and fails too. Nothing secret is printed.
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
  readonly ok: boolean;
  /** One sentence: what answers, or exactly why not. Never a secret. */
  readonly detail: string;
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
  checks.push({
    name: 'keychain',
    ok: keychain.available,
    detail: keychain.available
      ? `${keychain.backend} answers (read and write probe: ${Math.round(keychain.probeMs)} ms)`
      : `${keychain.backend}: ${keychain.reason}`,
  });

  const configPath = configFilePath(env);
  let config: KeydeckConfig = emptyConfig();
  try {
    const read = await readConfig(configPath);
    config = read.config;
    const names = Object.keys(config.profiles);
    checks.push({
      name: 'config',
      ok: true,
      detail: read.exists
        ? `${configPath} parses (${names.length} profile${names.length === 1 ? '' : 's'}${names.length ? `: ${names.join(', ')}` : ''})`
        : `${configPath} does not exist yet (keydeck auth login creates it)`,
    });
  } catch (err) {
    checks.push({ name: 'config', ok: false, detail: sentenceOf(err) });
  }

  // The plaintext key file (--insecure-storage), when there is one: a regular file of this user, mode 0600.
  const keyFile = credentialsFilePath(env);
  try {
    const read = await readTrustedFile(keyFile, 'key file');
    if (read.kind === 'refused') checks.push({ name: 'keyfile', ok: false, detail: `${read.problem.sentence}.` });
    else if (read.kind === 'text') checks.push({ name: 'keyfile', ok: true, detail: `${keyFile} is yours and readable by you only (plaintext, --insecure-storage)` });
  } catch (err) {
    checks.push({ name: 'keyfile', ok: false, detail: `cannot read the key file ${keyFile} (${(err as NodeJS.ErrnoException).code ?? 'error'}).` });
  }

  let profile: ResolvedProfile | undefined;
  try {
    profile = resolveFromConfig(config, configPath, globals, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    checks.push({ name: 'key', ok: false, detail: sentenceOf(err) });
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
        checks.push({ name: 'key', ok: true, detail: `profile "${profile.name}": ${what} from ${from}` });
        if (credential.source === 'file' && credential.path) warn(insecureStorageWarning(credential.path));
      } else if (globals.sandboxToken !== undefined) {
        // keydeck --sandbox doctor with nothing stored: the commands use the demo token (issue 44).
        credential = { token: globals.sandboxToken, source: 'env' };
        checks.push({ name: 'key', ok: true, detail: `profile "${profile.name}": the sandbox’s demo session token (never stored)` });
      } else {
        checks.push({ name: 'key', ok: false, detail: await noCredentialSentence(profile.name, store, profile, { keychainReason: false }) });
      }
    } catch (err) {
      checks.push({ name: 'key', ok: false, detail: sentenceOf(err) });
    }
  }

  if (!profile?.baseUrl) {
    const detail = profile ? noBaseUrlSentence(profile.name) : 'not checked: no profile';
    checks.push({ name: 'service', ok: false, detail });
    checks.push({ name: 'accepted', ok: false, detail: 'not checked: no service to ask' });
    return checks;
  }
  const baseUrl = profile.baseUrl;
  try {
    await new KeydeckClient({
      baseUrl,
      token: credential?.token ?? PROBE_TOKEN,
      ...(globals.allowInsecureHttp === true && { allowInsecureHttp: true }),
      retries: 0, timeoutMs: requestTimeoutFromEnv(env) ?? DOCTOR_TIMEOUT_MS }).managementKeys.list();
    checks.push({ name: 'service', ok: true, detail: `${baseUrl} answers` });
    checks.push({ name: 'accepted', ok: true, detail: 'the service accepts the key' });
  } catch (err) {
    const apiError = err instanceof KeydeckApiError ? err : undefined;
    const answered = apiError !== undefined && apiError.status !== undefined;
    checks.push({ name: 'service', ok: answered, detail: answered ? `${baseUrl} answers (HTTP ${apiError.status})` : sentenceOf(err) });
    checks.push({
      name: 'accepted',
      ok: false,
      detail: !answered ? 'not checked: the service does not answer' : credential ? sentenceOf(err) : 'not checked: no key',
    });
  }
  return checks;
}

/** `keydeck doctor [--json]`: prints the checks and returns 0 when all pass, else 1. */
export async function doctor(globals: GlobalOptions, options: { json?: boolean } = {}, deps: AuthDeps = {}): Promise<ExitCodeValue> {
  const checks = await runDoctorChecks(globals, deps);
  const ok = checks.every((c) => c.ok);
  if (options.json) {
    printJson({ ok, checks });
  } else {
    for (const check of checks) printLine(`${check.ok ? 'ok  ' : 'fail'}  ${check.name.padEnd(8)}  ${check.detail}`);
  }
  return ok ? ExitCode.ok : ExitCode.refused;
}
