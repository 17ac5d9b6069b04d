/**
 * The poller behind usePolling (header balance, Billing pane): one request in flight, an
 * immediate refresh queued behind it, exponential backoff with jitter while failing, a 429's
 * retryAfterMs honoured, the last data kept on failure, and everything stopped by stop().
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeydeckApiError } from '../../src/api/errors.js';
import { Poller, nextDelayMs } from '../../src/tui/hooks/poller.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A fetch whose calls are settled by hand. */
function controlledFetch<T>() {
  const calls: Array<{ resolve: (v: T) => void; reject: (e: unknown) => void; signal: AbortSignal }> = [];
  const fetch = (signal: AbortSignal) => new Promise<T>((resolve, reject) => calls.push({ resolve, reject, signal }));
  return { fetch, calls };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('nextDelayMs', () => {
  it('waits the interval while healthy and doubles it per failure up to the ceiling, spread by the jitter', () => {
    const d = (failures: number, random = 0.5) => nextDelayMs({ intervalMs: 1000, failures, maxBackoffMs: 8000, jitter: 0.1, random });
    expect([0, 1, 2, 3, 4, 5].map((f) => d(f))).toEqual([1000, 1000, 2000, 4000, 8000, 8000]);
    expect(d(0, 0)).toBe(900);
    expect(d(0, 0.999_999)).toBe(1100);
  });

  it('never retries before a 429 asks', () => {
    expect(nextDelayMs({ intervalMs: 1000, failures: 1, maxBackoffMs: 8000, jitter: 0.1, random: 0.5, retryAfterMs: 30_000 })).toBe(30_000);
  });
});

describe('Poller', () => {
  it('keeps at most one request in flight and runs a refresh asked meanwhile right after it', async () => {
    const { fetch, calls } = controlledFetch<number>();
    const p = new Poller({ fetch, intervalMs: 60_000 });
    p.start();
    expect(calls).toHaveLength(1);
    p.refresh();
    p.refresh();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve(1);
    await tick();
    expect(p.getState().data).toBe(1);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve(2);
    await tick();
    expect(calls).toHaveLength(2);
    expect(p.getState()).toMatchObject({ data: 2, failures: 0, inFlight: false });
    p.stop();
  });

  it('keeps the last data while failing, counts failures from when they began, and backs off', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { fetch, calls } = controlledFetch<number>();
    const p = new Poller({ fetch, intervalMs: 1000, jitter: 0, maxBackoffMs: 4000 });
    p.start();
    calls[0]!.resolve(7);
    await vi.advanceTimersByTimeAsync(0);
    const failed = new KeydeckApiError('network_error', 'Could not reach the service.');
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(2);
    const since = Date.now();
    calls[1]!.reject(failed);
    await vi.advanceTimersByTimeAsync(0);
    expect(p.getState()).toMatchObject({ data: 7, error: failed, failures: 1, failingSince: since });
    // Second try after 1 s, third after 2 s more, fourth after 4 s more (the ceiling).
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(3);
    calls[2]!.reject(failed);
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(4);
    calls[3]!.reject(failed);
    await vi.advanceTimersByTimeAsync(3999);
    expect(calls).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(5);
    expect(p.getState()).toMatchObject({ data: 7, failures: 3, failingSince: since });
    // Recovery clears the failure state.
    calls[4]!.resolve(8);
    await vi.advanceTimersByTimeAsync(0);
    expect(p.getState()).toMatchObject({ data: 8, failures: 0, error: undefined, failingSince: undefined });
    p.stop();
  });

  it('waits as long as a 429 asks before polling again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { fetch, calls } = controlledFetch<number>();
    const p = new Poller({ fetch, intervalMs: 1000, jitter: 0 });
    p.start();
    calls[0]!.reject(new KeydeckApiError('rate_limited', 'Too many requests.', { status: 429, retryAfterMs: 20_000 }));
    await vi.advanceTimersByTimeAsync(19_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    p.stop();
  });

  it('stop() aborts the request in flight, clears its timer and ignores late results', async () => {
    const { fetch, calls } = controlledFetch<number>();
    const p = new Poller({ fetch, intervalMs: 10 });
    let changes = 0;
    p.subscribe(() => changes++);
    p.start();
    const before = changes;
    p.stop();
    expect(calls[0]!.signal.aborted).toBe(true);
    calls[0]!.resolve(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toHaveLength(1);
    expect(changes).toBe(before);
    expect(p.getState().data).toBeUndefined();
  });
});
