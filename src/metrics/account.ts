/**
 * One account's figures as Prometheus metrics: a prom-client `Registry` per
 * profile and service origin, every series labelled `profile` and `origin` (the registry's
 * default labels), fed by whoever polls the service: `keydeck monitor --metrics` (one profile)
 * and `keydeck exporter` (many; src/exporter/), which serve it through ./server.ts.
 *
 * Names follow Prometheus' conventions (https://prometheus.io/docs/practices/naming/): base
 * units (USD, seconds), a point in time as `…_timestamp_seconds`, counters ending `_total`;
 * `promtool check metrics` finds nothing in the output (test/metrics/promtool.test.ts).
 *
 * | metric | labels | what |
 * |---|---|---|
 * | `keydeck_up` | `reason` when 0 | 1: the last poll read the balance; 0: it could not ({@link DownReason}), or `not_yet_polled` (the exporter: no poll has ended, and none is on record) |
 * | `keydeck_down_since_timestamp_seconds` | `reason` | while down: when the outage began, whatever its reasons since (the exporter restores it: the alert on it fires on time across restarts) |
 * | `keydeck_first_poll_attempt_timestamp_seconds` | | the exporter: when it first set out to read the profile (restored; the stale alert of a profile never read) |
 * | `keydeck_balance_remaining_usd` | | the credit balance record `remaining` |
 * | `keydeck_balance_total_top_up_usd` | | the credit balance record `totalTopUp` |
 * | `keydeck_active_keys` | `key_type` (`credit`, `subscription`) | active the consumption key's fields keys by `keyType` |
 * | `keydeck_subscription_expiry_timestamp_seconds` | | the nearest `subscriptionExpiresAt` of an active subscription key (absent without one) |
 * | `keydeck_burn_rate_usd_per_second` | `window` (`15m`, `1h`, `24h`, `7d`) | spend per second over the window as of the last reading (top-ups are not spending; absent until the window has enough readings) |
 * | `keydeck_last_successful_poll_timestamp_seconds` | | when the balance was last read |
 * | `keydeck_keys_last_successful_poll_timestamp_seconds` | | when the key list was last read |
 * | `keydeck_poll_errors_total` | `code` | failed reads by the client's error code |
 * | `keydeck_balance_alert_below_usd` | | the profile's `alertBelowUsd` (absent when it sets none): the alert rules' per-profile threshold |
 * | `keydeck_balance_restored` | | 1 while the balance and its poll time are the last reading of the history, restored at start; 0 once this process has read the balance itself |
 * | `keydeck_poll_duration_seconds` | | histogram of the balance polls' durations, failed ones included |
 *
 * Before the first reading the balance gauges are absent (not 0: nothing is known). The burn rates
 * are computed when a reading arrives, never during a scrape, so a scrape costs the same however
 * long the history.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { KeydeckApiError, isAbortError } from '../api/errors.js';
import type { ConsumptionKey, CreditBalance } from '../api/schemas.js';
import type { PollState } from '../billing/pollState.js';
import { BalanceHistory, burnRate, DAY_WINDOW_MS, LONG_WINDOW_MS, SHORT_WINDOW_MS, WEEK_WINDOW_MS, type BalanceSample } from '../billing/history.js';

/** The labels of every account series. */
export type AccountLabel = 'profile' | 'origin';
/**
 * Declared on every metric (not only as the registry's default labels): prom-client always
 * exports a gauge without labels, as 0 when unset, and a balance or an expiry of 0 before the
 * first reading would fire the alert rules; a labelled gauge without values exports no series.
 */
const ACCOUNT_LABELS: AccountLabel[] = ['profile', 'origin'];

/** How often the key list is read for the key and subscription metrics, ms (a minute). */
export const KEYS_EVERY_MS = 60_000;

/** The buckets of `keydeck_poll_duration_seconds`, seconds: a loopback answer to a call that times out (10 s). */
export const POLL_DURATION_BUCKETS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The windows of `keydeck_burn_rate_usd_per_second`, by label. */
export const BURN_RATE_WINDOWS: readonly (readonly [label: string, ms: number])[] = [
  ['15m', SHORT_WINDOW_MS],
  ['1h', LONG_WINDOW_MS],
  ['24h', DAY_WINDOW_MS],
  ['7d', WEEK_WINDOW_MS],
];

/**
 * Why `keydeck_up` is 0 (its `reason` label): a bounded set, so the label never grows.
 * - `no_base_url`: the profile names no service (config `baseUrl`);
 * - `insecure_http`: plain http off loopback without the opt-in;
 * - `credential_missing`: no credential found for the profile at its origin;
 * - `credential_rejected`: the service answered 401 or 403;
 * - `unreachable`: no answer (network error, timeout);
 * - `server_error`: the service answered with a 5xx status;
 * - `config_invalid`: the profile's entry in the config file has a value keydeck refuses (the exporter at start);
 * - `rate_limited`: the service asked to wait (429);
 * - `invalid_response`: an answer keydeck cannot read;
 * - `error`: anything else.
 */
export type DownReason =
  'no_base_url' | 'insecure_http' | 'credential_missing' | 'credential_rejected' | 'unreachable' | 'server_error' | 'rate_limited' | 'invalid_response' | 'config_invalid' | 'error';

/** The {@link DownReason} of a failed read (a {@link KeydeckApiError} by its code, else `error`). */
export function downReasonOf(error: unknown): DownReason {
  if (!(error instanceof KeydeckApiError)) return 'error';
  switch (error.code) {
    case 'unauthorized':
    case 'forbidden':
      return 'credential_rejected';
    case 'network_error':
    case 'timeout':
      return 'unreachable';
    case 'rate_limited':
      return 'rate_limited';
    case 'invalid_response':
      return 'invalid_response';
    case 'server_error':
      return 'server_error';
    default:
      return error.status !== undefined && error.status >= 500 ? 'server_error' : 'error';
  }
}

/** Options of {@link AccountMetrics}. */
export interface AccountMetricsOptions {
  /** The profile name (label `profile`). */
  readonly profile: string;
  /** The service origin, `scheme://host:port` (label `origin`). */
  readonly origin: string;
  /**
   * The balance history the burn rates are read from (shared with a HistoryRecorder that
   * writes through to history.db). Default: a history of this object's own readings.
   */
  readonly history?: BalanceHistory;
  /** Readings to start the own history with (the last 7 days on disk), when `history` is not given. */
  readonly seed?: readonly BalanceSample[];
  /** The profile's low-balance threshold, USD (`keydeck_balance_alert_below_usd`). */
  readonly alertBelowUsd?: number | undefined;
  /** Epoch ms now (tests). Default Date.now. */
  readonly now?: () => number;
}

/** The metrics of one profile at one origin (see the module comment). */
export class AccountMetrics {
  /** This account's registry: serve it with ./server.ts, or add collect-time gauges to it (src/metrics/spend.ts). */
  readonly registry = new Registry();
  readonly profile: string;
  readonly origin: string;
  readonly history: BalanceHistory;
  readonly #labels: Record<AccountLabel, string>;
  readonly #ownHistory: boolean;
  readonly #now: () => number;
  readonly #up: Gauge<'reason' | AccountLabel>;
  readonly #remaining: Gauge<AccountLabel>;
  readonly #totalTopUp: Gauge<AccountLabel>;
  readonly #activeKeys: Gauge<'key_type' | AccountLabel>;
  readonly #expiry: Gauge<AccountLabel>;
  readonly #burnRate: Gauge<'window' | AccountLabel>;
  readonly #lastPoll: Gauge<AccountLabel>;
  readonly #lastKeysPoll: Gauge<AccountLabel>;
  readonly #errors: Counter<'code' | AccountLabel>;
  readonly #alertBelow: Gauge<AccountLabel>;
  readonly #restored: Gauge<AccountLabel>;
  readonly #pollDuration: Histogram<AccountLabel>;
  readonly #downSinceGauge: Gauge<'reason' | AccountLabel>;
  readonly #firstAttemptGauge: Gauge<AccountLabel>;
  #version = 0;
  /** Sources of collect-time gauges, and the value each had when last looked at. */
  readonly #watched: { read: () => unknown; seen: unknown }[] = [];
  /** `unknown` before the first poll (no `keydeck_up` yet), `up`, or why it is down. */
  #state: 'unknown' | 'up' | DownReason = 'unknown';
  #restoredFrom: number | undefined;
  /** Epoch ms the current outage began (while down). */
  #downSince: number | undefined;
  /** Epoch ms a watcher first set out to read the profile (the exporter's, restored). */
  #firstAttempt: number | undefined;

  constructor(options: AccountMetricsOptions) {
    this.profile = options.profile;
    this.origin = options.origin;
    this.#now = options.now ?? Date.now;
    this.#ownHistory = options.history === undefined;
    this.history = options.history ?? new BalanceHistory();
    if (this.#ownHistory && options.seed) this.history.load(options.seed);
    this.#labels = { profile: options.profile, origin: options.origin };
    // Default labels too, for gauges other modules add to this registry (src/metrics/spend.ts).
    this.registry.setDefaultLabels(this.#labels);
    const registers = [this.registry];
    this.#up = new Gauge({ name: 'keydeck_up', help: 'Whether the last poll read the balance (1), else 0 with the reason', labelNames: ['reason', ...ACCOUNT_LABELS], registers });
    this.#remaining = new Gauge({ name: 'keydeck_balance_remaining_usd', help: 'Remaining credit balance (USD, `remaining` of the credit balance)', labelNames: ACCOUNT_LABELS, registers });
    this.#totalTopUp = new Gauge({ name: 'keydeck_balance_total_top_up_usd', help: 'Sum of all top-ups (USD, `totalTopUp` of the credit balance)', labelNames: ACCOUNT_LABELS, registers });
    this.#activeKeys = new Gauge({ name: 'keydeck_active_keys', help: 'Active consumption keys by keyType', labelNames: ['key_type', ...ACCOUNT_LABELS], registers });
    this.#expiry = new Gauge({
      name: 'keydeck_subscription_expiry_timestamp_seconds',
      help: 'When the first active subscription key ends (Unix seconds, the key’s `subscriptionExpiresAt`)',
      labelNames: ACCOUNT_LABELS,
      registers,
    });
    this.#burnRate = new Gauge({
      name: 'keydeck_burn_rate_usd_per_second',
      help: 'Spend per second over the window as of the last reading (USD; top-ups are not spending)',
      labelNames: ['window', ...ACCOUNT_LABELS],
      registers,
    });
    this.#lastPoll = new Gauge({ name: 'keydeck_last_successful_poll_timestamp_seconds', help: 'When the balance was last read successfully (Unix seconds)', labelNames: ACCOUNT_LABELS, registers });
    this.#lastKeysPoll = new Gauge({
      name: 'keydeck_keys_last_successful_poll_timestamp_seconds',
      help: 'When the key list was last read successfully (Unix seconds)',
      labelNames: ACCOUNT_LABELS,
      registers,
    });
    this.#errors = new Counter({ name: 'keydeck_poll_errors_total', help: 'Failed reads of the service, by error code', labelNames: ['code', ...ACCOUNT_LABELS], registers });
    this.#alertBelow = new Gauge({ name: 'keydeck_balance_alert_below_usd', help: 'The profile’s low-balance threshold (USD, config alertBelowUsd)', labelNames: ACCOUNT_LABELS, registers });
    this.#restored = new Gauge({
      name: 'keydeck_balance_restored',
      help: 'Whether the balance and its poll time were restored from the history at start and not read since (1), else 0',
      labelNames: ACCOUNT_LABELS,
      registers,
    });
    this.#pollDuration = new Histogram({
      name: 'keydeck_poll_duration_seconds',
      help: 'How long the balance polls took, failed ones included (seconds)',
      labelNames: ACCOUNT_LABELS,
      buckets: [...POLL_DURATION_BUCKETS],
      registers,
    });
    this.#downSinceGauge = new Gauge({
      name: 'keydeck_down_since_timestamp_seconds',
      help: 'While the balance cannot be read: when the outage began (Unix seconds), with the reason now',
      labelNames: ['reason', ...ACCOUNT_LABELS],
      registers,
    });
    this.#firstAttemptGauge = new Gauge({
      name: 'keydeck_first_poll_attempt_timestamp_seconds',
      help: 'When the exporter first set out to read the profile (Unix seconds, kept across restarts)',
      labelNames: ACCOUNT_LABELS,
      registers,
    });
    this.setAlertBelow(options.alertBelowUsd);
  }

  /**
   * The poll state kept across restarts (src/billing/pollState.ts), served from the first scrape:
   * the first attempt's time, and the last known state — up, down since then for that reason, or
   * `keydeck_up{reason="not_yet_polled"} 0` when no poll has ever ended.
   */
  restoreState(state: PollState): void {
    this.#firstAttempt = state.firstAttempt;
    this.#firstAttemptGauge.set(this.#labels, Math.floor(state.firstAttempt / 1000));
    if (state.state === 'down') {
      this.down((state.downReason ?? 'error') as DownReason, state.downSince ?? state.firstAttempt);
    } else if (state.state === 'up') {
      this.up();
    } else {
      this.#up.reset();
      this.#up.set({ ...this.#labels, reason: 'not_yet_polled' }, 0);
    }
    this.changed();
  }

  /** The poll state to keep (undefined before {@link restoreState}: monitor keeps none). */
  pollState(): PollState | undefined {
    if (this.#firstAttempt === undefined) return undefined;
    const down = this.downReason;
    return down !== undefined
      ? { firstAttempt: this.#firstAttempt, state: 'down', downSince: this.#downSince, downReason: down }
      : { firstAttempt: this.#firstAttempt, state: this.#state === 'up' ? 'up' : 'unknown' };
  }

  /** Epoch ms the current outage began (undefined while up or before the first poll). */
  get downSince(): number | undefined {
    return this.#downSince;
  }

  /**
   * Changes whenever a figure may have changed (./exposition.ts keeps this account's text until
   * then). Collect-time gauges added to {@link registry} call {@link changed} when their source moves.
   */
  get version(): number {
    for (const w of this.#watched) {
      const now = w.read();
      if (now !== w.seen) {
        w.seen = now;
        this.#version++;
      }
    }
    return this.#version;
  }

  /**
   * Collect-time gauges on {@link registry} read `source`: the account counts as changed whenever
   * it returns another object than the last time (e.g. a UsageTracker's snapshot, replaced on each refresh).
   */
  watch(source: () => unknown): void {
    this.#watched.push({ read: source, seen: source() });
  }

  /** Something the registry's collect-time gauges read has changed: the next scrape writes the text afresh. */
  changed(): void {
    this.#version++;
  }

  /** Why the account is down, or undefined while it is up (or before the first poll). */
  get downReason(): DownReason | undefined {
    return this.#state === 'up' || this.#state === 'unknown' ? undefined : this.#state;
  }

  /** The profile's low-balance threshold changed (undefined: none). */
  setAlertBelow(usd: number | undefined): void {
    if (usd === undefined || !Number.isFinite(usd)) this.#alertBelow.reset();
    else this.#alertBelow.set(this.#labels, usd);
    this.changed();
  }

  /** A successful balance read at epoch ms `t`: the balance, the poll time, the burn rates, up. */
  reading(credits: CreditBalance, t = this.#now()): void {
    this.#figures(credits.remaining, credits.totalTopUp, t);
    if (this.#ownHistory) this.history.add(t, credits.remaining, credits.totalTopUp);
    this.#rates(t);
    if (this.#restoredFrom !== undefined) this.#restored.set(this.#labels, 0);
    this.up();
    this.changed();
  }

  /**
   * The last reading of the history (`sample`, another run's or a TUI's), served at start as the
   * balance, its poll time and the burn rates as of then, with `keydeck_balance_restored 1` until
   * this process reads the balance itself (a restart during an outage keeps the stale
   * and low-balance alerts firing). Says nothing about `keydeck_up`: nothing is known of now.
   */
  restore(sample: BalanceSample): void {
    this.#restoredFrom = sample.t;
    this.#figures(sample.remaining, sample.totalTopUp, sample.t);
    this.#rates(sample.t);
    this.#restored.set(this.#labels, 1);
    this.changed();
  }

  /** Epoch ms of the reading restored at start (undefined when none was). */
  get restoredFrom(): number | undefined {
    return this.#restoredFrom;
  }

  /** A balance poll took `seconds` (failed ones too). */
  pollDuration(seconds: number): void {
    this.#pollDuration.observe(this.#labels, seconds);
    this.changed();
  }

  #figures(remaining: number, totalTopUp: number | undefined, t: number): void {
    this.#remaining.set(this.#labels, remaining);
    if (totalTopUp !== undefined) this.#totalTopUp.set(this.#labels, totalTopUp);
    this.#lastPoll.set(this.#labels, Math.floor(t / 1000));
  }

  /** The account answers again (the balance was read). */
  up(): void {
    if (this.#state === 'up') return;
    this.#state = 'up';
    this.#up.reset();
    this.#up.set(this.#labels, 1);
    this.#downSince = undefined;
    this.#downSinceGauge.reset();
    this.changed();
  }

  /**
   * The account cannot be read: `keydeck_up{reason} 0`. The balance gauges keep their last values
   * (with their poll timestamp: Prometheus users see how old they are). An outage that goes on for
   * another reason keeps its start (`keydeck_down_since_timestamp_seconds`); `since` (epoch ms,
   * default now) is its start when the account was not down.
   */
  down(reason: DownReason, since = this.#now()): void {
    if (this.#state === reason) return;
    if (this.downReason === undefined) this.#downSince = since;
    this.#state = reason;
    this.#up.reset();
    this.#up.set({ ...this.#labels, reason }, 0);
    this.#downSinceGauge.reset();
    this.#downSinceGauge.set({ ...this.#labels, reason }, Math.floor((this.#downSince ?? since) / 1000));
    this.changed();
  }

  /**
   * A failed read: counted by code ({@link KeydeckApiError} code, else `error`), and the account
   * down when `affectsUp` (a failed key list alone does not make the balance unknown). An aborted
   * read is not counted.
   */
  failure(error: unknown, affectsUp = true): void {
    if (isAbortError(error)) return;
    this.#errors.inc({ ...this.#labels, code: error instanceof KeydeckApiError ? error.code : 'error' });
    this.changed();
    if (affectsUp) this.down(downReasonOf(error));
  }

  /** The key list read at epoch ms `t`: active keys by type, the nearest subscription end. */
  keys(list: readonly ConsumptionKey[], t = this.#now()): void {
    const active = list.filter((k) => k.isActive);
    this.#activeKeys.set({ ...this.#labels, key_type: 'credit' }, active.filter((k) => k.keyType === 'credit').length);
    const subs = active.filter((k) => k.keyType === 'subscription');
    this.#activeKeys.set({ ...this.#labels, key_type: 'subscription' }, subs.length);
    const ends = subs.map((k) => (k.subscriptionExpiresAt ? Date.parse(k.subscriptionExpiresAt) : Number.NaN)).filter((e) => Number.isFinite(e));
    if (ends.length > 0) this.#expiry.set(this.#labels, Math.floor(Math.min(...ends) / 1000));
    else this.#expiry.reset();
    this.#lastKeysPoll.set(this.#labels, Math.floor(t / 1000));
    this.changed();
  }

  /** The exposition text of this account alone (Prometheus text format). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  #rates(t: number): void {
    this.#burnRate.reset();
    const recent = this.history.since(t - WEEK_WINDOW_MS);
    for (const [window, ms] of BURN_RATE_WINDOWS) {
      const rate = burnRate(recent, ms, t);
      if (rate) this.#burnRate.set({ ...this.#labels, window }, rate.usdPerHour / 3600);
    }
  }
}
