/**
 * Retry policy of the API client: which failures of a GET are retried, how long to wait
 * (capped exponential backoff with jitter), and `Retry-After` parsing. Pure functions, no I/O.
 * POST, PUT and DELETE are never retried (the client never calls into this for them).
 */

/** First backoff step, ms (before jitter). */
export const RETRY_BASE_DELAY_MS = 250;
/** Largest backoff step, ms (before jitter). */
export const RETRY_MAX_DELAY_MS = 4_000;

/**
 * Backoff before retry number `retry` (0 for the first retry), in ms: `min(cap, base · 2^retry)`
 * scaled by a random factor in [0.5, 1) ("equal jitter", so clients polling in lockstep spread
 * out while the wait never collapses to zero). `random` is injectable for tests.
 */
export function backoffDelayMs(retry: number, random: () => number = Math.random): number {
  return Math.round(backoffStepMs(retry) * (0.5 + random() * 0.5));
}

/** The shortest wait {@link backoffDelayMs} can give before retry number `retry`, ms. */
export function minBackoffDelayMs(retry: number): number {
  return Math.round(backoffStepMs(retry) * 0.5);
}

function backoffStepMs(retry: number): number {
  return Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** Math.max(0, retry));
}

/**
 * Longest wait keydeck accepts from a `Retry-After`, ms (one hour): a longer one means "wait the
 * maximum" (and the message says so, see failures.ts `formatWait`).
 */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/** Longest delay a Node timer holds (2^31 − 1 ms, 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * `ms` made a safe timer delay: a whole number from 0 to {@link MAX_TIMER_MS} (NaN gives 0).
 * Every `setTimeout` of keydeck whose delay is computed goes through it.
 */
export function clampTimerMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(MAX_TIMER_MS, Math.round(ms));
}

/**
 * Parses a `Retry-After` header value (RFC 9110 the service interface): delay-seconds (`"120"`) or an HTTP date.
 * Returns the wait in ms (0 for a date in the past), at most {@link MAX_RETRY_AFTER_MS}, or
 * undefined when absent or unparseable.
 */
export function parseRetryAfterMs(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_AFTER_MS, Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, at - now));
}
