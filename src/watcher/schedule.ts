/**
 * When an account watcher (./accountWatcher.ts) polls next: the interval while the service
 * answers, doubled per failure up to a ceiling while it fails, never before a 429's
 * `Retry-After`, every delay spread by a random jitter so that many watchers (the exporter's
 * profiles, keydecks on several machines) do not poll in step. Pure functions.
 */
import { clampTimerMs, MAX_RETRY_AFTER_MS } from '../api/retry.js';

/** Shortest interval between two balance polls of a face, ms (`--interval` and `pollIntervalSeconds` are at least 2 s). */
export const MIN_POLL_INTERVAL_MS = 2000;

/** The default random spread of every delay, as a fraction (0.1: ± 10 %). */
export const DEFAULT_JITTER = 0.1;

/** A face's interval in ms from its setting in seconds, never below {@link MIN_POLL_INTERVAL_MS}. */
export function pollIntervalMs(seconds: number): number {
  return Math.max(MIN_POLL_INTERVAL_MS, seconds * 1000);
}

/** The ceiling of the backoff for `intervalMs`: two minutes, or the interval when it is longer. */
export function defaultMaxBackoffMs(intervalMs: number): number {
  return Math.max(intervalMs, 120_000);
}

/** The wait a failure asks for, ms (a `KeydeckApiError`'s `retryAfterMs`, from a 429's `Retry-After`), bounded; undefined when it asks none. */
export function retryAfterOf(error: unknown): number | undefined {
  const v = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(v, MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * The delay before the next poll, ms: `intervalMs` while healthy; while failing
 * `intervalMs × 2^(failures−1)` up to `maxBackoffMs`, and at least a 429's `retryAfterMs`;
 * then spread by ± `jitter` (`random` in [0, 1)). Never past what a Node timer holds.
 */
export function nextDelayMs(opts: { intervalMs: number; failures: number; maxBackoffMs: number; jitter: number; retryAfterMs?: number | undefined; random: number }): number {
  let base = opts.intervalMs;
  if (opts.failures > 0) base = Math.min(opts.maxBackoffMs, opts.intervalMs * 2 ** Math.min(opts.failures - 1, 30));
  const spread = base * opts.jitter * (opts.random * 2 - 1);
  let delay = base + spread;
  if (opts.retryAfterMs !== undefined) delay = Math.max(delay, opts.retryAfterMs);
  // A timer holds at most 24.8 days; past that Node fires it at once (a poll storm).
  return clampTimerMs(delay);
}
