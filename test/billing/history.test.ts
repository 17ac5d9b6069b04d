/**
 * The balance history, burn rates, run-out projection and low-balance crossings, from scripted
 * histories (no clock, no network).
 */
import { describe, expect, it } from 'vitest';
import { INITIAL_LOW_BALANCE_STATE, LowBalanceAlarm, observeBalance } from '../../src/billing/alert.js';
import { BalanceHistory, burnRate, DAY_WINDOW_MS, LONG_WINDOW_MS, projectRunOut, SHORT_WINDOW_MS, trendOf } from '../../src/billing/history.js';
import { HistoryRecorder } from '../../src/billing/historyRecorder.js';
import { judgeAccount } from '../../src/billing/runaway.js';
import { sparkline } from '../../src/billing/sparkline.js';

const MIN = 60_000;
const T0 = Date.UTC(2025, 10, 21, 12, 0, 0);

/** A history fed with `remaining(i)` every `stepMs` for `n` samples from T0. */
function scripted(n: number, stepMs: number, remaining: (i: number) => number, options = {}): BalanceHistory {
  const h = new BalanceHistory(options);
  for (let i = 0; i < n; i++) h.add(T0 + i * stepMs, remaining(i));
  return h;
}

describe('BalanceHistory', () => {
  it('keeps at most `capacity` samples, oldest dropped first', () => {
    const h = scripted(5000, 10_000, (i) => 100 - i * 0.01, { capacity: 100 });
    expect(h.size).toBe(100);
    expect(h.samples()[0]!.t).toBe(T0 + 4900 * 10_000);
    expect(h.latest()!.t).toBe(T0 + 4999 * 10_000);
  });

  it('coalesces samples closer than minSpacingMs, keeping the newest value', () => {
    const h = scripted(1000, 1000, (i) => 100 - i, { minSpacingMs: 5000 });
    // 1000 s of polls every second: about one stored sample per 5 s, and the latest value is always there.
    expect(h.size).toBeGreaterThan(150);
    expect(h.size).toBeLessThan(260);
    expect(h.latest()).toEqual({ t: T0 + 999_000, remaining: -899 });
    const s = h.samples();
    for (let i = 2; i < s.length; i++) expect(s[i]!.t - s[i - 2]!.t).toBeGreaterThanOrEqual(5000);
  });

  it('ignores samples from the past and non-finite values', () => {
    const h = new BalanceHistory();
    expect(h.add(T0, 10)).toBe(true);
    expect(h.add(T0 - 1, 9)).toBe(false);
    expect(h.add(T0 + 10_000, Number.NaN)).toBe(false);
    expect(h.size).toBe(1);
  });
});

describe('the history a running keydeck keeps in memory', () => {
  it('holds a day of 2 s polls in a few thousand samples, with the same rates and judgement as every reading', () => {
    // A day of polls every 2 s: spend at a varying rate, a $50 top-up every 6 hours.
    const recorder = new HistoryRecorder({ now: T0 });
    const every = new BalanceHistory();
    const polls = DAY_WINDOW_MS / 2000;
    let remaining = 500;
    let totalTopUp = 500;
    for (let i = 0; i < polls; i++) {
      const t = T0 + i * 2000;
      remaining -= (i % 900 < 300 ? 0.0004 : 0.0001) * (1 + ((i / 1800) % 3));
      if (i > 0 && i % 10_800 === 0) {
        remaining += 50;
        totalTopUp += 50;
      }
      const r = Math.round(remaining * 1e4) / 1e4;
      recorder.record(t, r, totalTopUp);
      every.add(t, r, totalTopUp);
    }
    const now = T0 + (polls - 1) * 2000;
    // Every reading of the last 2 hours (at the 5 s spacing), a minute's last one before.
    expect(every.size).toBeGreaterThan(17_000);
    expect(recorder.history.size).toBeLessThan(3500);
    const rates = (h: BalanceHistory) => trendOf(h, undefined, now);
    const kept = rates(recorder.history);
    const all = rates(every);
    expect(kept.short?.usdPerHour).toBe(all.short?.usdPerHour);
    expect(kept.long?.usdPerHour).toBe(all.long?.usdPerHour);
    // The same spend over a span that starts at most a minute later: within 0.1 % of the rate.
    const near = (a: number | undefined, b: number | undefined) => expect(Math.abs(a! - b!) / b!).toBeLessThan(1e-3);
    near(kept.day?.usdPerHour, all.day?.usdPerHour);
    const judge = (h: BalanceHistory) => judgeAccount(h.samples(), now, { factor: 1.1, floorUsdPerHour: 0 });
    near(judge(recorder.history)?.baselineUsdPerHour, judge(every)?.baselineUsdPerHour);
  });
});

describe('burn rate and projection', () => {
  it('spending $1 per minute is $60/h over both windows, and runs out at that rate', () => {
    // Two hours of polls every 15 s, $0.25 spent per poll.
    const h = scripted(481, 15_000, (i) => 200 - i * 0.25);
    const now = h.latest()!.t;
    const trend = trendOf(h, h.latest()!.remaining, now);
    expect(trend.short!.usdPerHour).toBeCloseTo(60, 6);
    expect(trend.long!.usdPerHour).toBeCloseTo(60, 6);
    expect(trend.long!.spanMs).toBe(LONG_WINDOW_MS);
    expect(h.latest()!.remaining).toBe(80);
    // $80 left at $60/h: 80 minutes.
    expect(trend.runOut).toEqual({ kind: 'at', at: now + 80 * MIN, inMs: 80 * MIN });
  });

  it('the 15-minute window follows a recent change of pace that the hour smooths out', () => {
    // 45 minutes flat, then 15 minutes at $2 per minute.
    const h = scripted(241, 15_000, (i) => (i <= 180 ? 100 : 100 - (i - 180) * 0.5));
    const now = h.latest()!.t;
    const trend = trendOf(h, h.latest()!.remaining, now);
    expect(trend.short!.usdPerHour).toBeCloseTo(120, 6);
    expect(trend.long!.usdPerHour).toBeCloseTo(30, 6);
    // The projection uses the current (15-minute) rate: $70 at $120/h = 35 minutes.
    expect(trend.runOut.kind).toBe('at');
    if (trend.runOut.kind === 'at') expect(trend.runOut.inMs).toBe(35 * MIN);
  });

  it('a flat or rising balance never runs out; a top-up is not negative spending', () => {
    const flat = scripted(100, 15_000, () => 42);
    expect(trendOf(flat, 42, flat.latest()!.t).runOut).toEqual({ kind: 'never' });
    const rising = scripted(100, 15_000, (i) => 10 + i);
    const r = trendOf(rising, rising.latest()!.remaining, rising.latest()!.t);
    expect(r.short!.usdPerHour).toBe(0);
    expect(r.runOut).toEqual({ kind: 'never' });
    // $1 per minute spent, with a $50 top-up in the middle. Knowing totalTopUp, the spend is
    // exact: $60/h. From `remaining` alone the interval holding the top-up looks like a rise
    // (no spending), never like negative spending: $59/h.
    const spend = (i: number) => i * 0.25;
    const total = (i: number) => 100 + (i >= 30 ? 50 : 0);
    const exact = new BalanceHistory();
    for (let i = 0; i < 61; i++) exact.add(T0 + i * 15_000, total(i) - spend(i), total(i));
    expect(burnRate(exact.samples(), SHORT_WINDOW_MS, exact.latest()!.t)!.usdPerHour).toBeCloseTo(60, 6);
    const remainingOnly = scripted(61, 15_000, (i) => total(i) - spend(i));
    expect(burnRate(remainingOnly.samples(), SHORT_WINDOW_MS, remainingOnly.latest()!.t)!.usdPerHour).toBeCloseTo(59, 6);
  });

  it('says nothing until the samples span three quarters of the window ("collecting"), then the window’s rate', () => {
    const h = scripted(2, 10_000, (i) => 10 - i);
    expect(burnRate(h.samples(), SHORT_WINDOW_MS, h.latest()!.t)).toBeUndefined();
    const young = scripted(21, 15_000, (i) => 50 - i * 0.1);
    expect(burnRate(young.samples(), LONG_WINDOW_MS, young.latest()!.t)).toBeUndefined();
    const covered = scripted(181, 15_000, (i) => 50 - i * 0.1);
    const rate = burnRate(covered.samples(), LONG_WINDOW_MS, covered.latest()!.t)!;
    expect(rate.spanMs).toBe(45 * MIN);
    expect(rate.usdPerHour).toBeCloseTo(24, 6);
  });

  it('one $5 spend 6.5 minutes after a first start: every window collecting, the run-out unknown (not $45.8/h)', () => {
    // A poll every minute from the start; the $5 is spent between the 6th and 7th reading.
    const h = new BalanceHistory({ minSpacingMs: 0 });
    for (let i = 0; i <= 6; i++) h.add(T0 + i * MIN, 100, 100);
    h.add(T0 + 6.5 * MIN, 95, 100);
    const trend = trendOf(h, 95, T0 + 6.5 * MIN);
    expect(trend.short).toBeUndefined();
    expect(trend.long).toBeUndefined();
    expect(trend.runOut).toEqual({ kind: 'unknown' });
    // Two readings 40 s apart with no spend say "collecting", not "$0.00/h, never".
    const two = new BalanceHistory({ minSpacingMs: 0 });
    two.add(T0, 20, 30);
    two.add(T0 + 40_000, 20, 30);
    expect(trendOf(two, 20, T0 + 40_000).runOut).toEqual({ kind: 'unknown' });
  });

  it('an outage: the short windows collect again instead of keeping a stale rate', () => {
    const h = scripted(61, MIN, (i) => 100 - i);
    const last = h.latest()!.t;
    expect(burnRate(h.samples(), SHORT_WINDOW_MS, last)!.usdPerHour).toBeCloseTo(60, 6);
    // No reading for 5 minutes: the 15-minute window's readings span 10 of its 15 minutes.
    expect(burnRate(h.samples(), SHORT_WINDOW_MS, last + 5 * MIN)).toBeUndefined();
    // No reading for 20 minutes: the hour's too.
    expect(burnRate(h.samples(), LONG_WINDOW_MS, last + 20 * MIN)).toBeUndefined();
  });

  it('an empty balance is "empty", not a time', () => {
    expect(projectRunOut(0, 10, T0)).toEqual({ kind: 'empty' });
    expect(projectRunOut(-0.5, undefined, T0)).toEqual({ kind: 'empty' });
    expect(projectRunOut(5, undefined, T0)).toEqual({ kind: 'unknown' });
    expect(projectRunOut(5, 0, T0)).toEqual({ kind: 'never' });
  });
});

describe('low-balance crossings', () => {
  it('fires once per downward crossing and re-arms when the balance is back at or above the threshold', () => {
    const alarm = new LowBalanceAlarm(10);
    const fired = [25, 15, 9.99, 9, 5, 5, 12, 11, 8, 7, 10, 9].map((r) => alarm.observe(r));
    expect(fired).toEqual([false, false, true, false, false, false, false, false, true, false, false, true]);
  });

  it('a first observation already below the threshold fires once', () => {
    const alarm = new LowBalanceAlarm(10);
    expect(alarm.observe(3)).toBe(true);
    expect(alarm.observe(3)).toBe(false);
    expect(alarm.low).toBe(true);
  });

  it('no threshold: never low, never fires; cents decide, not float noise', () => {
    expect(observeBalance(INITIAL_LOW_BALANCE_STATE, 0, undefined)).toEqual({ state: INITIAL_LOW_BALANCE_STATE, fire: false });
    expect(observeBalance(INITIAL_LOW_BALANCE_STATE, 0.1 + 0.2, 0.3).fire).toBe(false);
  });
});

describe('sparkline', () => {
  it('draws the lowest value as ▁ and the highest as █, one cell per value', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7], 20)).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([5, 5, 5], 10)).toBe('▄▄▄');
    expect(sparkline([], 10)).toBe('');
  });

  it('never exceeds its width', () => {
    const values = Array.from({ length: 1000 }, (_, i) => Math.sin(i / 30));
    expect([...sparkline(values, 37)]).toHaveLength(37);
  });
});
