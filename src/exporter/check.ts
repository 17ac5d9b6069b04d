/**
 * Whether the exporter would run clean with these flags: `keydeck exporter
 * --check-config` (offline: the flags, the config file, each profile's service and credential) and
 * `keydeck doctor --exporter` (the same, plus one authenticated read per profile, the history
 * database and the listen address). Never throws for a failed check; nothing secret in a detail
 * (a key by its prefix only).
 *
 * A failed check marked `fatal` is one the exporter refuses to start with (exit 2); any other
 * failure leaves a profile at `keydeck_up 0` (exit 1); a warning is said and changes nothing.
 */
import { createServer } from 'node:net';
import { insecureHttpProblem } from '../api/baseUrl.js';
import { formatUsd } from '../api/money.js';
import { KeydeckClient } from '../api/client.js';
import { keyPrefixOf } from '../api/errors.js';
import { BalanceHistoryStore } from '../billing/historyStore.js';
import { configFilePath } from '../config/paths.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { createCredentialStore, tokenKind, type CredentialStore } from '../credentials/index.js';
import { formatAddress, type MetricsAddress } from '../metrics/address.js';
import { ambiguousTokenVars, findCredential, type FoundCredential } from './credentials.js';
import { loadProfiles } from './profiles.js';
import { EXPORTER_TIMEOUT_MS, type ExporterOptions } from './run.js';
import { strayTokenDirFiles, unwatchedTokenFiles, type Suggest } from './sources.js';
import type { WatchedProfile } from './profile.js';

/** One line of the report. */
export interface SetupCheck {
  /** `config`, `token-file`, `token-dir`, `profile NAME`, `history`, `listen`, `environment`. */
  readonly name: string;
  readonly status: 'ok' | 'warn' | 'fail';
  /** One sentence: what was found, or exactly why not. */
  readonly detail: string;
  /** The exporter would refuse to start (exit 2). */
  readonly fatal?: boolean;
}

/** Options of {@link checkExporterSetup}. */
export interface SetupCheckOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly store?: CredentialStore;
  readonly suggest?: Suggest;
  /** Also read each profile's balance once, open the history and try the listen address (doctor). */
  readonly online?: boolean;
}

/** The exit code of a report: 2 when the exporter would not start, 1 when a check failed, else 0. */
export function setupExitCode(checks: readonly SetupCheck[]): 0 | 1 | 2 {
  if (checks.some((c) => c.status === 'fail' && c.fatal)) return 2;
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}

function credentialWords(found: FoundCredential & { ok: true }): string {
  const what = tokenKind(found.token) === 'management' ? `management key ${keyPrefixOf(found.token)}…` : 'a session token';
  const from =
    found.place === 'token_file'
      ? `the token file ${found.where} (owner and mode trusted)`
      : found.place === 'env'
        ? `${found.where} (environment)`
        : found.place === 'keychain'
          ? 'the keychain'
          : `the plaintext file ${found.where}`;
  return `${what} from ${from}`;
}

/** Whether `address` can be listened on now (closed at once). */
function tryListen(address: MetricsAddress): Promise<SetupCheck> {
  const where = formatAddress(address);
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve({ name: 'listen', status: 'warn', detail: `${where} is in use (by the running exporter? another one cannot start there)` });
      else resolve({ name: 'listen', status: 'fail', fatal: true, detail: `cannot listen on ${where} (${error.code ?? error.message})` });
    });
    server.listen(address.port, address.host, () => server.close(() => resolve({ name: 'listen', status: 'ok', detail: `${where} can be listened on` })));
  });
}

async function checkProfile(
  profile: WatchedProfile,
  options: Omit<ExporterOptions, 'version'>,
  sources: Parameters<typeof findCredential>[3],
  online: boolean,
  env: NodeJS.ProcessEnv,
): Promise<SetupCheck> {
  const name = `profile ${profile.name}`;
  if (profile.invalid !== undefined)
    return { name, status: 'fail', detail: `${profile.invalid} The exporter would watch it as down (config_invalid) and the other profiles as usual; a reload refuses the file until it is fixed.` };
  if (profile.baseUrl === undefined) return { name, status: 'fail', detail: `names no service: set its baseUrl (keydeck --profile ${profile.name} --base-url URL auth login)` };
  const insecure = insecureHttpProblem(profile.baseUrl, options.allowInsecureHttp);
  if (insecure !== undefined) return { name, status: 'fail', detail: insecure };
  const found = await findCredential(profile.name, profile.baseUrl, profile.baseUrl, sources);
  if (!found.ok) return { name, status: 'fail', detail: found.sentence };
  const words = `${profile.baseUrl}, ${credentialWords(found)}`;
  if (!online) return { name, status: 'ok', detail: words };
  const client = new KeydeckClient({
    baseUrl: profile.baseUrl,
    token: found.token,
    retries: 0,
    timeoutMs: clientTimeoutFromEnv(env).timeoutMs ?? EXPORTER_TIMEOUT_MS,
    ...(profile.topUpMethods !== undefined && { methodNames: profile.topUpMethods }),
    ...(options.allowInsecureHttp && { allowInsecureHttp: true }),
    credential: { label: `the credential of profile "${profile.name}" (${found.place === 'env' ? found.where : found.place})` },
  });
  try {
    const credits = await client.billing.credits();
    return { name, status: 'ok', detail: `${words}: the balance reads ${formatUsd(credits.remaining)}` };
  } catch (error) {
    return { name, status: 'fail', detail: `${words}: the balance cannot be read (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    client.close();
  }
}

/** Runs the checks (see the module comment) for the exporter's `options`. */
export async function checkExporterSetup(options: Omit<ExporterOptions, 'version'>, deps: SetupCheckOptions = {}): Promise<SetupCheck[]> {
  const env = deps.env ?? process.env;
  const online = deps.online === true;
  const checks: SetupCheck[] = [];
  const configPath = configFilePath(env);
  let profiles: WatchedProfile[];
  let unknownFields: readonly string[];
  try {
    ({ profiles, unknownFields } = await loadProfiles(configPath, options.selection, true));
  } catch (error) {
    return [{ name: 'config', status: 'fail', fatal: true, detail: `${(error as Error).message} The exporter would not start.` }];
  }
  const names = profiles.map((p) => p.name);
  checks.push(
    profiles.length === 0
      ? { name: 'config', status: 'warn', detail: `${configPath} has no profile to watch: add one (keydeck --profile NAME auth login)` }
      : { name: 'config', status: 'ok', detail: `${configPath}: ${profiles.length} profile${profiles.length === 1 ? '' : 's'} watched (${names.join(', ')})` },
  );
  for (const field of unknownFields)
    checks.push({
      name: 'config',
      status: 'warn',
      detail: `"${field}" is a field this keydeck does not know: ignored (written by a newer keydeck, or a typo); a reload takes the file up all the same`,
    });
  for (const detail of unwatchedTokenFiles(options.tokenFiles, names, deps.suggest)) checks.push({ name: 'token-file', status: 'fail', fatal: true, detail });
  for (const detail of await strayTokenDirFiles(options.tokenDir, names, deps.suggest)) checks.push({ name: 'token-dir', status: 'warn', detail });
  if (env.KEYDECK_TOKEN) checks.push({ name: 'environment', status: 'warn', detail: 'KEYDECK_TOKEN names no profile and is not used by the exporter' });
  const sources = { tokenFiles: options.tokenFiles, tokenDir: options.tokenDir, env, store: deps.store ?? createCredentialStore({ env }), ambiguousVars: ambiguousTokenVars(names) };
  // One at a time: a keychain asked through a child process, a service asked once each.
  for (const profile of profiles) checks.push(await checkProfile(profile, options, sources, online, env));
  if (online) {
    try {
      BalanceHistoryStore.open({ env }).close();
      checks.push({ name: 'history', status: 'ok', detail: 'the balance history (history.db) opens: restarts restore the last figures' });
    } catch (error) {
      checks.push({ name: 'history', status: 'warn', detail: `the balance history cannot be opened (kept in memory only, nothing restored after a restart): ${(error as Error).message}` });
    }
    checks.push(await tryListen(options.listen));
  }
  return checks;
}
