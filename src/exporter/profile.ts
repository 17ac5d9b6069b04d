/**
 * One watched profile of the exporter: an account watcher (src/watcher/accountWatcher.ts, the
 * poll loop every face shares) and what the exporter makes of its events: the profile's metrics
 * (src/metrics/account.ts), its log lines and its poll state kept in history.db. The watcher reads
 * the balance every interval (jittered by ±10 %, backing off while the service fails, never before
 * a 429's `Retry-After`), the key list every {@link KEYS_EVERY_MS}, and usage within the shared
 * budget, each poll through the exporter's shared concurrency limit, so one slow service holds at
 * most one slot and never delays another profile's figures nor a scrape (a scrape reads the last
 * values). Its balance history is history.db's, shared with a TUI or monitor open on the same
 * profile: every reading written through, WAL, a short busy timeout.
 *
 * The credential is looked up (./credentials.ts) before the first poll and again after the
 * service refused it (someone may have logged in again), never on every poll: the keychain is
 * asked through a child process.
 */
import { KeydeckClient } from '../api/client.js';
import { insecureHttpProblem } from '../api/baseUrl.js';
import { KeydeckApiError } from '../api/errors.js';
import { downsample, WEEK_WINDOW_MS, type BalanceSample } from '../billing/history.js';
import { HistoryRecorder } from '../billing/historyRecorder.js';
import type { BalanceHistoryStore } from '../billing/historyStore.js';
import { samePollState, type PollState, type PollStates } from '../billing/pollState.js';
import { originOf } from '../credentials/origin.js';
import { KeyHistory } from '../billing/keyHistory.js';
import type { RunawaySettings } from '../billing/runaway.js';
import { credentialIdOf, UsageBudget } from '../billing/usageBudget.js';
import { UsageTracker } from '../billing/usageTracker.js';
import { AccountMetrics, KEYS_EVERY_MS, type DownReason } from '../metrics/account.js';
import { registerUsageMetrics } from '../metrics/usage.js';
import { findCredential, type CredentialSources } from './credentials.js';
import type { AutoTopUpPolicy } from '../config/autoTopUp.js';
import type { AutoTopUpDriver, AutoTopUpFaces } from './autoTopUp.js';
import { AccountWatcher } from '../watcher/accountWatcher.js';
import type { AccountEvent, Unavailable, WatchConnection } from '../watcher/types.js';
import type { GuardrailFaces } from './guardrails.js';
import type { Logger } from './log.js';

/** A profile as the exporter watches it (from the config file). */
export interface WatchedProfile {
  readonly name: string;
  /** The service's base URL (normalised); undefined when the profile names none. */
  readonly baseUrl?: string | undefined;
  /** The profile's low-balance threshold, USD. */
  readonly alertBelowUsd?: number | undefined;
  /** Runaway judgement of the per-key spend (config runawayFactor, runawayFloorUsdPerHour; default 5 and $1/h). */
  readonly runaway?: RunawaySettings | undefined;
  /** The profile's top-up method names (the client's; auto top-up's card-on-file name). */
  readonly topUpMethods?: Readonly<Partial<Record<'card_checkout' | 'card_direct' | 'usdc', string>>> | undefined;
  /** The profile's auto top-up policy, acted on with `--auto-topup` only. */
  readonly autoTopUp?: AutoTopUpPolicy | undefined;
  /** The profile is marked `readOnly` (src/config/profileMarks.ts): auto top-up never charges it. */
  readonly readOnly?: boolean | undefined;
  /** Its entry in the config file is refused (at start): why, in one sentence; it is watched as down, never polled. */
  readonly invalid?: string | undefined;
}

/** The in-memory history of a watched profile: seven days at one reading a minute at most, thinned as on disk (~300 KB). */
const HISTORY = { capacity: 8192, minSpacingMs: 60_000 } as const;
/** Longest wait of a history write for another process's lock, ms (a TUI's writes are single statements). */
export const HISTORY_BUSY_TIMEOUT_MS = 1000;

/** What every watcher shares. */
export interface WatcherContext {
  /** Seconds between balance polls. */
  readonly intervalMs: number;
  /** Runs a poll within the exporter's concurrency limit. */
  readonly limit: <T>(task: () => Promise<T>) => Promise<T>;
  readonly log: Logger;
  readonly credentials: CredentialSources;
  /** The history database (absent: memory only). */
  readonly history?: BalanceHistoryStore | undefined;
  /** Each profile's poll state in the history database (absent: memory only): restored at start, kept on each change. */
  readonly pollStates?: PollStates | undefined;
  /** Deadline of each call, ms. */
  readonly timeoutMs: number;
  /** `--allow-insecure-http` (or its variable). */
  readonly allowInsecureHttp: boolean;
  /** keydeck's User-Agent. */
  readonly userAgent: string;
  /** Random in [0, 1) (tests). Default Math.random. */
  readonly random?: () => number;
  /** `--auto-topup`: makes each profile's auto top-up (loaded only then); absent, none. */
  readonly autoTopUp?: AutoTopUpFaces | undefined;
  /** `--enforce`: each profile's guardrails after each poll (./guardrails.ts); absent, none. */
  readonly guardrails?: GuardrailFaces | undefined;
}

/** The origin label of `baseUrl` ('' without one, or when it is not a URL). */
function originLabel(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return '';
  try {
    return originOf(baseUrl);
  } catch {
    // not a URL: no origin label
    return '';
  }
}

/** One watched profile (see the module comment). */
export class ProfileWatcher {
  readonly metrics: AccountMetrics;
  readonly origin: string;
  #profile: WatchedProfile;
  readonly #ctx: WatcherContext;
  readonly #watcher: AccountWatcher;
  #credentialWhere: string | undefined;
  /** The profile's history series (absent: no database). */
  readonly #series: import('../billing/historyStore.js').HistorySeries | undefined;
  #usageProblem: string | undefined;
  #polled = false;
  #invalid: string | undefined;
  /** The poll state as last kept (a write only when it changes). */
  #keptState: PollState | undefined;
  readonly #autoTopUp: AutoTopUpDriver | undefined;
  readonly #guardrails: ReturnType<GuardrailFaces['driver']> | undefined;
  /** The client of the connection open now (the guardrails' pass acts through it). */
  #client: KeydeckClient | undefined;
  /** The guardrails' pass under way: one at a time, awaited by {@link stop}. */
  #guardrailPass: Promise<void> | undefined;

  constructor(profile: WatchedProfile, ctx: WatcherContext) {
    this.#profile = profile;
    this.#ctx = ctx;
    this.origin = originLabel(profile.baseUrl);
    let series;
    try {
      series = this.origin !== '' ? ctx.history?.series(profile.name, this.origin) : undefined;
    } catch (error) {
      ctx.log.warn('history_unavailable', { profile: profile.name, origin: this.origin, msg: (error as Error).message });
    }
    const recorder = new HistoryRecorder({
      series,
      seed: false,
      history: HISTORY,
      onError: (msg) => ctx.log.warn('history_error', { profile: profile.name, origin: this.origin, msg }),
    });
    let last: BalanceSample | undefined;
    if (series) {
      // Seven days from disk (a TUI's 15 s readings as well as this exporter's), thinned as on disk and to a minute apart.
      try {
        const now = Date.now();
        const week = series.load(now - WEEK_WINDOW_MS);
        for (const s of downsample(week, now)) recorder.history.add(s.t, s.remaining, s.totalTopUp);
        // The last reading, however old (an outage of more than a week still says since when).
        last = week.at(-1) ?? series.load(0).at(-1);
      } catch (error) {
        ctx.log.warn('history_error', { profile: profile.name, origin: this.origin, msg: `the balance history could not be read (${(error as Error).message})` });
      }
    }
    this.#series = series;
    this.metrics = new AccountMetrics({ profile: profile.name, origin: this.origin, history: recorder.history, alertBelowUsd: profile.alertBelowUsd });
    this.#autoTopUp = ctx.autoTopUp?.driver(this.metrics);
    this.#guardrails = ctx.guardrails?.driver(this.metrics, series);
    if (last) {
      this.metrics.restore(last);
      ctx.log.info('figures_restored', { profile: profile.name, origin: this.origin, last_poll: new Date(last.t).toISOString(), age_seconds: Math.max(0, Math.round((Date.now() - last.t) / 1000)) });
    }
    this.#invalid = profile.invalid;
    this.#restoreState();
    // Refused in the config file: down from the first scrape, never polled.
    if (this.#invalid !== undefined) {
      this.#down('config_invalid', { msg: this.#invalid });
      this.#keepState();
    }
    const random = ctx.random ?? Math.random;
    const driver = this.#autoTopUp;
    this.#watcher = new AccountWatcher({
      connect: () => this.#connect(),
      intervalMs: ctx.intervalMs,
      // The first poll within the first interval (at most 5 s), spread by jitter.
      firstDelayMs: random() * Math.min(ctx.intervalMs, 5000),
      random,
      history: recorder,
      keysEveryMs: KEYS_EVERY_MS,
      limit: ctx.limit,
      ...(driver && { autoTopUp: { runner: { afterReading: (client, credits) => driver.runnerOf(this.#profile).afterReading(client, credits) } } }),
    });
    this.#watcher.on((event) => this.#take(event));
    registerUsageMetrics(
      this.metrics,
      () => this.#watcher.usageTracker,
      () => this.#watcher.snapshot.keys.data,
    );
  }

  get name(): string {
    return this.#profile.name;
  }

  get baseUrl(): string | undefined {
    return this.#profile.baseUrl;
  }

  /** The poll state kept for this profile (or a new one: first attempt now), served from the first scrape. */
  #restoreState(): void {
    let kept: PollState | undefined;
    try {
      kept = this.#series ? this.#ctx.pollStates?.get(this.#series.id) : undefined;
    } catch (error) {
      this.#ctx.log.warn('history_error', { profile: this.name, origin: this.origin, msg: `the poll state could not be read (${(error as Error).message})` });
    }
    this.metrics.restoreState(kept ?? { firstAttempt: Date.now(), state: 'unknown' });
    if (kept?.state === 'down')
      this.#ctx.log.info('state_restored', { profile: this.name, origin: this.origin, reason: kept.downReason, down_since: new Date(kept.downSince ?? kept.firstAttempt).toISOString() });
    this.#keptState = kept;
    this.#keepState();
  }

  /** Writes the poll state when it changed (a failed write is said, and tried again at the next change). */
  #keepState(): void {
    const now = this.metrics.pollState();
    if (!now || !this.#series || !this.#ctx.pollStates || samePollState(this.#keptState, now)) return;
    try {
      this.#ctx.pollStates.set(this.#series.id, now);
      this.#keptState = now;
    } catch (error) {
      this.#ctx.log.warn('history_error', { profile: this.name, origin: this.origin, msg: `the poll state could not be kept (${(error as Error).message})` });
    }
  }

  /** Starts polling: the first poll within the first interval (at most 5 s), spread by jitter. */
  start(): void {
    this.#watcher.start();
  }

  /** Takes up changed settings of the same profile and service (the threshold). */
  update(profile: WatchedProfile): void {
    this.#profile = profile;
    this.#invalid = profile.invalid;
    this.metrics.setAlertBelow(profile.alertBelowUsd);
  }

  /** Looks the credential up again before the next poll (SIGHUP: a token file or login may have changed). */
  forgetCredential(): void {
    this.#watcher.reconnect();
  }

  /** Stops polling, abandons a poll under way (a charge of auto top-up under way ends first), closes the client. */
  async stop(): Promise<void> {
    await this.#watcher.stop();
    await this.#guardrailPass;
  }

  /**
   * With `--enforce`, the guardrails' pass after each poll (./guardrails.ts: it acts only on what
   * the last usage read and the key list tell, and never throws): one at a time, a poll that ends
   * while one is under way adds none.
   */
  #enforce(): void {
    const client = this.#client;
    if (!this.#guardrails || !client || this.#guardrailPass) return;
    this.#guardrailPass = this.#guardrails.afterUsage(this.#profile, client, this.#watcher.usageTracker, this.#watcher.snapshot.keys.data).finally(() => {
      this.#guardrailPass = undefined;
    });
  }

  /** True once a poll has ended (read, failed, or found no service or credential): `/readyz`. */
  get polled(): boolean {
    return this.#polled;
  }

  /** Down for a reason found before any call (no URL, no credential): told once per change. */
  #down(reason: DownReason, fields: Record<string, string | undefined>): void {
    const was = this.metrics.downReason;
    this.metrics.down(reason);
    if (was !== reason) this.#ctx.log.warn('profile_down', { profile: this.name, origin: this.origin, reason, ...fields });
  }

  /** The client of the profile's credential, and its usage tracker; or why there is none now. */
  async #connect(): Promise<WatchConnection | Unavailable> {
    if (this.#invalid !== undefined) return { unavailable: 'config_invalid', detail: this.#invalid };
    const baseUrl = this.#profile.baseUrl;
    if (baseUrl === undefined) return { unavailable: 'no_base_url', detail: `profile "${this.name}" names no service: set its baseUrl (keydeck --profile ${this.name} --base-url URL auth login)` };
    const insecure = insecureHttpProblem(baseUrl, this.#ctx.allowInsecureHttp);
    if (insecure !== undefined) return { unavailable: 'insecure_http', detail: insecure };
    const found = await findCredential(this.name, baseUrl, baseUrl, this.#ctx.credentials);
    if (!found.ok) return { unavailable: 'credential_missing', detail: found.sentence };
    this.#credentialWhere = found.place;
    const client = new KeydeckClient({
      baseUrl,
      token: found.token,
      timeoutMs: this.#ctx.timeoutMs,
      retries: 1,
      userAgent: this.#ctx.userAgent,
      ...(this.#profile.topUpMethods !== undefined && { methodNames: this.#profile.topUpMethods }),
      ...(this.#ctx.allowInsecureHttp && { allowInsecureHttp: true }),
      credential: { label: `the credential of profile "${this.name}" (${found.place === 'env' ? found.where : found.place})` },
    });
    const db = this.#ctx.history;
    // The usage read budget is per credential: the one record in history.db, shared with every keydeck process of this user.
    const usage =
      db && this.#series
        ? new UsageTracker({
            client,
            budget: new UsageBudget(db.database),
            credential: credentialIdOf(this.origin, found.token),
            origin: this.origin,
            keyHistory: new KeyHistory(db.database, this.#series.id),
            ...(this.#profile.runaway && { settings: this.#profile.runaway }),
          })
        : undefined;
    this.#client = client;
    return {
      client,
      ...(usage && { usage }),
      close: () => {
        if (this.#client === client) this.#client = undefined;
        client.close();
      },
    };
  }

  /** What the exporter makes of each of the watcher's events: metrics, log lines, the poll state kept. */
  #take(event: AccountEvent): void {
    const fields = { profile: this.name, origin: this.origin };
    switch (event.kind) {
      case 'unavailable':
        this.#down(event.unavailable as DownReason, { msg: event.detail });
        break;
      case 'balance': {
        this.metrics.pollDuration(event.durationMs / 1000);
        const wasDown = this.metrics.downReason;
        this.metrics.reading(event.credits, event.at);
        this.#ctx.log.debug('poll', { ...fields, result: 'ok', duration_ms: event.durationMs });
        if (wasDown !== undefined) this.#ctx.log.info('profile_up', { ...fields, credential: this.#credentialWhere });
        // Kept now, not only once the poll's other reads end: a stop in between keeps it too.
        this.#keepState();
        break;
      }
      case 'failure': {
        const { error } = event;
        this.metrics.pollDuration(event.durationMs / 1000);
        const was = this.metrics.downReason;
        this.metrics.failure(error);
        const code = error instanceof KeydeckApiError ? error.code : 'error';
        this.#ctx.log.debug('poll', { ...fields, result: code, duration_ms: event.durationMs });
        const reason = this.metrics.downReason ?? 'error';
        if (was !== reason) this.#ctx.log.warn('profile_down', { ...fields, reason, code, msg: error instanceof Error ? error.message : String(error) });
        // Refused: look the credential up again next time (a new login, a new token file).
        if (reason === 'credential_rejected') this.#watcher.reconnect();
        this.#keepState();
        break;
      }
      case 'keys':
        this.metrics.keys(event.keys, event.at);
        break;
      case 'keys_failed':
        this.metrics.failure(event.error, false);
        break;
      case 'usage': {
        // A failure never makes the profile down; each distinct one is said once.
        const { error } = event.snapshot;
        const problem = error === undefined ? undefined : error instanceof KeydeckApiError ? error.code : 'error';
        if (problem !== this.#usageProblem && problem !== undefined) {
          this.#ctx.log.warn('usage_read_failed', { ...fields, code: problem, msg: error instanceof Error ? error.message : String(error) });
        }
        this.#usageProblem = problem;
        break;
      }
      case 'usage_failed':
      case 'usage_unavailable':
        this.#usageFailed(event.error);
        break;
      case 'auto_top_up':
        this.#autoTopUp?.report(this.#profile, event.step, event.credits);
        break;
      case 'auto_top_up_failed':
        this.#autoTopUp?.failed(this.#profile, event.error);
        break;
      case 'polled':
        this.#polled = true;
        this.#keepState();
        this.#enforce();
        break;
      default:
        break;
    }
  }

  #usageFailed(error: unknown): void {
    const msg = `the usage figures could not be kept (${error instanceof Error ? error.message : String(error)})`;
    if (msg === this.#usageProblem) return;
    this.#usageProblem = msg;
    this.#ctx.log.warn('usage_error', { profile: this.name, origin: this.origin, msg });
  }
}
