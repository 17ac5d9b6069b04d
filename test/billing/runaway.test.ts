/**
 * Runaway keys: the pure judgements (a key's rate against its own 7-day median, the
 * floor, a dormant key waking, the balance burning at N× its own baseline), the per-key history
 * in history.db (samples per read, retention, the 20 MB bound's unit of account), and the tracker
 * against the sandbox: a key made to spend 10× faster than its baseline (the sandbox clock moved
 * to give it one) is caught once per episode, across two processes' trackers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { BalanceHistoryStore, originOf } from '../../src/billing/historyStore.js';
import { KeyHistory } from '../../src/billing/keyHistory.js';
import { baselineOf, judgeAccount, judgeKey, keyBurnRate, median, type KeySample } from '../../src/billing/runaway.js';
import { accountSpend, sharePeriod, spendRows, topSpenders } from '../../src/billing/spend.js';
import { credentialIdOf, UsageBudget } from '../../src/billing/usageBudget.js';
import { UsageTracker } from '../../src/billing/usageTracker.js';
import type { UsageReport } from '../../src/api/usageSchemas.js';
import { startTestSandbox } from '../sandbox/helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 2, 2, 0, 0, 0);

/** Reads every `stepHours` for `count` reads, spending `usdPerHour` in between. */
function steady(count: number, stepHours: number, usdPerHour: number, start = T0, cum = 0): KeySample[] {
  return Array.from({ length: count }, (_, i) => ({ t: start + i * stepHours * HOUR, cum: cum + i * stepHours * usdPerHour }));
}

describe('judging a key', () => {
  it('catches a rate at 5× its 7-day median over the floor, and nothing below either', () => {
    const base = steady(12, 2, 0.5);
    const last = base[base.length - 1]!;
    expect(baselineOf(base, last.t)).toBeCloseTo(0.5);
    const spike = [...base, { t: last.t + 2 * HOUR, cum: last.cum + 2 * 5 }];
    expect(judgeKey(spike)).toMatchObject({ kind: 'runaway', usdPerHour: 5, baselineUsdPerHour: 0.5 });
    const fourTimes = [...base, { t: last.t + 2 * HOUR, cum: last.cum + 2 * 2 }];
    expect(judgeKey(fourTimes)).toBeUndefined();
    // 10× a tiny baseline, but below the $1/h floor.
    const small = steady(12, 2, 0.05);
    const s = small[small.length - 1]!;
    expect(judgeKey([...small, { t: s.t + 2 * HOUR, cum: s.cum + 2 * 0.5 }])).toBeUndefined();
    expect(judgeKey([...small, { t: s.t + 2 * HOUR, cum: s.cum + 2 * 0.5 }], { factor: 5, floorUsdPerHour: 0.25 })).toMatchObject({ kind: 'runaway' });
    // Too little history: no baseline, no judgement.
    expect(
      judgeKey([
        { t: T0, cum: 0 },
        { t: T0 + HOUR, cum: 0.5 },
        { t: T0 + 2 * HOUR, cum: 50 },
      ]),
    ).toBeUndefined();
  });

  it('catches a key dormant for 7 days that starts spending, at any rate', () => {
    const quiet = steady(8, 24, 0, T0, 3);
    const q = quiet[quiet.length - 1]!;
    expect(judgeKey([...quiet, { t: q.t + 2 * HOUR, cum: 3.05 }])).toMatchObject({ kind: 'dormant' });
    // Six quiet days are not dormant.
    expect(judgeKey([...steady(7, 24, 0, T0, 3), { t: T0 + 6 * DAY + 2 * HOUR, cum: 3.05 }])).toBeUndefined();
  });

  it('gives per-key burn rates over windows and the median', () => {
    const s = steady(13, 2, 0.25);
    expect(keyBurnRate(s, DAY)).toBeCloseTo(0.25);
    expect(keyBurnRate(s.slice(0, 1), DAY)).toBeUndefined();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it('catches the balance burning at N× its own hourly median, between usage reads', () => {
    const samples = [];
    // A week at $0.50/h, read every 5 minutes, then an hour at $6/h.
    let remaining = 500;
    const now = T0 + 7 * DAY;
    for (let t = T0; t <= now - HOUR; t += 5 * MIN) {
      samples.push({ t, remaining, totalTopUp: 500 });
      remaining -= 0.5 / 12;
    }
    const calm = judgeAccount(samples, now - HOUR);
    expect(calm).toBeUndefined();
    for (let t = now - HOUR + 5 * MIN; t <= now; t += 5 * MIN) {
      remaining -= 6 / 12;
      samples.push({ t, remaining, totalTopUp: 500 });
    }
    const hot = judgeAccount(samples, now);
    expect(hot?.usdPerHour).toBeGreaterThan(5);
    expect(hot?.baselineUsdPerHour).toBeCloseTo(0.5, 1);
  });
});

describe('spend rows', () => {
  const report: UsageReport = {
    keys: [
      { id: 'a', name: 'a-usage-name', periods: { '24h': { spend: 3 }, '30d': { spend: 20 } } },
      { id: 'b', periods: { '24h': { spend: 1 } } },
      { id: 'gone', name: 'old job', periods: { '24h': { spend: 0.5 } } },
      { id: 'big', keyType: 'credit', periods: { '24h': { spend: 1000 } } },
      { id: 'sub', keyType: 'subscription', periods: { '24h': { spend: 1000 } } },
      { id: 'bad', periods: {}, refused: 'bad: its usage.24h spend is negative, so keydeck shows no figures for this key' },
    ],
    periods: ['24h', '30d'],
    raw: null,
  };
  it('names keys from the list, marks deleted ones, refuses a credit key’s spend above the total top-ups', () => {
    const rows = spendRows(
      report,
      [
        { id: 'a', name: 'alpha' },
        { id: 'b', name: 'beta' },
        { id: 'big', name: 'big' },
        { id: 'sub', name: 'sub', keyType: 'subscription' },
        { id: 'bad', name: 'bad' },
      ],
      100,
    );
    expect(rows.map((r) => [r.name, r.status])).toEqual([
      ['alpha', 'listed'],
      ['beta', 'listed'],
      ['old job', 'deleted'],
      ['big', 'listed'],
      ['sub', 'listed'],
      ['bad', 'listed'],
    ]);
    expect(rows[3]!.refused).toBe("big: its 24h spend ($1,000.00) is larger than the account's total top-ups ($100.00), so keydeck shows no figures for this key");
    expect(rows[4]!.refused).toBeUndefined();
    expect(sharePeriod(report.periods)).toBe('24h');
    expect(accountSpend(rows, '24h')).toBe(1004.5);
    const top = topSpenders(rows, '24h', 3);
    expect(top.map((t) => [t.row.name, t.spend])).toEqual([
      ['sub', 1000],
      ['alpha', 3],
      ['beta', 1],
    ]);
    expect(top[1]!.share).toBeCloseTo(3 / 1004.5);
  });
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-runaway-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the per-key history', () => {
  it('keeps one sample per key per read, thins past 30 days to one a day, drops past 400 days', () => {
    const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
    try {
      const history = new KeyHistory(store.database, store.series('default', 'https://api.example.com').id);
      const report = (cum: number): UsageReport => ({
        keys: [
          { id: 'k', name: 'job', periods: { '24h': { spend: 1 }, total: { spend: cum } } },
          { id: 'r', periods: {}, refused: 'x' },
        ],
        periods: ['24h', 'total'],
        raw: null,
      });
      for (let i = 0; i < 40 * 12; i++) history.record(report(i), T0 + i * 2 * HOUR);
      const now = T0 + 40 * DAY;
      history.compact(now);
      const kept = history.samples('k');
      const recent = kept.filter((s) => s.t >= now - 30 * DAY);
      expect(recent.length).toBeGreaterThanOrEqual(30 * 12 - 1);
      expect(kept.length - recent.length).toBeLessThanOrEqual(11);
      expect(kept[kept.length - 1]).toEqual({ t: T0 + (40 * 12 - 1) * 2 * HOUR, cum: 40 * 12 - 1, d1: 1 });
      expect(history.samples('r')).toEqual([]);
      expect(history.names().get('k')).toBe('job');
      history.compact(now + 500 * DAY);
      expect(history.samples('k')).toEqual([]);
    } finally {
      store.close();
    }
  });
});

describe('the tracker against the sandbox', () => {
  it('catches a key spending 10× its baseline once per episode, across two trackers, and ends the episode', { timeout: 30_000 }, async () => {
    const sb = await startTestSandbox();
    const file = path.join(dir, 'history.db');
    const stores = [BalanceHistoryStore.open({ path: file }), BalanceHistoryStore.open({ path: file })];
    const token = await sb.fundedUser(500);
    const steadyKey = await sb.creditKey(token, 'steady');
    const calm = await sb.creditKey(token, 'calm');
    const clients = stores.map(() => new KeydeckClient({ baseUrl: sb.url, token }));
    const origin = originOf(sb.url);
    const trackers = stores.map(
      (s, i) =>
        new UsageTracker({
          client: clients[i]!,
          budget: new UsageBudget(s.database),
          credential: credentialIdOf(origin, token),
          origin,
          keyHistory: new KeyHistory(s.database, s.series('default', origin).id),
        }),
    );
    try {
      // A day of reads every 2 hours (sandbox clock): $1 per 2 h on "steady", a cent on "calm".
      for (let i = 0; i < 12; i++) {
        await sb.infer(steadyKey.apiKey, { sandbox_cost_usd: 1 });
        await sb.infer(calm.apiKey, { sandbox_cost_usd: 0.01 });
        // As the TUI does: a balance poll tells the client the service's clock (its Date header).
        await clients[0]!.billing.credits();
        const { alerts } = await trackers[0]!.refresh('auto');
        expect(alerts).toEqual([]);
        await sb.advance(2 * 3600);
      }
      // Ten times faster: $10 in the next 2 hours.
      await sb.infer(steadyKey.apiKey, { sandbox_cost_usd: 10 });
      await clients[0]!.billing.credits();
      const first = await trackers[0]!.refresh('auto');
      expect(first.alerts).toHaveLength(1);
      // The sandbox's clock is real time plus what the test advanced, and the service's Date header
      // counts whole seconds: a second that ticks between two reads makes those 2 hours 7,201 s.
      const rate = (usdPerHour: number) => expect.closeTo(usdPerHour, 2);
      expect(first.alerts[0]).toMatchObject({ keyId: steadyKey.id, name: 'steady', judgement: { kind: 'runaway', usdPerHour: rate(5), baselineUsdPerHour: rate(0.5) } });
      // The other process takes the kept answer up: the same episode, not told again.
      trackers[1]!.load();
      await sb.advance(60);
      await clients[1]!.billing.credits();
      const second = await trackers[1]!.refresh('auto');
      expect(second.alerts).toEqual([]);
      expect([...second.snapshot.episodes.keys()]).toEqual([steadyKey.id]);
      // Back to normal: the episode ends at the next read.
      await sb.advance(2 * 3600);
      await sb.infer(steadyKey.apiKey, { sandbox_cost_usd: 1 });
      await clients[0]!.billing.credits();
      const calmAgain = await trackers[0]!.refresh('auto');
      expect(calmAgain.alerts).toEqual([]);
      expect(calmAgain.snapshot.episodes.size).toBe(0);
    } finally {
      for (const c of clients) c.close();
      for (const s of stores) s.close();
      await sb.close();
    }
  });
});
