/**
 * Runaway keys: pure judgements over a key's spend samples (one per usage read,
 * ./keyHistory.ts) and over the balance history (./history.ts). No I/O, no clock of its own.
 *
 * - A key's **rate** since the previous read is the rise of its cumulative spend over the time
 *   between the two reads (USD/hour). Its **baseline** is the median of its own rates between
 *   consecutive reads over the 7 days before the previous read (at least
 *   {@link MIN_BASELINE_INTERVALS} of them, else there is none).
 * - **Runaway**: the rate is at least `factor` × the baseline (default 5×) and at least the floor
 *   (default $1/h). Both are the profile's settings (`runawayFactor`, `runawayFloorUsdPerHour`).
 * - **Dormant, then spending**: the key spent nothing over the {@link DORMANT_MS} (7 days) before
 *   the previous read, and spends now (at least a cent), whatever the rate.
 * - **Account level**, between usage reads: the balance's burn rate over the last hour is at least
 *   `factor` × its own baseline (the median hourly burn rate over the 7 days before) and at least
 *   the floor; the likely cause is the key that spent most at the last usage read.
 */
import { DEFAULT_RUNAWAY_FACTOR, DEFAULT_RUNAWAY_FLOOR_USD_PER_HOUR } from '../config/config.js';
import { burnRate, LONG_WINDOW_MS, type BalanceSample } from './history.js';

/** The profile's settings of the alert. */
export interface RunawaySettings {
  /** How many times its own baseline a key's rate must reach (default 5). */
  readonly factor: number;
  /** The least rate that can be a runaway, USD/hour (default 1). */
  readonly floorUsdPerHour: number;
}

/** The defaults of {@link RunawaySettings}: 5× the 7-day median, over $1/h. */
export const DEFAULT_RUNAWAY: RunawaySettings = { factor: DEFAULT_RUNAWAY_FACTOR, floorUsdPerHour: DEFAULT_RUNAWAY_FLOOR_USD_PER_HOUR };
/** How far back a baseline looks, ms (7 days). */
export const BASELINE_MS = 7 * 86_400_000;
/** How long without spend makes a key dormant, ms (7 days). */
export const DORMANT_MS = 7 * 86_400_000;
/** Fewest intervals between reads a baseline is taken from. */
export const MIN_BASELINE_INTERVALS = 3;
/** Reads closer than this are not an interval (a rate over seconds says nothing), ms. */
const MIN_INTERVAL_MS = 60_000;
/** The least spend that ends dormancy, USD. */
const DORMANT_WAKE_USD = 0.01;

/** One usage read of one key: its time (service clock, ms) and cumulative spend (USD). */
export interface KeySample {
  readonly t: number;
  /** Cumulative spend, USD (all time, or the longest period the service gives). */
  readonly cum: number;
  /** Spend of the last 24 h at that read, USD, when the service gives it. */
  readonly d1?: number;
}

/** A rate between two reads. */
export interface IntervalRate {
  readonly from: number;
  readonly to: number;
  /** USD/hour (≥ 0; a cumulative figure that fell, e.g. a rolling period, counts as 0). */
  readonly usdPerHour: number;
  /** USD spent between the two reads (≥ 0). */
  readonly usd: number;
}

/** The rate between two samples, or undefined when they are closer than a minute. */
export function intervalRate(a: KeySample, b: KeySample): IntervalRate | undefined {
  const ms = b.t - a.t;
  if (!(ms >= MIN_INTERVAL_MS)) return undefined;
  const usd = Math.max(0, Math.round((b.cum - a.cum) * 1e6) / 1e6);
  return { from: a.t, to: b.t, usd, usdPerHour: usd / (ms / 3_600_000) };
}

/** The median of `values` (undefined when empty). */
export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The key's baseline at `before` (ms): the median of its rates between consecutive reads that
 * both fall in the {@link BASELINE_MS} before it; undefined with fewer than
 * {@link MIN_BASELINE_INTERVALS} intervals. `samples` oldest first.
 */
export function baselineOf(samples: readonly KeySample[], before: number): number | undefined {
  const rates: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if (a.t < before - BASELINE_MS || b.t > before) continue;
    const r = intervalRate(a, b);
    if (r) rates.push(r.usdPerHour);
  }
  return rates.length >= MIN_BASELINE_INTERVALS ? median(rates) : undefined;
}

/** What a key's newest read says: a runaway, or a dormant key waking; with the figures. */
export interface KeyJudgement {
  readonly kind: 'runaway' | 'dormant';
  /** The rate since the previous read, USD/hour. */
  readonly usdPerHour: number;
  /** The baseline, USD/hour (a dormant key's may be missing). */
  readonly baselineUsdPerHour?: number;
  /** The previous read and the newest (service clock, ms). */
  readonly from: number;
  readonly at: number;
}

/**
 * Judges a key's newest read (the last of `samples`, oldest first) against its own history.
 * @returns the judgement, or undefined when nothing is unusual (or too little is known)
 */
export function judgeKey(samples: readonly KeySample[], settings: RunawaySettings = DEFAULT_RUNAWAY): KeyJudgement | undefined {
  if (samples.length < 2) return undefined;
  const last = samples[samples.length - 1]!;
  const prev = samples[samples.length - 2]!;
  const rate = intervalRate(prev, last);
  if (!rate || rate.usd <= 0) return undefined;
  const history = samples.slice(0, -1);
  const baseline = baselineOf(history, prev.t);
  // Dormant: the history reaches 7 days before the previous read, and nothing was spent since.
  let anchor: KeySample | undefined;
  for (const s of history) if (s.t <= prev.t - DORMANT_MS) anchor = s;
  const dormant = anchor !== undefined && prev.cum - anchor.cum < 1e-9;
  if (dormant && rate.usd >= DORMANT_WAKE_USD) {
    return { kind: 'dormant', usdPerHour: rate.usdPerHour, ...(baseline !== undefined && { baselineUsdPerHour: baseline }), from: prev.t, at: last.t };
  }
  if (baseline === undefined || rate.usdPerHour < settings.floorUsdPerHour) return undefined;
  if (rate.usdPerHour < settings.factor * baseline) return undefined;
  return { kind: 'runaway', usdPerHour: rate.usdPerHour, baselineUsdPerHour: baseline, from: prev.t, at: last.t };
}

/**
 * A key's spend rate over the `windowMs` before its newest read (USD/hour): the rise of its
 * cumulative spend since the last read at or before the window's start (or the first read), over
 * the time between. Undefined with fewer than two reads an interval apart.
 */
export function keyBurnRate(samples: readonly KeySample[], windowMs: number): number | undefined {
  if (samples.length < 2) return undefined;
  const last = samples[samples.length - 1]!;
  let start = samples[0]!;
  for (const s of samples) {
    if (s.t <= last.t - windowMs) start = s;
    else break;
  }
  return intervalRate(start, last)?.usdPerHour;
}

/** The account-level alert: the balance burning at N× its own baseline. */
export interface AccountJudgement {
  /** The burn rate over the last hour, USD/hour. */
  readonly usdPerHour: number;
  /** The baseline: the median hourly burn rate of the 7 days before, USD/hour. */
  readonly baselineUsdPerHour: number;
}

/**
 * Judges the balance's last hour (`samples` oldest first, epoch ms of this machine) against the
 * median of its hourly burn rates over the 7 days before (at least 6 hours with readings). Pure.
 */
export function judgeAccount(samples: readonly BalanceSample[], now: number, settings: RunawaySettings = DEFAULT_RUNAWAY): AccountJudgement | undefined {
  const recent = samples.filter((x) => x.t > now - LONG_WINDOW_MS - BASELINE_MS && x.t <= now);
  const current = burnRate(recent, LONG_WINDOW_MS, now);
  if (!current || current.usdPerHour < settings.floorUsdPerHour) return undefined;
  // One pass: each drop between consecutive readings goes to the hour (before the last one) it ends in.
  const micros = (usd: number) => Math.round(usd * 1e6);
  const drop = new Map<number, number>();
  const span = new Map<number, number>();
  for (let i = 1; i < recent.length; i++) {
    const a = recent[i - 1]!;
    const b = recent[i]!;
    if (b.t > now - LONG_WINDOW_MS) break;
    const hour = Math.floor((now - LONG_WINDOW_MS - b.t) / LONG_WINDOW_MS);
    let d = micros(a.remaining) - micros(b.remaining);
    if (a.totalTopUp !== undefined && b.totalTopUp !== undefined) d += micros(b.totalTopUp) - micros(a.totalTopUp);
    drop.set(hour, (drop.get(hour) ?? 0) + Math.max(0, d));
    span.set(hour, (span.get(hour) ?? 0) + (b.t - a.t));
  }
  const hourly: number[] = [];
  for (const [hour, ms] of span) if (ms >= LONG_WINDOW_MS / 2) hourly.push((drop.get(hour) ?? 0) / 1e6 / (ms / LONG_WINDOW_MS));
  if (hourly.length < 6) return undefined;
  const baseline = median(hourly)!;
  if (current.usdPerHour < settings.factor * baseline) return undefined;
  return { usdPerHour: current.usdPerHour, baselineUsdPerHour: baseline };
}
