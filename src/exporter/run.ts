/**
 * `keydeck exporter`: a long-running process with no terminal and without Ink or
 * React loaded, that watches many profiles and serves their figures to Prometheus.
 *
 * - Serves `GET /metrics` (every watched profile's series, labelled `profile` and `origin`, plus
 *   the build info and the process metrics) and `GET /healthz` on `--listen` (default
 *   127.0.0.1:{@link DEFAULT_EXPORTER_PORT}). A scrape answers the last values at once; polls run
 *   on their own schedules (./profile.ts: each profile an account watcher, src/watcher), at most {@link MAX_CONCURRENT_POLLS} at a time.
 * - SIGHUP re-reads the config file: profiles added or removed (with `--all-profiles`), settings
 *   taken up, credentials looked up again. A config edited to nonsense is refused with the reason
 *   in the log, and the last good one kept.
 * - SIGTERM and SIGINT stop it cleanly (polls abandoned, the server closed, the history closed): exit 0.
 * - Logs one line per event on stderr (./log.ts), never a secret; prints nothing on stdout. Every
 *   line is in the chosen `--log-format`, the errors that stop it at start too.
 * - Restores each profile's last reading from the history at start (./profile.ts), so a restart
 *   during an outage keeps serving the last poll time and balance (`keydeck_balance_restored 1`).
 * - `GET /readyz` answers 503 until every watched profile has been polled once.
 * - `--enforce`: the guardrails `keydeck apply` stored act after each poll (./guardrails.ts).
 *
 * Exit codes: 0 stopped by a signal; 2 bad usage, an unreadable or invalid config file at start,
 * a `--token-file` for a profile not watched, or the address cannot be listened on (in use, not
 * this machine's, no permission): one log line.
 */
import pLimit from 'p-limit';
import { BalanceHistoryStore } from '../billing/historyStore.js';
import { PollStates } from '../billing/pollState.js';
import { configFilePath, dataDir } from '../config/paths.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { createCredentialStore, type CredentialStore } from '../credentials/index.js';
import { formatAddress, type MetricsAddress } from '../metrics/address.js';
import { Exposition } from '../metrics/exposition.js';
import { processRegistry } from '../metrics/process.js';
import { ConfigReloadMetrics } from '../metrics/reloads.js';
import { serveMetrics, type MetricsServer } from '../metrics/server.js';
import { isLoopbackHost } from '../api/baseUrl.js';
import { ambiguousTokenVars, type CredentialSources } from './credentials.js';
import { createLogger, type LogFormat, type LogLevel, type Logger } from './log.js';
import { loadProfiles, type LoadedProfiles, type ProfileSelection } from './profiles.js';
import { strayTokenDirFiles, unwatchedTokenFiles, type Suggest } from './sources.js';
import { HISTORY_BUSY_TIMEOUT_MS, ProfileWatcher, type WatchedProfile, type WatcherContext } from './profile.js';

/**
 * The default port: 9464, the port the Prometheus wiki's port allocations list for the
 * OpenTelemetry Prometheus exporter, the usual metrics port of Node.js services (the 9100–9999
 * range is fully allocated). Another one with `--listen`.
 */
export const DEFAULT_EXPORTER_PORT = 9464;
/** Default seconds between a profile's balance polls. */
export const DEFAULT_EXPORTER_INTERVAL_SECONDS = 60;
/** Polls under way at once, across every profile. */
export const MAX_CONCURRENT_POLLS = 16;
/** Longest a call to a service may take, ms (retries included; `KEYDECK_TIMEOUT_MS` sets another); never more than the interval. */
export const EXPORTER_TIMEOUT_MS = 10_000;

/** What `keydeck exporter` runs with (checked flags: ./options.ts). */
export interface ExporterOptions {
  readonly listen: MetricsAddress;
  readonly selection: ProfileSelection;
  readonly intervalSeconds: number;
  /** `--token-file PROFILE=PATH`, by profile. */
  readonly tokenFiles: ReadonlyMap<string, string>;
  /** `--token-dir DIR`: each profile's token in `DIR/<profile>`. */
  readonly tokenDir?: string | undefined;
  readonly logFormat: LogFormat;
  /** `--log-level` (default `info`). */
  readonly logLevel?: LogLevel | undefined;
  readonly allowInsecureHttp: boolean;
  /** `--auto-topup`: act on each profile's auto top-up policy after each balance read. */
  readonly autoTopUp?: boolean | undefined;
  /** `--enforce`: act on each profile's guardrails after each poll (./guardrails.ts); `--on-guardrail CMD` hears them. */
  readonly enforce?: boolean | undefined;
  readonly onGuardrail?: string | undefined;
  /** keydeck's version (build info, User-Agent). */
  readonly version: string;
}

/** Dependencies of {@link runExporter} (tests). */
export interface ExporterDeps {
  readonly env?: NodeJS.ProcessEnv;
  readonly store?: CredentialStore;
  readonly log?: Logger;
  /** Called once listening, with the metrics URL (tests). */
  readonly onListening?: (url: string) => void;
  /** Resolves to stop the exporter (tests); default SIGTERM/SIGINT. */
  readonly stop?: Promise<void>;
  /** "Did you mean" for a token source naming no watched profile (the CLI passes its own rule). */
  readonly suggest?: Suggest;
}

/** The exporter's running state. */
class Exporter {
  readonly watchers = new Map<string, ProfileWatcher>();
  readonly #ctx: WatcherContext;
  readonly #log: Logger;

  constructor(ctx: WatcherContext, log: Logger) {
    this.#ctx = ctx;
    this.#log = log;
  }

  /** Watches exactly `profiles`: new ones started, gone ones stopped, a changed service restarted, the rest updated. */
  async apply(profiles: readonly WatchedProfile[]): Promise<{ added: string[]; removed: string[] }> {
    const added: string[] = [];
    const removed: string[] = [];
    const wanted = new Map(profiles.map((p) => [p.name, p]));
    for (const [name, watcher] of this.watchers) {
      const next = wanted.get(name);
      if (next && next.baseUrl === watcher.baseUrl) continue;
      this.watchers.delete(name);
      await watcher.stop();
      if (!next) removed.push(name);
    }
    for (const profile of profiles) {
      const watcher = this.watchers.get(profile.name);
      if (watcher) {
        watcher.update(profile);
        watcher.forgetCredential();
        continue;
      }
      const created = new ProfileWatcher(profile, this.#ctx);
      this.watchers.set(profile.name, created);
      if (this.#started) this.#late.add(profile.name);
      created.start();
      added.push(profile.name);
      this.#log.info('profile_watched', { profile: profile.name, origin: created.origin });
    }
    for (const name of removed) this.#late.delete(name);
    this.#started = true;
    return { added, removed };
  }

  async stop(): Promise<void> {
    await Promise.all([...this.watchers.values()].map((w) => w.stop()));
    this.watchers.clear();
  }

  health(): string {
    const all = [...this.watchers.values()];
    const up = all.filter((w) => w.metrics.downReason === undefined).length;
    return `ok: ${all.length} profile${all.length === 1 ? '' : 's'} watched, ${up} up or not yet polled`;
  }

  /** Profiles added by a reload (not at start): they never take readiness back. */
  readonly #late = new Set<string>();
  #started = false;

  /**
   * Ready once every profile watched at start has been polled (`GET /readyz`): a reload that adds a
   * profile keeps serving the figures of those already polled (a Kubernetes pod stays in service),
   * and says which are not polled yet.
   */
  ready(): { ready: boolean; text: string } {
    const waiting = [...this.watchers.values()].filter((w) => !w.polled).map((w) => w.name);
    const names = `${waiting.slice(0, 10).join(', ')}${waiting.length > 10 ? ` and ${waiting.length - 10} more` : ''}`;
    if (waiting.length === 0) return { ready: true, text: `ready: every watched profile polled (${this.watchers.size})` };
    if (waiting.every((name) => this.#late.has(name)))
      return { ready: true, text: `ready: ${this.watchers.size - waiting.length} of ${this.watchers.size} profiles polled; added by a reload, not yet: ${names}` };
    return { ready: false, text: `not ready: not yet polled: ${names}` };
  }
}

/** Why listening failed, in words. */
function listenProblem(error: unknown, address: MetricsAddress): string {
  const code = (error as NodeJS.ErrnoException).code;
  const where = formatAddress(address);
  if (code === 'EADDRINUSE') return `cannot listen on ${where}: the port is in use (another exporter?); choose another with --listen HOST:PORT`;
  if (code === 'EACCES') return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another with --listen HOST:PORT`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot listen on ${where}: the address is not one of this machine's`;
  return `cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * Runs the exporter until stopped (see the module comment). Resolves with the exit code.
 */
export async function runExporter(options: ExporterOptions, deps: ExporterDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const log = deps.log ?? createLogger(options.logFormat, undefined, undefined, options.logLevel);
  // Listened for first: a SIGTERM during start-up stops the exporter as soon as it is up.
  const stopped =
    deps.stop ??
    new Promise<void>((resolve) => {
      process.once('SIGTERM', () => resolve());
      process.once('SIGINT', () => resolve());
    });
  const configPath = configFilePath(env);
  let profiles: WatchedProfile[];
  let loaded: LoadedProfiles;
  try {
    loaded = await loadProfiles(configPath, options.selection, true);
    profiles = loaded.profiles;
  } catch (error) {
    log.error('config_invalid', { msg: `${(error as Error).message} No profile can be watched: the exporter does not start.` });
    return 2;
  }
  // At start there is no last good config: a profile refused is watched as down, the others as usual.
  for (const [name, msg] of loaded.invalid)
    log.error('config_invalid_profile', {
      profile: name,
      msg: `${msg} Profile "${name}" is served as keydeck_up{reason="config_invalid"} 0 and not polled until the file is fixed and the exporter reloaded; the other profiles are watched.`,
    });
  tellUnknown(log, configPath, loaded.unknownFields);
  const mistyped = unwatchedTokenFiles(
    options.tokenFiles,
    profiles.map((p) => p.name),
    deps.suggest,
  );
  if (mistyped.length > 0) {
    for (const msg of mistyped) log.error('token_file_unwatched', { msg });
    return 2;
  }
  if (env.KEYDECK_TOKEN) log.warn('token_ignored', { msg: 'KEYDECK_TOKEN names no profile and is not used by the exporter: give each profile its own KEYDECK_TOKEN_<PROFILE> or --token-file' });
  const tellStray = async (watched: readonly WatchedProfile[]) => {
    for (const msg of await strayTokenDirFiles(
      options.tokenDir,
      watched.map((p) => p.name),
      deps.suggest,
    ))
      log.warn('token_dir_unused', { msg });
  };
  await tellStray(profiles);
  let history: BalanceHistoryStore | undefined;
  try {
    history = BalanceHistoryStore.open({ env, busyTimeoutMs: HISTORY_BUSY_TIMEOUT_MS });
  } catch (error) {
    log.warn('history_unavailable', { msg: `the balance history is kept in memory only: ${(error as Error).message}` });
  }
  // Acting on guardrails needs the usage record (reads and their per-key history): without it, none.
  if (options.enforce && !history) log.error('guardrails_off', { msg: 'the guardrails are not enforced: they need the usage history (history.db), which cannot be opened' });
  let pollStates: PollStates | undefined;
  try {
    pollStates = history && new PollStates(history.database);
  } catch (error) {
    log.warn('history_unavailable', { msg: `the poll states are kept in memory only (alerts on them restart with the exporter): ${(error as Error).message}` });
  }
  // Variables that would serve two watched profiles: recomputed at each reload.
  const ambiguous = new Set<string>();
  const findAmbiguous = (watched: readonly WatchedProfile[]) => {
    ambiguous.clear();
    for (const v of ambiguousTokenVars(watched.map((p) => p.name))) ambiguous.add(v);
  };
  findAmbiguous(profiles);
  const credentials: CredentialSources = { tokenFiles: options.tokenFiles, tokenDir: options.tokenDir, env, store: deps.store ?? createCredentialStore({ env }), ambiguousVars: ambiguous };
  const intervalMs = options.intervalSeconds * 1000;
  const exporter = new Exporter(
    {
      intervalMs,
      limit: pLimit(MAX_CONCURRENT_POLLS),
      log,
      credentials,
      history,
      pollStates,
      timeoutMs: Math.min(clientTimeoutFromEnv(env).timeoutMs ?? EXPORTER_TIMEOUT_MS, intervalMs),
      allowInsecureHttp: options.allowInsecureHttp,
      userAgent: `keydeck-exporter/${options.version}`,
      ...(options.autoTopUp && { autoTopUp: await loadAutoTopUp(env, configPath, log) }),
      ...(options.enforce && history && { guardrails: await loadGuardrails(env, configPath, history, options.onGuardrail, log) }),
    },
    log,
  );
  const exposition = new Exposition();
  const build = processRegistry({ version: options.version, defaults: true });
  const reloads = new ConfigReloadMetrics(build);
  reloads.loaded();
  reloads.fields(loaded.unknownFields.length, loaded.invalid.size);
  let server: MetricsServer;
  try {
    server = await serveMetrics(options.listen, {
      metrics: () =>
        exposition.text(
          build,
          [...exporter.watchers.values()].map((w) => w.metrics),
        ),
      health: () => exporter.health(),
      ready: () => exporter.ready(),
    });
  } catch (error) {
    log.error('listen_failed', { msg: listenProblem(error, options.listen) });
    history?.close();
    return 2;
  }
  log.info('listening', { url: server.url, profiles: profiles.length, interval_seconds: options.intervalSeconds, version: options.version });
  if (!isLoopbackHost(options.listen.host))
    log.warn('listening_beyond_loopback', { msg: `anyone who reaches ${formatAddress(server.address)} sees every watched account's balance: restrict it with a firewall` });
  if (profiles.length === 0) log.warn('no_profiles', { msg: `the config file ${configPath} has no profile to watch: add one (keydeck --profile NAME auth login) and send SIGHUP` });
  await exporter.apply(profiles);
  deps.onListening?.(server.url);

  let reloading = Promise.resolve();
  const reload = () => {
    reloading = reloading.then(async () => {
      try {
        const read = await loadProfiles(configPath, options.selection);
        const next = read.profiles;
        tellUnknown(log, configPath, read.unknownFields);
        reloads.fields(read.unknownFields.length, 0);
        findAmbiguous(next);
        const { added, removed } = await exporter.apply(next);
        reloads.reloaded(true);
        log.info('config_reloaded', { profiles: next.length, added: added.join(',') || undefined, removed: removed.join(',') || undefined });
        // Not fatal once running: the profile may have been taken out of the config on purpose.
        for (const msg of unwatchedTokenFiles(
          options.tokenFiles,
          next.map((p) => p.name),
          deps.suggest,
        ))
          log.warn('token_file_unwatched', { msg });
        await tellStray(next);
      } catch (error) {
        reloads.reloaded(false);
        log.error('config_rejected', { msg: `${(error as Error).message} The last good config stays in use.` });
      }
    });
  };
  process.on('SIGHUP', reload);
  try {
    await stopped;
  } finally {
    process.off('SIGHUP', reload);
    await reloading;
    await exporter.stop();
    await server.close();
    history?.close();
    log.info('stopped', {});
  }
  return 0;
}

/** Says each field of the config file this keydeck does not know, ignored (by name, never its value). */
function tellUnknown(log: Logger, configPath: string, fields: readonly string[]): void {
  for (const field of fields)
    log.warn('config_unknown_field', { field, msg: `the config file ${configPath} has a field this keydeck does not know, "${field}": ignored (written by a newer keydeck, or a typo)` });
}

/** `--auto-topup`'s faces, its modules loaded only then. */
async function loadAutoTopUp(env: NodeJS.ProcessEnv, configPath: string, log: Logger): Promise<import('./autoTopUp.js').AutoTopUpFaces> {
  const [{ TopUpJournal }, { autoTopUpFaces }] = await Promise.all([import('../billing/journal.js'), import('./autoTopUp.js')]);
  log.info('autotopup_on', { msg: 'auto top-up acts on each watched profile with a policy (keydeck autotopup status)' });
  return autoTopUpFaces({ journal: new TopUpJournal({ env }), dataDir: dataDir(env), configPath, env }, log);
}

/** `--enforce`'s faces, its modules loaded only then. */
async function loadGuardrails(
  env: NodeJS.ProcessEnv,
  configPath: string,
  history: BalanceHistoryStore,
  onGuardrail: string | undefined,
  log: Logger,
): Promise<import('./guardrails.js').GuardrailFaces> {
  const { guardrailFaces } = await import('./guardrails.js');
  log.info('guardrails_on', { msg: 'the guardrails keydeck apply stored act on each watched profile after each poll (docs/guardrails.md)' });
  return guardrailFaces({ dataDir: dataDir(env), configPath, history, env, ...(onGuardrail !== undefined && { onGuardrail }) }, log);
}
