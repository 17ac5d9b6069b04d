/**
 * The balance history on disk: readings kept per profile and origin, retention (full
 * resolution 48 h, then thinned) that keeps spending and top-ups exact, a bounded file, a seeded
 * recorder that knows the trend at once, unsafe and broken files, two connections at once.
 */
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { burnRate, DAY_WINDOW_MS, RETENTION_TIERS, topUpsIn, trendOf, WEEK_WINDOW_MS, type BalanceSample } from '../../src/billing/history.js';
import { HistoryRecorder } from '../../src/billing/historyRecorder.js';
import { BalanceHistoryStore, historyDbPath, HistoryStoreError, originOf } from '../../src/billing/historyStore.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 2, 2, 9, 30, 0);

let dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'keydeck-history-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/**
 * `days` of polls every `stepMs` up to NOW: $0.50 spent per hour, a $50 top-up every 10 days,
 * starting from $100 topped up.
 */
function pollsOver(days: number, stepMs: number): BalanceSample[] {
  const out: BalanceSample[] = [];
  const start = NOW - days * DAY;
  for (let t = start; t <= NOW; t += stepMs) {
    const hours = (t - start) / HOUR;
    const totalTopUp = 100 + 50 * Math.floor((t - start) / (10 * DAY));
    const spent = Math.round(hours * 0.5 * 1e6) / 1e6;
    out.push({ t, remaining: Math.round((totalTopUp - spent) * 1e6) / 1e6, totalTopUp });
  }
  return out;
}

describe('the history database', () => {
  it('keeps readings per profile and service origin, in micro-dollars, in a 0600 file', () => {
    const file = path.join(tempDir(), 'data', 'history.db');
    const store = BalanceHistoryStore.open({ path: file });
    const a = store.series('default', originOf('https://api.example.com/v1/'));
    const b = store.series('default', originOf('http://127.0.0.1:8787'));
    a.append({ t: NOW, remaining: 24.999999, totalTopUp: 25 });
    a.append({ t: NOW + 15_000, remaining: 24.5, totalTopUp: 25 });
    b.append({ t: NOW, remaining: 3 });
    expect(a.load(0)).toEqual([
      { t: NOW, remaining: 24.999999, totalTopUp: 25 },
      { t: NOW + 15_000, remaining: 24.5, totalTopUp: 25 },
    ]);
    expect(b.load(0)).toEqual([{ t: NOW, remaining: 3 }]);
    expect(store.series('default', 'https://api.example.com').load(NOW + 1)).toEqual([{ t: NOW + 15_000, remaining: 24.5, totalTopUp: 25 }]);
    expect(store.list().map((s) => [s.profile, s.origin, s.readings])).toEqual([
      ['default', 'http://127.0.0.1:8787', 1],
      ['default', 'https://api.example.com', 2],
    ]);
    store.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('lives in the data dir (KEYDECK_DATA_DIR) unless KEYDECK_HISTORY_DB names the file', () => {
    expect(historyDbPath({ KEYDECK_DATA_DIR: '/tmp/kd-data' })).toBe('/tmp/kd-data/history.db');
    expect(historyDbPath({ KEYDECK_DATA_DIR: '/tmp/kd-data', KEYDECK_HISTORY_DB: '/tmp/h.db' })).toBe('/tmp/h.db');
  });

  it('after 30 days of 15 s polls keeps 48 h in full and thins the rest, with spend and top-ups exact', () => {
    const store = BalanceHistoryStore.open({ path: path.join(tempDir(), 'history.db') });
    const series = store.series('default', 'https://api.example.com');
    const polls = pollsOver(30, 15_000);
    series.appendMany(polls);
    const before = series.load(0);
    expect(before.length).toBe(polls.length);
    series.compact(NOW);
    const after = series.load(0);
    // 48 h of 15 s readings, then about one per 5 minutes for the 28 days before.
    const full = before.filter((s) => s.t >= NOW - RETENTION_TIERS[0]!.olderThanMs).length;
    expect(after.length).toBeLessThanOrEqual(full + (28 * DAY) / (5 * MIN) + 2);
    expect(after.length).toBeGreaterThan(full + (28 * DAY) / (5 * MIN) - 2);
    // The full-resolution part is untouched.
    expect(after.slice(-full)).toEqual(before.slice(-full));
    // Spend over the week and the day, and the top-ups, are what they were before thinning.
    expect(burnRate(after, WEEK_WINDOW_MS, NOW)!.usdPerHour).toBeCloseTo(0.5, 3);
    expect(burnRate(after, DAY_WINDOW_MS, NOW)!.usdPerHour).toBeCloseTo(0.5, 4);
    expect(topUpsIn(after).map((m) => m.amount)).toEqual([50, 50, 50]);
    // …each dated to within its 5-minute bucket.
    const seen = topUpsIn(before).map((m) => m.t);
    topUpsIn(after).forEach((m, i) => expect(m.t - seen[i]!).toBeLessThan(5 * MIN));
    // Thinning again changes nothing.
    expect(series.compact(NOW)).toBe(0);
    // Much older readings go (400 days).
    series.append({ t: NOW - 500 * DAY, remaining: 1 });
    series.compact(NOW);
    expect(series.load(0, NOW - 31 * DAY)).toEqual([]);
    store.checkpoint();
    // Bounded: well under 2 MB for a month of 15 s polling.
    expect(store.sizeBytes()).toBeLessThan(2 * 1024 * 1024);
    store.close();
  });

  it('a recorder seeded from it knows the 15 min, 1 h, 24 h and 7 d rates at once, and writes through', () => {
    const file = path.join(tempDir(), 'history.db');
    const store = BalanceHistoryStore.open({ path: file });
    const series = store.series('default', 'https://api.example.com');
    series.appendMany(pollsOver(8, 15_000));
    const recorder = new HistoryRecorder({ series, now: NOW + 15_000 });
    const latest = recorder.history.latest()!;
    const trend = trendOf(recorder.history, latest.remaining, NOW + 15_000);
    expect(trend.short!.usdPerHour).toBeCloseTo(0.5, 4);
    expect(trend.long!.usdPerHour).toBeCloseTo(0.5, 4);
    expect(trend.day!.usdPerHour).toBeCloseTo(0.5, 4);
    expect(trend.week!.usdPerHour).toBeCloseTo(0.5, 3);
    expect(trend.runOut.kind).toBe('at');
    // A top-up is not spending: the rate stays where it was.
    recorder.record(NOW + 30_000, latest.remaining + 100, latest.totalTopUp! + 100);
    expect(trendOf(recorder.history, latest.remaining + 100, NOW + 30_000).short!.usdPerHour).toBeCloseTo(0.5, 1);
    store.close();
    const again = BalanceHistoryStore.open({ path: file });
    expect(again.series('default', 'https://api.example.com').load(NOW + 30_000)).toEqual([{ t: NOW + 30_000, remaining: latest.remaining + 100, totalTopUp: latest.totalTopUp! + 100 }]);
    again.close();
  });

  it('two connections write and read the same file at once (WAL)', () => {
    const file = path.join(tempDir(), 'history.db');
    const one = BalanceHistoryStore.open({ path: file });
    const two = BalanceHistoryStore.open({ path: file });
    const a = one.series('p', 'https://x.example');
    const b = two.series('p', 'https://x.example');
    for (let i = 0; i < 200; i++) (i % 2 ? a : b).append({ t: NOW + i * 1000, remaining: 100 - i });
    a.compact(NOW + DAY);
    expect(b.load(0).length).toBe(200);
    expect(a.load(0).map((s) => s.remaining)).toEqual(Array.from({ length: 200 }, (_, i) => 100 - i));
    one.close();
    two.close();
  });

  it("bounds each connection's page cache to 256 KiB, a day of 2 s readings being more than that", () => {
    const file = path.join(tempDir(), 'history.db');
    const store = BalanceHistoryStore.open({ path: file });
    const day = pollsOver(1, 2_000);
    store.series('default', 'https://api.example.com').appendMany(day);
    store.checkpoint();
    // What the cache would hold by the end of a day at SQLite's default (2,000 KiB): every page written.
    expect(store.sizeBytes()).toBeGreaterThan(256 * 1024);
    const cacheKib = (s: BalanceHistoryStore) => -(s.database.prepare('PRAGMA cache_size').get() as { cache_size: number }).cache_size;
    expect(cacheKib(store)).toBe(256);
    // Every connection gets it, to a file another one made (the TUI beside `keydeck monitor`).
    const other = BalanceHistoryStore.open({ path: file });
    expect(cacheKib(other)).toBe(256);
    expect(other.series('default', 'https://api.example.com').load(0)).toEqual(day);
    store.close();
    other.close();
  });

  it('refuses a symbolic link, and moves a file that is not a database aside', () => {
    const dir = tempDir();
    const target = path.join(dir, 'elsewhere.db');
    writeFileSync(target, '');
    const link = path.join(dir, 'history.db');
    symlinkSync(target, link);
    expect(() => BalanceHistoryStore.open({ path: link })).toThrow(HistoryStoreError);
    expect(() => BalanceHistoryStore.open({ path: link })).toThrow(/not a regular file/);

    const broken = path.join(dir, 'broken.db');
    writeFileSync(broken, 'this is not a database, but someone may want it back\n'.repeat(100));
    const store = BalanceHistoryStore.open({ path: broken });
    store.series('p', 'https://x.example').append({ t: NOW, remaining: 1 });
    store.close();
    expect(readdirSync(dir).some((f) => f.startsWith('broken.db.broken-'))).toBe(true);
  });
});
