/**
 * The guardrails' figures (src/billing/guardrails.ts): UTC periods, which rule governs a key, what
 * a key spent in a period from the service's rolling figures and its earlier reads (never less
 * than it spent), the soft cap's worst case, and `maxAge` / `expiresIn`.
 */
import { describe, expect, it } from 'vitest';
import type { KeyUsage } from '../../src/api/usageSchemas.js';
import { budgetOf, budgetView, deadlines, matchesName, periodBounds, spendInPeriod } from '../../src/billing/guardrails.js';
import { budgetWords, overshootWords } from '../../src/billing/guardrailWords.js';
import type { KeyRule } from '../../src/config/guardrailRules.js';

const t = (iso: string) => Date.parse(iso);
const usage = (periods: Partial<Record<'24h' | '7d' | '30d' | 'total', number>>): KeyUsage => ({
  id: 'k1',
  periods: Object.fromEntries(Object.entries(periods).map(([p, spend]) => [p, { spend }])),
});

describe('periodBounds', () => {
  it('cuts days at UTC midnight, weeks on Monday, months on the 1st', () => {
    expect(periodBounds('day', t('2026-03-04T23:59:59Z'))).toEqual({ start: t('2026-03-04T00:00:00Z'), end: t('2026-03-05T00:00:00Z') });
    // 2026-03-01 is a Sunday: its week began on Monday 2026-02-23.
    expect(periodBounds('week', t('2026-03-01T12:00:00Z'))).toEqual({ start: t('2026-02-23T00:00:00Z'), end: t('2026-03-02T00:00:00Z') });
    expect(periodBounds('week', t('2026-03-02T00:00:00Z')).start).toBe(t('2026-03-02T00:00:00Z'));
    expect(periodBounds('month', t('2026-12-31T23:00:00Z'))).toEqual({ start: t('2026-12-01T00:00:00Z'), end: t('2027-01-01T00:00:00Z') });
    expect(periodBounds('month', t('2028-02-29T10:00:00Z')).end).toBe(t('2028-03-01T00:00:00Z'));
  });
});

describe('which rule governs a key', () => {
  const rules: KeyRule[] = [
    { name: 'web', budget: { limitUsd: 5, period: 'day', action: 'disable' } },
    { name: 'batch', maxAgeSeconds: 86_400 },
    { match: 'ci-*', budget: { limitUsd: 20, period: 'week', action: 'warn' } },
    { match: '*', budget: { limitUsd: 100, period: 'month', action: 'warn' } },
  ];
  it("its own budget first, then the first pattern that matches, in the file's order", () => {
    expect(budgetOf(rules, 'web')?.limitUsd).toBe(5);
    expect(budgetOf(rules, 'ci-nightly')?.limitUsd).toBe(20);
    expect(budgetOf(rules, 'batch')?.limitUsd).toBe(100);
    expect(budgetOf(rules, 'anything')?.limitUsd).toBe(100);
    expect(budgetOf(rules.slice(0, 3), 'anything')).toBeUndefined();
  });
  it('matches `*` and `?` only: every other character as written', () => {
    expect(matchesName('ci-?', 'ci-1')).toBe(true);
    expect(matchesName('ci-?', 'ci-12')).toBe(false);
    expect(matchesName('a.b', 'axb')).toBe(false);
    expect(matchesName('(x)+*', '(x)+y')).toBe(true);
  });
});

describe('spendInPeriod', () => {
  const midnight = t('2026-03-04T00:00:00Z');
  it('takes the least of what the reads allow: the total less the last read before the period, the rolling period that covers it, the total', () => {
    // Read at 01:00: $6 in the last 24 h, $106 in all; at 23:00 the day before the key had spent $100.
    const samples = [{ t: t('2026-03-03T23:00:00Z'), cum: 100 }];
    expect(spendInPeriod(midnight, usage({ '24h': 6, total: 106 }), samples, t('2026-03-04T01:00:00Z'))).toEqual({ usd: 6, basis: 'since_read' });
    // The day after, 23 h later: the $6 is still in the rolling 24 h, not in the new day.
    const next = t('2026-03-05T00:00:00Z');
    const later = [...samples, { t: t('2026-03-04T01:00:00Z'), cum: 106 }];
    expect(spendInPeriod(next, usage({ '24h': 6, total: 106 }), later, t('2026-03-05T00:30:00Z'))).toEqual({ usd: 0, basis: 'since_read' });
  });
  it('without an earlier read, the rolling period that covers the period so far, else the total', () => {
    expect(spendInPeriod(midnight, usage({ '24h': 6, '7d': 9, total: 40 }), [], t('2026-03-04T01:00:00Z'))).toEqual({ usd: 6, basis: '24h' });
    // A month on its 31st day: 30 days do not cover it, so the total bounds it.
    const month = t('2026-03-01T00:00:00Z');
    expect(spendInPeriod(month, usage({ '30d': 10, total: 12 }), [], t('2026-03-31T12:00:00Z'))).toEqual({ usd: 12, basis: 'total' });
  });
  it('knows nothing of a period before a read in it, and nothing of a key the read does not name', () => {
    expect(spendInPeriod(midnight, usage({ total: 50 }), [], t('2026-03-03T22:00:00Z'))).toEqual({ usd: 0, basis: 'no_read_yet' });
    expect(spendInPeriod(midnight, undefined, [], t('2026-03-04T01:00:00Z'))).toBeUndefined();
    expect(spendInPeriod(midnight, { id: 'k', periods: {}, refused: 'its spend is negative' }, [], t('2026-03-04T01:00:00Z'))).toBeUndefined();
  });
});

describe('budgetView', () => {
  const rule = { limitUsd: 5, period: 'day' as const, action: 'disable' as const };
  it("says the thresholds reached and the limit, and the soft cap's worst case before the next read", () => {
    const at = t('2026-03-04T10:00:00Z');
    const samples = [
      { t: t('2026-03-04T08:00:00Z'), cum: 2 },
      { t: at, cum: 4.2 },
    ];
    const view = budgetView(rule, { usage: usage({ '24h': 4.2, total: 4.2 }), samples, at, now: at + 60_000, nextReadAt: at + 72 * 60_000 });
    expect(view.ratio).toBeCloseTo(0.84);
    expect(view.crossed).toEqual([0.8]);
    expect(view.atLimit).toBe(false);
    // $1.10/h over the last reads, 72 minutes to the next: up to $1.32 unseen.
    expect(view.usdPerHour).toBeCloseTo(1.1);
    expect(view.overshootUsd).toBe(1.32);
    expect(view.end).toBe(t('2026-03-05T00:00:00Z'));
    expect(budgetWords(view, at + 60_000)).toBe(
      '$4.20 of $5.00 today (84 %); at the limit it disables the key until the period ends; resets 2026-03-05 00:00 UTC; up to $1.32 more before the next usage read (in 1 h 11 min)',
    );
    expect(overshootWords({ ...view, overshootUsd: undefined } as never, at)).toBeUndefined();
  });
  it("takes the rule's thresholds, else the account's, else 80 % and 95 %", () => {
    const at = t('2026-03-04T10:00:00Z');
    const f = { usage: usage({ '24h': 6 }), samples: [], at, now: at };
    expect(budgetView(rule, f).crossed).toEqual([0.8, 0.95]);
    expect(budgetView(rule, { ...f, thresholds: [0.5] }).crossed).toEqual([0.5]);
    expect(budgetView({ ...rule, thresholds: [0.9, 0.3] }, f).crossed).toEqual([0.3, 0.9]);
    expect(budgetView(rule, f).atLimit).toBe(true);
  });
});

describe('deadlines', () => {
  const key = { createdAt: '2026-01-01T00:00:00Z', keyType: 'credit' };
  it("passes maxAge and expiresIn from the key's creation, warned before", () => {
    const rule: KeyRule = { name: 'web', maxAgeSeconds: 90 * 86_400, expiresInSeconds: 30 * 86_400, warnBeforeSeconds: 3 * 86_400 };
    const [age, expiry] = deadlines(rule, key, t('2026-01-29T00:00:00Z'));
    expect(age).toMatchObject({ kind: 'age', state: 'ok', action: 'rotate', dueAt: t('2026-04-01T00:00:00Z') });
    expect(expiry).toMatchObject({ kind: 'expiry', state: 'warning', action: 'disable', dueAt: t('2026-01-31T00:00:00Z') });
    expect(deadlines(rule, key, t('2026-04-02T00:00:00Z')).map((d) => d.state)).toEqual(['due', 'due']);
    expect(deadlines({ ...rule, onMaxAge: 'flag' }, key, 0)[0]!.action).toBe('flag');
  });
  it('sets no expiry on a subscription key (its subscription ends it)', () => {
    expect(deadlines({ name: 's', expiresInSeconds: 86_400 }, { ...key, keyType: 'subscription' }, 0)).toEqual([]);
  });
});
