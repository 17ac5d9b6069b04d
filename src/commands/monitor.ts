/**
 * `keydeck monitor`: the live balance figures (the credit balance record remaining, total top-ups, spent,
 * credit keys, sparkline, burn rate, run-out projection, connection state) in a few lines
 * without the full screen, for a tmux pane or a corner of the screen; `q` or ctrl-c leaves.
 *
 * This module resolves what the monitor needs (profile, credential, client, `--interval`,
 * `--alert-below`) and starts the profile's account watcher (src/watcher/accountWatcher.ts: the
 * one poll loop the TUI and the exporter use too); the live view itself is an Ink component of the
 * TUI layer, handed in by src/cli.ts as `render` (commands never import the TUI).
 *
 * A pool key's reserved block about to end is announced once through the notifier:
 * the watcher reads the keys and the billing status every {@link BLOCK_WATCH_MS} for that
 * (src/billing/pledges.ts `dueBlockEvents`); a failed read is skipped (the balance line says what fails).
 *
 * Exit codes: 0 after `q`; 2 bad usage (a bad flag, no terminal, no base URL); 1 no key.
 */
import { parseWatchFlags, type MonitorSettings } from '../billing/settings.js';
import { tokenKind } from '../credentials/token.js';
import { keyPrefixOf } from '../api/errors.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { createTerminalNotifier, type NotifyEvent } from '../terminal/notify.js';
import { isLoopbackHost } from '../api/baseUrl.js';
import { WEEK_WINDOW_MS } from '../billing/history.js';
import { parseMetricsAddress } from '../metrics/address.js';
import type { MetricsServer } from '../metrics/server.js';
import { KeyHistory } from '../billing/keyHistory.js';
import type { RunawaySettings } from '../billing/runaway.js';
import { credentialIdOf, UsageBudget } from '../billing/usageBudget.js';
import { UsageTracker } from '../billing/usageTracker.js';
import { blocksOfKey, dueBlockEvents } from '../billing/pledges.js';
import { summarizeBillingStatus } from '../api/reader.js';
import { hostOf } from '../api/baseUrl.js';
import { dataDir } from '../config/paths.js';
import type { AutoTopUpFeed, AutoTopUpRunner } from '../operations/index.js';
import { HistoryRecorder } from '../billing/historyRecorder.js';
import { AccountWatcher } from '../watcher/accountWatcher.js';
import { pollIntervalMs } from '../watcher/schedule.js';
import { ExitCode, fail, openSession, warn, type ExitCodeValue, type GlobalOptions, type OpenSessionOptions } from './output.js';
import { ensureCanChange } from './changeGuard.js';
import { billingWords } from './wordingBilling.js';
import type { NotifySteps } from '../terminal/notify.js';

/** The next steps the monitor's notifications name: the commands that take them. */
const NOTIFY_STEPS: NotifySteps = { signIn: 'keydeck auth login', autoTopUpStatus: 'keydeck autotopup status', autoTopUpResume: 'keydeck autotopup resume', billingStatus: 'keydeck billing status' };

/** How often `keydeck monitor` reads the keys and the billing status for pool keys' block ends, ms (5 min). */
export const BLOCK_WATCH_MS = 5 * 60_000;

/** Flags of `keydeck monitor` (commander's strings). */
export interface MonitorFlags {
  /** `--interval SECONDS` (≥ 2; default the profile's pollIntervalSeconds, 15). */
  readonly interval?: string;
  /** `--alert-below USD` (default the profile's alertBelowUsd; none: no alert). */
  readonly alertBelow?: string;
  /** `--on-low CMD`: run once per crossing (src/terminal/notify.ts). */
  readonly onLow?: string;
  /** `--desktop-notifications`. */
  readonly desktopNotifications?: boolean;
  /** `--on-anomaly CMD`: run once per runaway key or fast-falling balance (src/terminal/notify.ts). */
  readonly onAnomaly?: string;
  /** `--metrics HOST:PORT`: serve the figures for Prometheus (src/metrics/). */
  readonly metrics?: string;
  /** `--auto-topup`: act on the profile's auto top-up policy after each balance read. */
  readonly autoTopup?: boolean;
  /** `--on-auto-topup CMD`: run after each charge auto top-up makes (src/terminal/notify.ts). */
  readonly onAutoTopup?: string;
}

/** The live view: renders until the user leaves, resolves with the exit code. */
export type MonitorRenderer = (input: {
  readonly settings: MonitorSettings;
  /**
   * The account watcher of the profile (src/watcher/accountWatcher.ts), started: the balance every
   * `--interval`, its history (on disk when the history database can be used), usage within the
   * shared read budget, the key list and billing status every few minutes (pool keys' block ends),
   * auto top-up with `--auto-topup`. Stopped by the command once the view resolves.
   */
  readonly watcher: AccountWatcher;
  /** Notifications: the low-balance crossing, top-ups credited, the key rejected. */
  readonly notify?: (event: NotifyEvent) => void;
  /** With `--metrics`: where the figures are served. */
  readonly metricsUrl?: string;
  /** `--auto-topup`: the line it shows, fed with what each run after a balance read did. */
  readonly autoTopUp?: Pick<AutoTopUpFeed, 'view' | 'subscribe'>;
}) => Promise<number>;

/** Dependencies of {@link monitorCommand}. */
export interface MonitorDeps {
  readonly render: MonitorRenderer;
  /** Default: stdin and stdout are terminals. */
  readonly isTerminal?: boolean;
  /** Passed to openSession (env, store). */
  readonly session?: OpenSessionOptions;
  /** Opens the history database (default BalanceHistoryStore.open with the session's env). */
  readonly openHistory?: () => BalanceHistoryStore;
  /** keydeck's version, for `keydeck_build_info` (default `unknown`). */
  readonly version?: string;
  /** Where notifications go (default: the notifier the flags describe: terminal, desktop, commands). */
  readonly notify?: (event: NotifyEvent) => void;
}

/**
 * Runs `keydeck monitor`. Flags are checked before anything is read or sent.
 * @throws CommandFailure exit 2 for a bad `--interval`/`--alert-below` or no terminal; as
 *   openSession for a missing base URL or key.
 */
export async function monitorCommand(globals: GlobalOptions, flags: MonitorFlags, deps: MonitorDeps): Promise<ExitCodeValue | number> {
  const parsed = parseWatchFlags(flags);
  if (!parsed.ok) fail(ExitCode.usage, parsed.reason, 'usage');
  // --auto-topup charges the card by itself: refused on a read-only profile (exit 3) before anything is drawn.
  if (flags.autoTopup) await ensureCanChange(globals, 'act on auto top-up (--auto-topup)', deps.session?.env);
  const metricsAt = flags.metrics === undefined ? undefined : parseMetricsAddress(flags.metrics);
  if (flags.metrics !== undefined && !metricsAt) fail(ExitCode.usage, billingWords.usageMetricsMustBe);
  const terminal = deps.isTerminal ?? Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (!terminal) {
    fail(ExitCode.usage, billingWords.needsTerminalMonitorDrawsLive);
  }
  if ((deps.session?.env ?? process.env).TERM === 'dumb') {
    fail(ExitCode.usage, billingWords.needsTerminalMonitorRedrawsIts);
  }
  // What the reader hid (key values in a list) is said after the live view, not across it.
  const notices: string[] = [];
  const { profile, client, credential } = await openSession(globals, {
    ...deps.session,
    spinner: false,
    // got, as the TUI and the exporter: the client of a process that polls for hours.
    client: { ...deps.session?.client, transport: 'got', onNotice: (notice) => notices.push(notice.message) },
  });
  const isKey = tokenKind(credential.token) === 'management';
  const alertBelowUsd = parsed.value.alertBelowUsd ?? profile.alertBelowUsd;
  const settings: MonitorSettings = {
    baseUrl: profile.baseUrl,
    profileName: profile.name,
    intervalSeconds: parsed.value.intervalSeconds ?? profile.pollIntervalSeconds,
    ...(alertBelowUsd !== undefined && { alertBelowUsd }),
    credentialLabel: `${isKey ? `key ${keyPrefixOf(credential.token)}` : 'session token'} (${credential.source})`,
  };
  let store: BalanceHistoryStore | undefined;
  const closers: (() => Promise<void>)[] = [];
  try {
    store = deps.openHistory ? deps.openHistory() : BalanceHistoryStore.open({ env: deps.session?.env ?? process.env });
  } catch (error) {
    warn(`the balance history is kept in memory only: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const series = store?.series(profile.name, originOf(profile.baseUrl));
    const origin = originOf(profile.baseUrl);
    const runaway: RunawaySettings = { factor: profile.runawayFactor, floorUsdPerHour: profile.runawayFloorUsdPerHour };
    // Where the money goes: reads through the one budget shared with every keydeck.
    const usage =
      store && series
        ? new UsageTracker({
            client,
            budget: new UsageBudget(store.database),
            credential: credentialIdOf(origin, credential.token),
            origin,
            keyHistory: new KeyHistory(store.database, series.id),
            settings: runaway,
          })
        : undefined;
    const problems: string[] = [];
    const notifier = createTerminalNotifier(flags, { profile: profile.name, origin: originOf(profile.baseUrl), onProblem: (sentence) => problems.push(sentence), steps: NOTIFY_STEPS });
    const notify = deps.notify ?? ((event: NotifyEvent) => notifier.notify(event));
    let metricsUrl: string | undefined;
    let keysEveryMs = BLOCK_WATCH_MS;
    let metrics: import('../metrics/account.js').AccountMetrics | undefined;
    if (metricsAt) {
      // The Prometheus side (prom-client, an HTTP server) loads only with --metrics.
      const [{ AccountMetrics, KEYS_EVERY_MS }, { Exposition }, { processRegistry }, { serveMetrics }, { registerUsageMetrics }] = await Promise.all([
        import('../metrics/account.js'),
        import('../metrics/exposition.js'),
        import('../metrics/process.js'),
        import('../metrics/server.js'),
        import('../metrics/usage.js'),
      ]);
      let seed;
      try {
        seed = series?.load(Date.now() - WEEK_WINDOW_MS);
      } catch {
        // The monitor reports history problems; the rates then start from the next reads.
      }
      const served = new AccountMetrics({ profile: profile.name, origin: originOf(profile.baseUrl), alertBelowUsd, ...(seed && { seed }) });
      const exposition = new Exposition();
      const build = processRegistry({ version: deps.version ?? 'unknown' });
      let server: MetricsServer;
      try {
        server = await serveMetrics(metricsAt, { metrics: () => exposition.text(build, [served]) });
      } catch (error) {
        fail(ExitCode.refused, billingWords.metricsUnavailable, { metrics: flags.metrics, error });
      }
      closers.push(() => server.close());
      metricsUrl = server.url;
      if (usage) registerUsageMetrics(served, () => usage);
      process.stderr.write(`keydeck: metrics at ${server.url}\n`);
      if (!isLoopbackHost(metricsAt.host)) warn(`the metrics are served beyond this machine (${metricsAt.host}): anyone who reaches it sees the balance`);
      keysEveryMs = Math.min(KEYS_EVERY_MS, BLOCK_WATCH_MS);
      metrics = served;
    }
    // --auto-topup: the watcher runs the policy after each balance read; its line here.
    let autoTopUp: AutoTopUpFeed | undefined;
    let runner: AutoTopUpRunner | undefined;
    if (flags.autoTopup) {
      const [{ AutoTopUpRunner: Runner, AutoTopUpFeed: Feed }, { TopUpJournal }, { readAutoTopUpPolicy, pauseAutoTopUpPolicy }, { cardMethodNames, settleBounds }] = await Promise.all([
        import('../operations/index.js'),
        import('../billing/journal.js'),
        import('../config/config.js'),
        import('../config/autoTopUp.js'),
      ]);
      const env = deps.session?.env ?? process.env;
      runner = new Runner({
        journal: new TopUpJournal({ env }),
        scope: { host: hostOf(profile.baseUrl), profile: profile.name },
        dataDir: dataDir(env),
        readPolicy: () => readAutoTopUpPolicy(profile.configPath, profile.name),
        pausePolicy: (pause) => pauseAutoTopUpPolicy(profile.configPath, profile.name, pause),
        cardMethodNames: cardMethodNames(profile.topUpMethods),
        settle: settleBounds(env),
      });
      autoTopUp = new Feed((notice) => notify({ kind: 'auto_top_up', ...notice }));
    }
    // The one poll loop: the balance every --interval, the key list and billing status every few
    // minutes (pool keys' block ends; the key list every minute with --metrics).
    const watcher = new AccountWatcher({
      connect: () => ({ client, ...(usage && { usage }) }),
      intervalMs: pollIntervalMs(settings.intervalSeconds),
      history: (onError) => new HistoryRecorder({ series, now: Date.now(), onError }),
      alertBelowUsd,
      runaway,
      keysEveryMs,
      statusEveryMs: BLOCK_WATCH_MS,
      ...(runner && { autoTopUp: { runner } }),
    });
    // Pool keys' block ends: announced once each, within 15 min of the end.
    const blockSent = new Set<string>();
    watcher.on((event) => {
      if (event.kind === 'balance') metrics?.reading(event.credits);
      else if (event.kind === 'failure') metrics?.failure(event.error);
      else if (event.kind === 'keys') metrics?.keys(event.keys);
      else if (event.kind === 'keys_failed') metrics?.failure(event.error, false);
      else if (event.kind === 'auto_top_up') autoTopUp?.took(event.step);
      else if (event.kind === 'auto_top_up_failed') autoTopUp?.failed(event.error);
      else if (event.kind === 'status') {
        const keys = watcher.snapshot.keys.data;
        const summary = summarizeBillingStatus(event.status);
        if (keys) for (const due of dueBlockEvents(keys, (k) => blocksOfKey(k, summary), client.serviceNow(), blockSent)) notify(due);
      }
    });
    watcher.start();
    closers.push(() => watcher.stop());
    const code = await deps.render({ settings, watcher, notify, ...(metricsUrl && { metricsUrl }), ...(autoTopUp && { autoTopUp }) });
    for (const sentence of [...notices, ...problems]) warn(sentence);
    return code;
  } finally {
    for (const close of closers.reverse()) await close();
    store?.close();
    client.close();
  }
}
