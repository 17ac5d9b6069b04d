/**
 * The balance over time (the credit balance record `remaining`, USD), kept in a bounded ring buffer, and what is
 * read from it: the burn rate in USD/hour over a window, and the projected time the balance
 * runs out at that rate. Pure logic, no timers, no I/O: the TUI's Billing pane and
 * `keydeck monitor` feed it one sample per successful poll.
 *
 * Memory never grows with uptime: the buffer holds at most `capacity` samples, and samples
 * closer together than `minSpacingMs` are coalesced (the newest one is overwritten), so a fast
 * poll interval still covers a long stretch of time.
 */

/** One observation: epoch ms, the remaining balance in USD, and `totalTopUp` (USD) when known. */
export interface BalanceSample {
  readonly t: number;
  readonly remaining: number;
  /** The credit balance record `totalTopUp` at the same time: with it, spending is exact across top-ups. */
  readonly totalTopUp?: number;
}

/** Options of {@link BalanceHistory}. */
export interface BalanceHistoryOptions {
  /** Most samples kept (oldest dropped first). Default 1,024. */
  readonly capacity?: number;
  /**
   * Two stored samples are at least this far apart, ms: a sample that comes sooner after the
   * one before the newest replaces the newest. Default 5,000 (1,024 samples then cover ≥ 85 min,
   * enough for the one-hour burn rate at any poll interval).
   */
  readonly minSpacingMs?: number;
}

/**
 * Default capacity of a {@link BalanceHistory}: enough for 48 h of full resolution at the 5 s
 * spacing (34,560) plus 30 days of 5-minute points (8,640), with room to spare.
 */
export const DEFAULT_HISTORY_CAPACITY = 65_536;
/** Default minimum spacing of stored samples, ms. */
export const DEFAULT_MIN_SPACING_MS = 5_000;
/** The short burn-rate window, ms (15 minutes). */
export const SHORT_WINDOW_MS = 15 * 60_000;
/** The long burn-rate window, ms (1 hour). */
export const LONG_WINDOW_MS = 60 * 60_000;
/** The day burn-rate window, ms (24 hours). */
export const DAY_WINDOW_MS = 24 * LONG_WINDOW_MS;
/** The week burn-rate window, ms (7 days). */
export const WEEK_WINDOW_MS = 7 * DAY_WINDOW_MS;

/**
 * Retention of the balance history, shared by the database (historyStore.ts) and the
 * in-memory buffer: every reading for the last 48 h; older ones thinned to the last reading of
 * each 5-minute bucket, and past 30 days to the last of each hour; nothing older than
 * {@link MAX_HISTORY_AGE_MS}. Keeping a bucket's *last* reading keeps spending exact: spent
 * (`totalTopUp − remaining`) is cumulative, so the spend between any two kept readings is
 * the same as before thinning, and so is the rise of `totalTopUp` (the top-ups).
 */
export const RETENTION_TIERS: readonly { readonly olderThanMs: number; readonly bucketMs: number }[] = [
  { olderThanMs: 48 * LONG_WINDOW_MS, bucketMs: 5 * 60_000 },
  { olderThanMs: 30 * DAY_WINDOW_MS, bucketMs: LONG_WINDOW_MS },
];
/** Readings older than this (ms, 400 days) are dropped. */
export const MAX_HISTORY_AGE_MS = 400 * DAY_WINDOW_MS;

/**
 * Retention of the in-memory history of a running keydeck (src/billing/historyRecorder.ts): the
 * database's {@link RETENTION_TIERS}, and from 2 hours back to 48 hours the last reading of each
 * minute instead of every reading. The burn rates over 15 minutes and an hour see every reading;
 * the day's, the week's, the runaway judgement and the charts (at most one cell a minute over
 * 2 hours) see the same spend, exactly where readings carry `totalTopUp` (as the database's
 * tiers keep it). A day of 2 s polls is then ~2,800 samples in memory instead of ~17,000 (the
 * database keeps every one for 48 h, for the other processes that read it).
 */
export const MEMORY_RETENTION_TIERS: readonly { readonly olderThanMs: number; readonly bucketMs: number }[] = [{ olderThanMs: 2 * LONG_WINDOW_MS, bucketMs: 60_000 }, ...RETENTION_TIERS];

/**
 * `samples` (oldest first) thinned by `tiers` (oldest last; default {@link RETENTION_TIERS}) as of
 * `now` (epoch ms), and cut at `maxAgeMs`. Buckets are absolute (`floor(t / bucketMs)`), so
 * thinning twice changes nothing. Pure.
 */
export function downsample(samples: readonly BalanceSample[], now: number, maxAgeMs = MAX_HISTORY_AGE_MS, tiers = RETENTION_TIERS): BalanceSample[] {
  const out: BalanceSample[] = [];
  const oldest = now - maxAgeMs;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    if (s.t < oldest) continue;
    let bucketMs = 0;
    for (const tier of tiers) if (s.t < now - tier.olderThanMs) bucketMs = tier.bucketMs;
    if (bucketMs > 0) {
      const next = samples[i + 1];
      // Keep the last reading of the bucket (the next one is in the same bucket: drop this one).
      if (next && next.t < now - tiers[0]!.olderThanMs && Math.floor(next.t / bucketMs) === Math.floor(s.t / bucketMs)) continue;
    }
    out.push(s);
  }
  return out;
}

/** A bounded ring buffer of {@link BalanceSample}s in time order. */
export class BalanceHistory {
  readonly capacity: number;
  readonly minSpacingMs: number;
  /**
   * Grows with the samples up to `capacity` (a session of a few hours holds a few thousand, not
   * 65,536 slots: 0.5 MB resident from the start, bench/memory.mjs), then is written in a ring.
   */
  #buffer: BalanceSample[] = [];
  /** Index of the oldest sample (0 until the buffer is full). */
  #start = 0;
  #size = 0;
  /** Bumped on every change (a cheap "did it change" for renderers). */
  #version = 0;

  /** @throws RangeError when `capacity` is not an integer ≥ 2 or `minSpacingMs` is negative. */
  constructor(options: BalanceHistoryOptions = {}) {
    const capacity = options.capacity ?? DEFAULT_HISTORY_CAPACITY;
    const minSpacingMs = options.minSpacingMs ?? DEFAULT_MIN_SPACING_MS;
    if (!Number.isInteger(capacity) || capacity < 2) throw new RangeError('capacity must be an integer of at least 2');
    if (!(minSpacingMs >= 0)) throw new RangeError('minSpacingMs must not be negative');
    this.capacity = capacity;
    this.minSpacingMs = minSpacingMs;
  }

  /** Number of samples held (≤ capacity). */
  get size(): number {
    return this.#size;
  }

  /** Changes on every accepted sample. */
  get version(): number {
    return this.#version;
  }

  /**
   * Records `remaining` USD (and `totalTopUp` USD, when given) at epoch ms `t`. Ignored (returns
   * false) when `t` or `remaining` is not finite or `t` is older than the newest sample (a clock
   * that went back). A sample within `minSpacingMs` of the one before the newest replaces the newest.
   */
  add(t: number, remaining: number, totalTopUp?: number): boolean {
    if (!Number.isFinite(t) || !Number.isFinite(remaining)) return false;
    const sample: BalanceSample = totalTopUp !== undefined && Number.isFinite(totalTopUp) ? { t, remaining, totalTopUp } : { t, remaining };
    const newest = this.at(this.#size - 1);
    if (newest && t < newest.t) return false;
    const previous = this.at(this.#size - 2);
    if (newest && previous && t - previous.t < this.minSpacingMs) {
      this.#buffer[(this.#start + this.#size - 1) % this.capacity] = sample;
    } else if (this.#size < this.capacity) {
      this.#buffer.push(sample); // #start is 0 until the buffer is full.
      this.#size++;
    } else {
      this.#buffer[this.#start] = sample;
      this.#start = (this.#start + 1) % this.capacity;
    }
    this.#version++;
    return true;
  }

  /** The `i`-th sample, oldest first (undefined out of range). */
  at(i: number): BalanceSample | undefined {
    if (i < 0 || i >= this.#size) return undefined;
    return this.#buffer[(this.#start + i) % this.capacity];
  }

  /** The newest sample, if any. */
  latest(): BalanceSample | undefined {
    return this.at(this.#size - 1);
  }

  /** Every sample, oldest first (a copy). */
  samples(): BalanceSample[] {
    const out: BalanceSample[] = [];
    for (let i = 0; i < this.#size; i++) out.push(this.at(i)!);
    return out;
  }

  /** The samples with `t ≥ since`, oldest first. */
  since(since: number): BalanceSample[] {
    const out: BalanceSample[] = [];
    for (let i = this.#size - 1; i >= 0; i--) {
      const s = this.at(i)!;
      if (s.t < since) break;
      out.push(s);
    }
    return out.reverse();
  }

  /**
   * Replaces the content with `samples` (any order; non-finite ones and duplicates of a time
   * dropped), keeping the newest `capacity`. Used to seed the buffer from the database.
   */
  load(samples: readonly BalanceSample[]): void {
    const sorted = samples.filter((s) => Number.isFinite(s.t) && Number.isFinite(s.remaining)).sort((a, b) => a.t - b.t);
    const unique = sorted.filter((s, i) => i === sorted.length - 1 || sorted[i + 1]!.t !== s.t);
    const kept = unique.slice(-this.capacity);
    this.#buffer = kept;
    this.#start = 0;
    this.#size = kept.length;
    this.#version++;
  }

  /** Thins the buffer by `tiers` (default {@link RETENTION_TIERS}) as of `now` and drops what is older than `maxAgeMs`. */
  compact(now: number, maxAgeMs = MAX_HISTORY_AGE_MS, tiers = RETENTION_TIERS): void {
    const before = this.#size;
    const kept = downsample(this.samples(), now, maxAgeMs, tiers);
    if (kept.length !== before) this.load(kept);
  }

  /** Drops every sample. */
  clear(): void {
    this.#buffer = [];
    this.#start = 0;
    this.#size = 0;
    this.#version++;
  }
}

/** A burn rate measured over a window. */
export interface BurnRate {
  /** USD spent per hour (≥ 0): the sum of the balance's drops divided by the time covered. */
  readonly usdPerHour: number;
  /** Time the samples actually cover, ms (at least {@link MIN_WINDOW_COVERAGE} of the window). */
  readonly spanMs: number;
  /** Samples used. */
  readonly samples: number;
}

/** Shortest span a burn rate is computed over, ms: below it the rate is too noisy to show. */
export const MIN_RATE_SPAN_MS = 30_000;
/**
 * Part of its window a burn rate's readings must span (three quarters): until then the window is
 * "collecting". A rate over a shorter stretch is spend ÷ that stretch, not the window's: one $5
 * spend 6.5 minutes after a first start would read $45.8/h as "the hour's" rate. With the
 * readings ending at or before `now`, it also means the newest reading is at most a quarter of the
 * window old: an outage makes the short windows collect again rather than keep a stale rate.
 */
export const MIN_WINDOW_COVERAGE = 0.75;
/** Fewest readings a burn rate is computed from. */
export const MIN_RATE_READINGS = 3;

/**
 * The burn rate over the `windowMs` before `now` (epoch ms): the USD spent between consecutive
 * samples in the window, summed, per hour of the time those samples span. Between two samples
 * that both know `totalTopUp`, the spend is exact: Δ(totalTopUp − remaining) (the credit balance record "spent
 * so far"), so a top-up neither hides nor offsets spending; otherwise it is the balance's drop
 * (a rise counts as no spending). Undefined ("collecting") while fewer than
 * {@link MIN_RATE_READINGS} samples fall in the window or they span less than
 * {@link MIN_WINDOW_COVERAGE} of it (and never less than {@link MIN_RATE_SPAN_MS}).
 */
export function burnRate(samples: readonly BalanceSample[], windowMs: number, now: number): BurnRate | undefined {
  const from = now - windowMs;
  const inWindow = samples.filter((s) => s.t >= from && s.t <= now);
  if (inWindow.length < MIN_RATE_READINGS) return undefined;
  const spanMs = inWindow[inWindow.length - 1]!.t - inWindow[0]!.t;
  if (spanMs < MIN_RATE_SPAN_MS || spanMs < windowMs * MIN_WINDOW_COVERAGE) return undefined;
  // Drops are summed in integer micro-dollars so repeated float subtraction adds no noise.
  const micros = (usd: number) => Math.round(usd * 1e6);
  let dropMicros = 0;
  for (let i = 1; i < inWindow.length; i++) {
    const a = inWindow[i - 1]!;
    const b = inWindow[i]!;
    let drop = micros(a.remaining) - micros(b.remaining);
    if (a.totalTopUp !== undefined && b.totalTopUp !== undefined) drop += micros(b.totalTopUp) - micros(a.totalTopUp);
    if (drop > 0) dropMicros += drop;
  }
  const usdPerHour = dropMicros / 1e6 / (spanMs / 3_600_000);
  return { usdPerHour, spanMs, samples: inWindow.length };
}

/** When the balance runs out at a burn rate. */
export type RunOutProjection =
  /** No burn rate is known yet (too little history). */
  | { readonly kind: 'unknown' }
  /** Flat or rising: it never runs out at this rate. */
  | { readonly kind: 'never' }
  /** Already at or below zero. */
  | { readonly kind: 'empty' }
  /** At epoch ms `at`, `inMs` from now. */
  | { readonly kind: 'at'; readonly at: number; readonly inMs: number };

/** Rates below this many USD/hour count as flat. */
export const FLAT_RATE_USD_PER_HOUR = 1e-6;

/**
 * Projects when `remaining` USD runs out at `usdPerHour` from `now` (epoch ms): `empty` at or
 * below zero, `unknown` without a rate, `never` when the rate is flat (or negative), else `at`.
 */
export function projectRunOut(remaining: number, usdPerHour: number | undefined, now: number): RunOutProjection {
  if (remaining <= 0) return { kind: 'empty' };
  if (usdPerHour === undefined || !Number.isFinite(usdPerHour)) return { kind: 'unknown' };
  if (usdPerHour < FLAT_RATE_USD_PER_HOUR) return { kind: 'never' };
  const inMs = Math.round((remaining / usdPerHour) * 3_600_000);
  return { kind: 'at', at: now + inMs, inMs };
}

/** Everything the Billing pane and the monitor show about the trend. */
export interface BalanceTrend {
  /** Burn rate over the last 15 minutes (undefined until enough data). */
  readonly short?: BurnRate;
  /** Burn rate over the last hour (undefined until enough data). */
  readonly long?: BurnRate;
  /** Burn rate over the last 24 hours (undefined until enough data). */
  readonly day?: BurnRate;
  /** Burn rate over the last 7 days (undefined until enough data). */
  readonly week?: BurnRate;
  /** Run-out projection at the current rate: the 15-minute rate, else the hour's, the day's, the week's. */
  readonly runOut: RunOutProjection;
}

/**
 * The {@link BalanceTrend} of `history` at `now` for a current balance of `remaining` USD
 * (undefined: the newest reading's; none at all: the run-out is unknown).
 */
export function trendOf(history: BalanceHistory, remaining: number | undefined, now: number): BalanceTrend {
  const recent = history.since(now - WEEK_WINDOW_MS);
  const short = burnRate(recent, SHORT_WINDOW_MS, now);
  const long = burnRate(recent, LONG_WINDOW_MS, now);
  const day = burnRate(recent, DAY_WINDOW_MS, now);
  const week = burnRate(recent, WEEK_WINDOW_MS, now);
  const rate = short ?? long ?? day ?? week;
  const balance = remaining ?? history.latest()?.remaining;
  return {
    ...(short && { short }),
    ...(long && { long }),
    ...(day && { day }),
    ...(week && { week }),
    runOut: balance === undefined ? { kind: 'unknown' } : projectRunOut(balance, rate?.usdPerHour, now),
  };
}

/** A rise of `totalTopUp` between two readings: a top-up credited, USD. */
export interface TopUpMark {
  /** Epoch ms of the first reading that shows it. */
  readonly t: number;
  /** USD credited (the rise of `totalTopUp`). */
  readonly amount: number;
  /** `totalTopUp` after it, USD. */
  readonly totalTopUp: number;
}

/** The top-ups seen in `samples` (oldest first): each rise of `totalTopUp` between readings that both know it. */
export function topUpsIn(samples: readonly BalanceSample[]): TopUpMark[] {
  const out: TopUpMark[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!.totalTopUp;
    const b = samples[i]!.totalTopUp;
    if (a === undefined || b === undefined) continue;
    const cents = Math.round(b * 100) - Math.round(a * 100);
    if (cents > 0) out.push({ t: samples[i]!.t, amount: cents / 100, totalTopUp: b });
  }
  return out;
}

/**
 * The cell of {@link resample} (`cells` equal stretches of time from `from` to `to`) that a reading
 * at `t` falls in: the first whose end is at or after `t`, by the same arithmetic, so a mark put
 * there sits where the line takes the reading. Clamped to the cells.
 */
export function cellOf(t: number, from: number, to: number, cells: number): number {
  const n = Math.max(1, Math.floor(cells));
  const step = (to - from) / n;
  let c = Math.min(n - 1, Math.max(0, Math.ceil((t - from) / step) - 1));
  while (c > 0 && t <= from + c * step) c--;
  while (c < n - 1 && t > from + (c + 1) * step) c++;
  return c;
}

/**
 * `remaining` (USD) resampled onto `cells` equal stretches of time from `from` to `to` (epoch
 * ms): each cell holds the last reading at or before its end, or undefined before the first
 * reading (and when `samples` is empty). Pure; `samples` oldest first.
 */
export function resample(samples: readonly BalanceSample[], from: number, to: number, cells: number): (number | undefined)[] {
  const n = Math.max(0, Math.floor(cells));
  const out: (number | undefined)[] = new Array<number | undefined>(n).fill(undefined);
  if (n === 0 || to <= from) return out;
  const step = (to - from) / n;
  let j = 0;
  let last: number | undefined;
  for (let c = 0; c < n; c++) {
    const end = from + (c + 1) * step;
    while (j < samples.length && samples[j]!.t <= end) last = samples[j++]!.remaining;
    out[c] = last;
  }
  return out;
}
