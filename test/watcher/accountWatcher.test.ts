/**
 * The account watcher (src/watcher/accountWatcher.ts), the one poll loop of the TUI, `monitor` and
 * the exporter: one request in flight, an immediate refresh queued behind it, exponential backoff
 * with jitter while failing, a 429's retryAfterMs honoured, the last data kept on failure,
 * everything stopped by stop(); the steps after a reading (keys and status when due, usage, auto
 * top-up on a task of its own), a history opened late, watchers side by side that never wait on
 * each other, and a snapshot whose slices change only when what they hold does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { KeydeckApiError } from '../../src/api/errors.js';
import type { ConsumptionKey, CreditBalance } from '../../src/api/schemas.js';
import { HistoryRecorder } from '../../src/billing/historyRecorder.js';
import { BalanceHistoryStore } from '../../src/billing/historyStore.js';
import type { Episode } from '../../src/billing/keyHistory.js';
import { credentialIdOf, UsageBudget, type BudgetState } from '../../src/billing/usageBudget.js';
import { UsageTracker, type UsageSnapshot } from '../../src/billing/usageTracker.js';
import { AccountWatcher } from '../../src/watcher/accountWatcher.js';
import { nextDelayMs } from '../../src/watcher/schedule.js';
import type { AccountEvent, WatcherClient } from '../../src/watcher/types.js';
import { sameUsage } from '../../src/watcher/usageSlice.js';

afterEach(() => {
  vi.useRealTimers();
});

const credits = (remaining: number, totalTopUp = 100): CreditBalance => ({ remaining, totalTopUp, creditKeyCount: 1 }) as CreditBalance;

/** A client whose balance reads are settled by hand (or by their abort, as the real client's). */
function controlledClient() {
  const calls: Array<{ resolve: (v: CreditBalance) => void; reject: (e: unknown) => void; signal: AbortSignal | undefined }> = [];
  const client: WatcherClient = {
    billing: {
      credits: (options) =>
        new Promise<CreditBalance>((resolve, reject) => {
          calls.push({ resolve, reject, signal: options?.signal });
          options?.signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
        }),
    },
  };
  return { client, calls };
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

describe('AccountWatcher: the balance poll', () => {
  it('keeps at most one request in flight and runs a refresh asked meanwhile right after it', async () => {
    const { client, calls } = controlledClient();
    const w = new AccountWatcher({ connect: () => ({ client }), intervalMs: 60_000 });
    w.start();
    await tick();
    expect(calls).toHaveLength(1);
    w.refresh();
    w.refresh();
    expect(calls).toHaveLength(1);
    calls[0]!.resolve(credits(1));
    await tick();
    expect(w.snapshot.poll.data?.remaining).toBe(1);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve(credits(2));
    await tick();
    expect(calls).toHaveLength(2);
    expect(w.snapshot.poll).toMatchObject({ data: { remaining: 2 }, failures: 0, inFlight: false });
    await w.stop();
  });

  it('keeps the last data while failing, counts failures from when they began, and backs off', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { client, calls } = controlledClient();
    const w = new AccountWatcher({ connect: () => ({ client }), intervalMs: 1000, jitter: 0, maxBackoffMs: 4000 });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    calls[0]!.resolve(credits(7));
    await vi.advanceTimersByTimeAsync(0);
    const failed = new KeydeckApiError('network_error', 'Could not reach the service.');
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(2);
    const since = Date.now();
    calls[1]!.reject(failed);
    await vi.advanceTimersByTimeAsync(0);
    expect(w.snapshot.poll).toMatchObject({ data: { remaining: 7 }, error: failed, failures: 1, failingSince: since });
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
    expect(w.snapshot.poll).toMatchObject({ data: { remaining: 7 }, failures: 3, failingSince: since });
    // Recovery clears the failure state.
    calls[4]!.resolve(credits(8));
    await vi.advanceTimersByTimeAsync(0);
    expect(w.snapshot.poll).toMatchObject({ data: { remaining: 8 }, failures: 0, error: undefined, failingSince: undefined });
    await w.stop();
  });

  it('waits as long as a 429 asks before polling again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { client, calls } = controlledClient();
    const w = new AccountWatcher({ connect: () => ({ client }), intervalMs: 1000, jitter: 0 });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    calls[0]!.reject(new KeydeckApiError('rate_limited', 'Too many requests.', { status: 429, retryAfterMs: 20_000 }));
    await vi.advanceTimersByTimeAsync(19_999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await w.stop();
  });

  it('stop() aborts the request in flight, clears its timer and ignores late results', async () => {
    const { client, calls } = controlledClient();
    const w = new AccountWatcher({ connect: () => ({ client }), intervalMs: 10 });
    let changes = 0;
    w.subscribe(() => changes++);
    w.start();
    await tick();
    const before = changes;
    const stopped = w.stop();
    expect(calls[0]!.signal?.aborted).toBe(true);
    calls[0]!.resolve(credits(1));
    await stopped;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toHaveLength(1);
    expect(changes).toBe(before);
    expect(w.snapshot.poll.data).toBeUndefined();
  });

  it('says why there is no connection, polls on at the interval, and connects again when asked', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { client, calls } = controlledClient();
    let available = false;
    let connects = 0;
    const events: AccountEvent[] = [];
    const w = new AccountWatcher({
      connect: () => {
        connects++;
        return available ? { client } : { unavailable: 'credential_missing', detail: 'no credential' };
      },
      intervalMs: 1000,
      jitter: 0,
    });
    w.on((e) => events.push(e));
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.snapshot.unavailable).toEqual({ unavailable: 'credential_missing', detail: 'no credential' });
    expect(events.map((e) => e.kind)).toEqual(['unavailable', 'polled']);
    available = true;
    await vi.advanceTimersByTimeAsync(1000);
    calls[0]!.resolve(credits(5));
    await vi.advanceTimersByTimeAsync(0);
    expect(w.snapshot.unavailable).toBeUndefined();
    expect(connects).toBe(2);
    // Connected: not asked again until told to.
    await vi.advanceTimersByTimeAsync(1000);
    calls[1]!.resolve(credits(5));
    await vi.advanceTimersByTimeAsync(0);
    expect(connects).toBe(2);
    w.reconnect();
    await vi.advanceTimersByTimeAsync(1000);
    expect(connects).toBe(3);
    await w.stop();
  });
});

describe('AccountWatcher: a credential replaced during a poll', () => {
  it('drops what a read with the old credential found (a refusal is no failure) and polls again at once with the new one', async () => {
    const old = controlledClient();
    const next = controlledClient();
    const clients = [old.client, next.client];
    const events: AccountEvent[] = [];
    const w = new AccountWatcher({ connect: () => ({ client: clients.shift()! }), intervalMs: 60_000 });
    w.on((e) => events.push(e));
    w.start();
    await tick();
    expect(old.calls).toHaveLength(1);
    // A token file rotated (SIGHUP), then the old key deleted while its read was in flight.
    w.reconnect();
    old.calls[0]!.reject(new KeydeckApiError('unauthorized', 'The key was refused.', { status: 401 }));
    await tick();
    await tick();
    expect(events.map((e) => e.kind)).not.toContain('failure');
    expect(w.snapshot.poll.failures).toBe(0);
    expect(next.calls).toHaveLength(1);
    next.calls[0]!.resolve(credits(7));
    await tick();
    expect(w.snapshot.poll.data?.remaining).toBe(7);
    // A reading through the old credential, ended after the swap, is not taken either.
    const third = controlledClient();
    clients.push(third.client);
    w.refresh();
    await tick();
    expect(next.calls).toHaveLength(2);
    w.reconnect();
    next.calls[1]!.resolve(credits(1));
    await tick();
    await tick();
    expect(w.snapshot.poll.data?.remaining).toBe(7);
    expect(third.calls).toHaveLength(1);
    await w.stop();
  });
});

describe('AccountWatcher: the steps after a reading', () => {
  it('reads the keys and the status only when due, and what a reading tells as events', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let remaining = 30;
    let total = 100;
    let keyReads = 0;
    let statusReads = 0;
    const client: WatcherClient = {
      billing: {
        credits: async () => credits(remaining, total),
        status: async () => {
          statusReads++;
          return { ok: true };
        },
      },
      keys: {
        list: async () => {
          keyReads++;
          return [{ id: 'k1' } as ConsumptionKey];
        },
      },
    };
    const events: AccountEvent[] = [];
    const w = new AccountWatcher({ connect: () => ({ client }), intervalMs: 1000, jitter: 0, keysEveryMs: 3000, statusEveryMs: 5000, alertBelowUsd: 20 });
    w.on((e) => events.push(e));
    w.start();
    for (let i = 0; i < 6; i++) {
      if (i === 2) remaining = 10;
      if (i === 4) total = 130;
      await vi.advanceTimersByTimeAsync(i === 0 ? 0 : 1000);
    }
    // Polls at 0..5 s: the keys at 0 and 3 s, the status at 0 and 5 s.
    expect(keyReads).toBe(2);
    expect(statusReads).toBe(2);
    expect(w.snapshot.keys.data).toEqual([{ id: 'k1' }]);
    expect(events.filter((e) => e.kind === 'low_balance')).toEqual([{ kind: 'low_balance', remaining: 10, threshold: 20, totalTopUp: 100 }]);
    expect(events.filter((e) => e.kind === 'top_up_credited')).toEqual([{ kind: 'top_up_credited', amount: 30, remaining: 10, totalTopUp: 130 }]);
    await w.stop();
  });

  it('runs auto top-up on a task of its own: a slow run never holds the next poll, and one run at a time', async () => {
    let reads = 0;
    const client: WatcherClient = { billing: { credits: async () => (reads++, credits(5)) } };
    let runs = 0;
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const w = new AccountWatcher({
      connect: () => ({ client }),
      intervalMs: 5,
      jitter: 0,
      autoTopUp: {
        runner: {
          afterReading: async () => {
            runs++;
            await gate;
            return {};
          },
        },
      },
    });
    const events: AccountEvent[] = [];
    w.on((e) => events.push(e));
    w.start();
    await vi.waitFor(() => expect(reads).toBeGreaterThanOrEqual(5));
    expect(runs).toBe(1);
    finish();
    await vi.waitFor(() => expect(events.some((e) => e.kind === 'auto_top_up')).toBe(true));
    await vi.waitFor(() => expect(runs).toBeGreaterThanOrEqual(2));
    await w.stop();
  });

  it('opens its history late and keeps the reading taken before it in it', async () => {
    const client: WatcherClient = { billing: { credits: async () => credits(42) } };
    let opened: HistoryRecorder | undefined;
    const w = new AccountWatcher({
      connect: () => ({ client }),
      intervalMs: 60_000,
      history: () => (opened = new HistoryRecorder({ history: { minSpacingMs: 0 } })),
    });
    w.start();
    await vi.waitFor(() => expect(opened).toBeDefined());
    await vi.waitFor(() => expect(w.snapshot.poll.data).toBeDefined());
    await vi.waitFor(() => expect(w.snapshot.trend.history).toBe(opened!.history));
    expect(opened!.history.latest()?.remaining).toBe(42);
    await w.stop();
  });

  it('says a history that cannot be opened, and keeps it in memory', async () => {
    const client: WatcherClient = { billing: { credits: async () => credits(42) } };
    const events: AccountEvent[] = [];
    const w = new AccountWatcher({
      connect: () => ({ client }),
      intervalMs: 60_000,
      history: () => {
        throw new Error('the disk is full');
      },
    });
    w.on((e) => events.push(e));
    w.start();
    await vi.waitFor(() => expect(events.some((e) => e.kind === 'history_unavailable')).toBe(true));
    await vi.waitFor(() => expect(w.snapshot.trend.history.latest()?.remaining).toBe(42));
    await w.stop();
  });
});

describe('AccountWatcher: several accounts at once', () => {
  it('one service that never answers holds back no other watcher', async () => {
    const hung: WatcherClient = {
      billing: { credits: (options) => new Promise((_, reject) => options?.signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))) },
    };
    let reads = 0;
    const healthy: WatcherClient = { billing: { credits: async () => (reads++, credits(9)) } };
    const a = new AccountWatcher({ connect: () => ({ client: hung }), intervalMs: 5, jitter: 0 });
    const b = new AccountWatcher({ connect: () => ({ client: healthy }), intervalMs: 5, jitter: 0 });
    a.start();
    b.start();
    await vi.waitFor(() => expect(reads).toBeGreaterThanOrEqual(10));
    expect(a.snapshot.poll.data).toBeUndefined();
    await Promise.all([a.stop(), b.stop()]);
  });

  it('polls within a limit shared by several watchers: a credential looked up counts as part of the poll', async () => {
    const limit = (await import('p-limit')).default(1);
    let inside = 0;
    let most = 0;
    const lookups: string[] = [];
    const watch = (name: string) =>
      new AccountWatcher({
        connect: async () => {
          inside++;
          most = Math.max(most, inside);
          lookups.push(name);
          await new Promise((r) => setTimeout(r, 30));
          inside--;
          return { client: { billing: { credits: async () => credits(1) } } };
        },
        intervalMs: 60_000,
        limit,
      });
    const all = ['a', 'b', 'c'].map(watch);
    for (const w of all) w.start();
    await vi.waitFor(() => expect(all.every((w) => w.snapshot.poll.data !== undefined)).toBe(true));
    expect(lookups.sort()).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
    await Promise.all(all.map((w) => w.stop()));
  });

  it('changes only the slice that changed: a reading leaves the usage, keys and status slices as they were', async () => {
    const client: WatcherClient = { billing: { credits: async () => credits(3) } };
    const w = new AccountWatcher({ connect: () => ({ client }), intervalMs: 60_000 });
    w.start();
    await vi.waitFor(() => expect(w.snapshot.poll.data).toBeDefined());
    const { usage, keys, status } = w.snapshot;
    w.refresh();
    const first = w.snapshot.poll.updatedAt;
    await vi.waitFor(() => expect(w.snapshot.poll.updatedAt).not.toBe(first));
    expect(w.snapshot.usage).toBe(usage);
    expect(w.snapshot.keys).toBe(keys);
    expect(w.snapshot.status).toBe(status);
    await w.stop();
  });
});

/**
 * A watcher whose usage tracker took up a kept answer without a read: a read a minute ago (another
 * keydeck's), its answer kept, so 11 reads are left and the next is allowed now, the schedule's
 * next over an hour away. `shift` moves the budget's clock on (ms). Its history store is closed and
 * removed when the test ends.
 */
async function watcherWithKeptAnswer() {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-watcher-usage-'));
  const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
  onTestFinished(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const clock = { shift: 0 };
  const budget = new UsageBudget(store.database, { clock: () => Date.now() + clock.shift });
  const origin = 'https://api.example.com';
  const credential = credentialIdOf(origin, 'mk_watcher_test');
  const at = Date.now() - 60_000;
  expect(budget.claim(credential, 'demand', 'list', at).granted).toBe(true);
  budget.keep(credential, 'list', at, [{ id: 'k1', name: 'batch-jobs', usage: { '24h': { spend: 3 } } }]);
  const list = vi.fn();
  const tracker = new UsageTracker({ client: { usage: { list, get: vi.fn(), keyInfo: vi.fn() } }, budget, credential, origin });
  const w = new AccountWatcher({ connect: () => ({ client: { billing: { credits: async () => credits(3) } }, usage: () => tracker }), intervalMs: 60_000 });
  const seen = { polls: 0 };
  const off = w.on((e) => void (e.kind === 'polled' && seen.polls++));
  onTestFinished(async () => {
    off();
    await w.stop();
  });
  w.start();
  await vi.waitFor(() => expect(w.snapshot.usage.available && seen.polls > 0).toBe(true));
  return { at, clock, list, tracker, w, seen };
}

describe('AccountWatcher: usage', () => {
  it('publishes no new usage slice for a scheduled read the schedule declines: what is shown is the same, so nothing is drawn again', async () => {
    const { at, list, tracker, w, seen } = await watcherWithKeptAnswer();
    // The kept answer, taken up without a read.
    const taken = w.snapshot.usage;
    expect(taken.snapshot.report?.keys.map((k) => k.id)).toEqual(['k1']);
    expect(taken.snapshot.at).toBe(at);
    // A poll with the tracker open: its scheduled read is declined (too recent), and the slice stays as it was.
    w.refresh();
    await vi.waitFor(() => expect(seen.polls).toBe(2));
    expect(tracker.snapshot.declined).toBe('recent');
    expect(list).not.toHaveBeenCalled();
    expect(w.snapshot.usage).toBe(taken);
  });

  it("publishes no new usage slice when only the budget's clock went into another minute: the next read is still allowed now", async () => {
    const { clock, list, tracker, w, seen } = await watcherWithKeptAnswer();
    const taken = w.snapshot.usage;
    expect(taken.snapshot.budget?.left).toBe(11);
    // Two minutes on: the refresh finds the next read "now" in another minute, the same to show.
    clock.shift += 120_000;
    w.refresh();
    await vi.waitFor(() => expect(seen.polls).toBe(2));
    expect(Math.floor(tracker.snapshot.budget!.nextAt / 60_000)).not.toBe(Math.floor(taken.snapshot.budget!.nextAt / 60_000));
    expect(w.snapshot.usage).toBe(taken);
    expect(list).not.toHaveBeenCalled();
  });
});

describe('sameUsage: what a usage slice shows', () => {
  const now = Date.UTC(2026, 10, 29, 12, 0, 30);
  const budget: BudgetState = { now, used: 1, left: 11, nextAt: now, nextAutoAt: now + 3_600_000 };
  const episode: Episode = { keyId: 'k1', kind: 'runaway', startedAt: now - 600_000, lastAt: now - 60_000, usdPerHour: 5, baselineUsdPerHour: 0.5 };
  const snapshot: UsageSnapshot = { at: now - 60_000, budget, episodes: new Map([['k1', episode]]) };

  it('is the same for a clock that moved on, the next read still now and the schedule in its minute', () => {
    expect(sameUsage(snapshot, { ...snapshot, budget: { ...budget, now: now + 120_000, nextAt: now + 120_000 } })).toBe(true);
    expect(sameUsage(snapshot, { ...snapshot, budget: { ...budget, nextAutoAt: now + 3_600_000 + 20_000 } })).toBe(true);
    expect(sameUsage(snapshot, { ...snapshot, episodes: new Map([['k1', { ...episode }]]) })).toBe(true);
  });

  it('differs for every change the screen shows: whose reads they are, the schedule, an episode’s figures', () => {
    // "11 of the account's 12 reads left" against "11 of 12 reads left".
    expect(sameUsage(snapshot, { ...snapshot, budget: { ...budget, shared: true } })).toBe(false);
    // The next automatic read in another minute, or due now (the Billing pane's "in 1 h", "at the next balance read").
    expect(sameUsage(snapshot, { ...snapshot, budget: { ...budget, nextAutoAt: now + 7_200_000 } })).toBe(false);
    expect(sameUsage(snapshot, { ...snapshot, budget: { ...budget, nextAutoAt: now } })).toBe(false);
    // The same key's episode at another rate (the alert's "$5.00/h" words).
    expect(sameUsage(snapshot, { ...snapshot, episodes: new Map([['k1', { ...episode, usdPerHour: 9 }]]) })).toBe(false);
    expect(sameUsage(snapshot, { ...snapshot, budget: { ...budget, left: 10 } })).toBe(false);
  });
});
