/**
 * One watched profile of the exporter (issue 24): its metrics (src/metrics/account.ts), its
 * balance history (history.db, shared with a TUI or monitor open on the same profile: every
 * reading written through, WAL, a short busy timeout), and its own poll schedule: the balance
 * every interval and the key list every {@link KEYS_EVERY_MS}, each poll jittered by ±10 % and run
 * through the exporter's shared concurrency limit, so one slow service holds at most one slot and
 * never delays another profile's figures nor a scrape (a scrape reads the last values).
 *
 * The credential is looked up (./credentials.ts) before the first poll and again after the
 * service refused it (someone may have logged in again), never on every poll: the keychain is
 * asked through a child process.
 */
import { KeydeckClient } from '../api/client.js';
import { insecureHttpProblem } from '../api/baseUrl.js';
import { isAbortError, KeydeckApiError } from '../api/errors.js';
import { downsample, WEEK_WINDOW_MS, type BalanceSample } from '../billing/history.js';
import { HistoryRecorder } from '../billing/historyRecorder.js';
import type { BalanceHistoryStore } from '../billing/historyStore.js';
import { samePollState, type PollState, type PollStates } from '../billing/pollState.js';
import { originOf } from '../credentials/origin.js';
import { KeyHistory } from '../billing/keyHistory.js';
import type { RunawaySettings } from '../billing/runaway.js';
import { credentialIdOf, UsageBudget } from '../billing/usageBudget.js';
import { UsageTracker } from '../billing/usageTracker.js';
import type { ConsumptionKey } from '../api/schemas.js';
import { AccountMetrics, KEYS_EVERY_MS, type DownReason } from '../metrics/account.js';
import { registerUsageMetrics } from '../metrics/usage.js';
import { findCredential, type CredentialSources } from './credentials.js';
import type { AutoTopUpPolicy } from '../config/autoTopUp.js';
import type { AutoTopUpFaces } from './autoTopUp.js';
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
  /** The profile's auto top-up policy (issue 47), acted on with `--auto-topup` only. */
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
  /** `--auto-topup` (issue 47): makes each profile's auto top-up (loaded only then); absent, none. */
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
    return '';
  }
}

/** One watched profile (see the module comment). */
export class ProfileWatcher {
  readonly metrics: AccountMetrics;
  readonly origin: string;
  #profile: WatchedProfile;
  readonly #ctx: WatcherContext;
  readonly #recorder: HistoryRecorder;
  #client: KeydeckClient | undefined;
  #credentialWhere: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #abort = new AbortController();
  #stopped = false;
  #lastKeysAt = Number.NEGATIVE_INFINITY;
  #polling: Promise<void> | undefined;
  /** The profile's history series (absent: no database). */
  readonly #series: import('../billing/historyStore.js').HistorySeries | undefined;
  /** Where the money goes: reads through the shared budget (absent without a database or before a credential). */
  #usage: UsageTracker | undefined;
  #usageProblem: string | undefined;
  #keys: readonly ConsumptionKey[] | undefined;
  #polled = false;
  /** The poll state as last kept (a write only when it changes). */
  #keptState: PollState | undefined;
  readonly #autoTopUp: ReturnType<AutoTopUpFaces['driver']> | undefined;
  readonly #guardrails: ReturnType<GuardrailFaces['driver']> | undefined;

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
    this.#recorder = new HistoryRecorder({
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
        for (const s of downsample(week, now)) this.#recorder.history.add(s.t, s.remaining, s.totalTopUp);
        // The last reading, however old (an outage of more than a week still says since when).
        last = week.at(-1) ?? series.load(0).at(-1);
      } catch (error) {
        ctx.log.warn('history_error', { profile: profile.name, origin: this.origin, msg: `the balance history could not be read (${(error as Error).message})` });
      }
    }
    this.#series = series;
    this.metrics = new AccountMetrics({ profile: profile.name, origin: this.origin, history: this.#recorder.history, alertBelowUsd: profile.alertBelowUsd });
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
    registerUsageMetrics(
      this.metrics,
      () => this.#usage,
      () => this.#keys,
    );
  }

  get name(): string {
    return this.#profile.name;
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
    if (kept?.state === 'down') this.#ctx.log.info('state_restored', { profile: this.name, origin: this.origin, reason: kept.downReason, down_since: new Date(kept.downSince ?? kept.firstAttempt).toISOString() });
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

  get baseUrl(): string | undefined {
    return this.#profile.baseUrl;
  }

  /** Starts polling: the first poll within the first interval (at most 5 s), spread by jitter. */
  start(): void {
    this.#schedule(this.#random() * Math.min(this.#ctx.intervalMs, 5000));
  }

  /** Takes up changed settings of the same profile and service (the threshold). */
  update(profile: WatchedProfile): void {
    this.#profile = profile;
    this.#invalid = profile.invalid;
    this.metrics.setAlertBelow(profile.alertBelowUsd);
  }

  /** Looks the credential up again before the next poll (SIGHUP: a token file or login may have changed). */
  forgetCredential(): void {
    this.#client?.close();
    this.#client = undefined;
    this.#usage = undefined;
  }

  /** Stops polling, abandons a poll under way, closes the client. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#polling?.catch(() => undefined);
    this.forgetCredential();
  }

  /** One poll now (tests; the schedule calls it). */
  async poll(): Promise<void> {
    if (this.#stopped) return;
    const run = this.#ctx.limit(() => this.#poll());
    this.#polling = run;
    try {
      await run;
    } finally {
      this.#polled = true;
      this.#keepState();
    }
  }

  /** True once a poll has ended (read, failed, or found no service or credential): `/readyz`. */
  get polled(): boolean {
    return this.#polled;
  }

  #invalid: string | undefined;

  #random(): number {
    return (this.#ctx.random ?? Math.random)();
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.poll().finally(() => this.#schedule(this.#ctx.intervalMs * (0.9 + 0.2 * this.#random())));
    }, delayMs);
  }

  /** Down for a reason found before any call (no URL, no credential): told once per change. */
  #down(reason: DownReason, fields: Record<string, string | undefined>): void {
    const was = this.metrics.downReason;
    this.metrics.down(reason);
    if (was !== reason) this.#ctx.log.warn('profile_down', { profile: this.name, origin: this.origin, reason, ...fields });
  }

  async #client_(): Promise<KeydeckClient | undefined> {
    if (this.#client) return this.#client;
    if (this.#invalid !== undefined) {
      this.#down('config_invalid', { msg: this.#invalid });
      return undefined;
    }
    const baseUrl = this.#profile.baseUrl;
    if (baseUrl === undefined) {
      this.#down('no_base_url', { msg: `profile "${this.name}" names no service: set its baseUrl (keydeck --profile ${this.name} --base-url URL auth login)` });
      return undefined;
    }
    const insecure = insecureHttpProblem(baseUrl, this.#ctx.allowInsecureHttp);
    if (insecure !== undefined) {
      this.#down('insecure_http', { msg: insecure });
      return undefined;
    }
    const found = await findCredential(this.name, baseUrl, baseUrl, this.#ctx.credentials);
    if (!found.ok) {
      this.#down('credential_missing', { msg: found.sentence });
      return undefined;
    }
    this.#credentialWhere = found.place;
    this.#client = new KeydeckClient({
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
    if (db && this.#series) {
      // The usage read budget is per credential: the one record in history.db, shared with every keydeck process of this user.
      this.#usage = new UsageTracker({
        client: this.#client,
        budget: new UsageBudget(db.database),
        credential: credentialIdOf(this.origin, found.token),
        origin: this.origin,
        keyHistory: new KeyHistory(db.database, this.#series.id),
        ...(this.#profile.runaway && { settings: this.#profile.runaway }),
      });
      try {
        this.#usage.load();
      } catch (error) {
        this.#usageFailed(error);
      }
    }
    return this.#client;
  }

  async #poll(): Promise<void> {
    if (this.#stopped) return;
    const client = await this.#client_();
    if (!client || this.#stopped) return;
    const signal = this.#abort.signal;
    const started = performance.now();
    const took = () => {
      const seconds = (performance.now() - started) / 1000;
      this.metrics.pollDuration(seconds);
      return Math.round(seconds * 1000);
    };
    try {
      const credits = await client.billing.credits({ signal });
      const t = Date.now();
      const ms = took();
      this.#recorder.record(t, credits.remaining, credits.totalTopUp);
      const wasDown = this.metrics.downReason;
      this.metrics.reading(credits, t);
      this.#ctx.log.debug('poll', { profile: this.name, origin: this.origin, result: 'ok', duration_ms: ms });
      if (wasDown !== undefined) this.#ctx.log.info('profile_up', { profile: this.name, origin: this.origin, credential: this.#credentialWhere });
      await this.#autoTopUp?.afterReading(this.#profile, client, credits);
    } catch (error) {
      if (isAbortError(error) || this.#stopped) return;
      const ms = took();
      const was = this.metrics.downReason;
      this.metrics.failure(error);
      this.#ctx.log.debug('poll', { profile: this.name, origin: this.origin, result: error instanceof KeydeckApiError ? error.code : 'error', duration_ms: ms });
      const reason = this.metrics.downReason ?? 'error';
      const code = error instanceof KeydeckApiError ? error.code : 'error';
      if (was !== reason) this.#ctx.log.warn('profile_down', { profile: this.name, origin: this.origin, reason, code, msg: error instanceof Error ? error.message : String(error) });
      // Refused: look the credential up again next time (a new login, a new token file).
      if (reason === 'credential_rejected') this.forgetCredential();
      return;
    }
    if (Date.now() - this.#lastKeysAt >= KEYS_EVERY_MS) {
      try {
        const keys = await client.keys.list({ signal });
        this.#lastKeysAt = Date.now();
        this.#keys = keys;
        this.metrics.keys(keys, this.#lastKeysAt);
      } catch (error) {
        if (isAbortError(error) || this.#stopped) return;
        this.metrics.failure(error, false);
      }
    }
    await this.#refreshUsage(signal);
    if (!this.#stopped) await this.#guardrails?.afterUsage(this.#profile, client, this.#usage, this.#keys);
  }

  /**
   * Per-key spend: a usage read only when the shared schedule allows one (`auto`: at most 10 of
   * the 12 per 12 hours, 72 minutes apart, the other 2 kept for a user's own reads), else the
   * freshest answer another keydeck kept. A failure never makes the profile down.
   */
  async #refreshUsage(signal: AbortSignal): Promise<void> {
    const usage = this.#usage;
    if (!usage) return;
    try {
      const { snapshot } = await usage.refresh('auto', signal);
      const problem = snapshot.error === undefined ? undefined : snapshot.error instanceof KeydeckApiError ? snapshot.error.code : 'error';
      if (problem !== this.#usageProblem && problem !== undefined) {
        this.#ctx.log.warn('usage_read_failed', { profile: this.name, origin: this.origin, code: problem, msg: snapshot.error instanceof Error ? snapshot.error.message : String(snapshot.error) });
      }
      this.#usageProblem = problem;
    } catch (error) {
      if (isAbortError(error) || this.#stopped) return;
      this.#usageFailed(error);
    }
  }

  #usageFailed(error: unknown): void {
    const msg = `the usage figures could not be kept (${error instanceof Error ? error.message : String(error)})`;
    if (msg === this.#usageProblem) return;
    this.#usageProblem = msg;
    this.#ctx.log.warn('usage_error', { profile: this.name, origin: this.origin, msg });
  }
}
