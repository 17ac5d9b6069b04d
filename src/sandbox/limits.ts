/**
 * The service's limits limits of the stand-in inference endpoint, per key, on the sandbox clock:
 * requests per minute and tokens per minute over a sliding 60-second window, and concurrent
 * requests of pool subscription keys. Refusals are SandboxError `rate_limited` (429) with the
 * seconds to wait (`Retry-After`). State lives in memory (a restart forgets the windows).
 */
import type { ConsumptionKeyRow } from './keys.js';
import { SandboxError } from './errors.js';

/** The limits of one key. */
export interface KeyLimits {
  /** Requests per minute. */
  requestsPerMinute: number;
  /** Tokens per minute, or null when spend is tracked in USD instead (credit keys). */
  tokensPerMinute: number | null;
  /** Requests in flight at once, or null for no bound. */
  concurrency: number | null;
}

/** Length of a rate window, ms. */
export const RATE_WINDOW_MS = 60_000;

/**
 * The service's limits table: credit 60 rpm; standard 60 rpm and 3,333 tpm; pro 200 rpm and 13,333 tpm; pool
 * subscriptions 2 concurrent. `pool`: a pool key as the current pages describe it (unlimited
 * inside its blocks, 1 concurrent request: https://cheapestinference-docs.pages.dev/guides/per-key-plans/).
 */
export const LIMITS: Readonly<Record<'credit' | 'standard' | 'pro' | 'pool', KeyLimits>> = {
  credit: { requestsPerMinute: 60, tokensPerMinute: null, concurrency: null },
  standard: { requestsPerMinute: 60, tokensPerMinute: 3_333, concurrency: 2 },
  pro: { requestsPerMinute: 200, tokensPerMinute: 13_333, concurrency: 2 },
  pool: { requestsPerMinute: Number.POSITIVE_INFINITY, tokensPerMinute: null, concurrency: 1 },
};

/** The limits that apply to a key (an unknown subscription plan gets the standard ones). */
export function limitsOf(key: Pick<ConsumptionKeyRow, 'key_type' | 'key_plan'>): KeyLimits {
  if (key.key_type === 'credit') return LIMITS.credit;
  return key.key_plan === 'pro' ? LIMITS.pro : LIMITS.standard;
}

interface Window {
  /** Accepted request times, ascending (epoch ms). */
  requests: number[];
  /** Accepted token counts with their times, ascending. */
  tokens: Array<{ at: number; count: number }>;
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Sliding-window rate limiter and in-flight counter, keyed by consumption key id. */
export class RateLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #inFlight = new Map<string, number>();

  #window(keyId: string, now: number): Window {
    let w = this.#windows.get(keyId);
    if (!w) {
      w = { requests: [], tokens: [] };
      this.#windows.set(keyId, w);
    }
    const horizon = now - RATE_WINDOW_MS;
    let r = 0;
    while (r < w.requests.length && w.requests[r]! <= horizon) r++;
    if (r) w.requests.splice(0, r);
    let t = 0;
    while (t < w.tokens.length && w.tokens[t]!.at <= horizon) t++;
    if (t) w.tokens.splice(0, t);
    return w;
  }

  /**
   * Throws when a request of `tokens` (estimated) by `keyId` at `now` (ms) would break
   * `limits`: SandboxError `rate_limited` (429, `retryAfterSeconds` set) for concurrency,
   * requests/min or tokens/min; `invalid_request` (400) when the request alone needs more
   * tokens than a whole minute allows (waiting would never help). Changes nothing.
   */
  check(keyId: string, limits: KeyLimits, tokens: number, now: number): void {
    if (limits.concurrency !== null && (this.#inFlight.get(keyId) ?? 0) >= limits.concurrency) {
      throw new SandboxError(
        'rate_limited',
        `this subscription key already has ${limits.concurrency} ${limits.concurrency === 1 ? 'request' : 'requests'} in flight (pool subscriptions allow ${limits.concurrency} concurrent ${limits.concurrency === 1 ? 'request' : 'requests'} per key)`,
        { retryAfterSeconds: 1 },
      );
    }
    const w = this.#window(keyId, now);
    if (w.requests.length >= limits.requestsPerMinute) {
      const oldest = w.requests[w.requests.length - limits.requestsPerMinute]!;
      throw new SandboxError('rate_limited', `rate limit reached: ${limits.requestsPerMinute} requests per minute for this key`, {
        retryAfterSeconds: seconds(oldest + RATE_WINDOW_MS - now),
      });
    }
    const tpm = limits.tokensPerMinute;
    if (tpm === null) return;
    if (tokens > tpm) {
      throw new SandboxError('invalid_request', `messages: this request needs about ${tokens} tokens, more than this key's ${tpm} tokens per minute`, { field: 'messages' });
    }
    let used = 0;
    for (const entry of w.tokens) used += entry.count;
    if (used + tokens <= tpm) return;
    let toFree = used + tokens - tpm;
    let at = now;
    for (const entry of w.tokens) {
      toFree -= entry.count;
      at = entry.at;
      if (toFree <= 0) break;
    }
    throw new SandboxError('rate_limited', `rate limit reached: ${tpm} tokens per minute for this key`, {
      retryAfterSeconds: seconds(at + RATE_WINDOW_MS - now),
    });
  }

  /**
   * Records an accepted request (after {@link check} passed, in the same synchronous step) and
   * takes one in-flight slot; call the returned function once when the answer is sent.
   */
  admit(keyId: string, tokens: number, now: number): () => void {
    const w = this.#window(keyId, now);
    w.requests.push(now);
    w.tokens.push({ at: now, count: tokens });
    this.#inFlight.set(keyId, (this.#inFlight.get(keyId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inFlight.get(keyId) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(keyId, left);
      else this.#inFlight.delete(keyId);
    };
  }
}
