/**
 * When the usage line's words change: `usageLineChangeAt` gives the first instant at which
 * `usageStatusLine` says something else, at the boundaries `ageWords` (rounding to the nearest
 * minute) and `durationWords` define, so a screen that wakes then draws the truth.
 */
import { describe, expect, it } from 'vitest';
import { accountAlertSentence, ageWords, usageLineChangeAt, usageStatusLine } from '../../src/billing/usageWords.js';
import { budgetState } from '../../src/billing/usageBudget.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const at = Date.UTC(2026, 10, 29, 12, 0, 40);

/** The times at which the line changes, from `from` to `to`, by following usageLineChangeAt (and the words at each). */
function changes(line: (now: number) => string, next: (now: number) => number | undefined, from: number, to: number): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  for (let t = next(from); t !== undefined && t <= to; t = next(t)) {
    // Each time given is a change: the words just before it are the ones at the time before.
    expect(line(t - 1)).toBe(out.at(-1)?.[1] ?? line(from));
    if (line(t) !== (out.at(-1)?.[1] ?? line(from))) out.push([t - at, line(t)]);
  }
  return out;
}

describe('the usage line changes its words', () => {
  it("at the age's own boundaries: just now until 60 s, 1 min ago until 90 s, 2 min ago until 150 s", () => {
    expect(ageWords(at, at + MIN - 1)).toBe('just now');
    expect(ageWords(at, at + MIN)).toBe('1 min ago');
    expect(ageWords(at, at + 90_000 - 1)).toBe('1 min ago');
    expect(ageWords(at, at + 90_000)).toBe('2 min ago');
    expect(ageWords(at, at + 150_000 - 1)).toBe('2 min ago');
    expect(ageWords(at, at + 150_000)).toBe('3 min ago');
    // A read is left: only the age moves.
    const state = budgetState([at], undefined, at);
    const line = (now: number) => usageStatusLine(at, { ...state, now });
    const next = (now: number) => usageLineChangeAt(at, { ...state, now });
    expect(next(at)).toBe(at + MIN);
    expect(next(at + 59_999)).toBe(at + MIN);
    expect(next(at + MIN)).toBe(at + 90_000);
    expect(next(at + 89_999)).toBe(at + 90_000);
    expect(changes(line, next, at, at + 4 * MIN)).toEqual([
      [MIN, 'usage 1 min ago · 11 of 12 reads left · next read now'],
      [90_000, 'usage 2 min ago · 11 of 12 reads left · next read now'],
      [150_000, 'usage 3 min ago · 11 of 12 reads left · next read now'],
      [210_000, 'usage 4 min ago · 11 of 12 reads left · next read now'],
    ]);
  });

  it('through the hours and days the age is said in, never missing a change', () => {
    const state = budgetState([at], undefined, at);
    const line = (now: number) => usageStatusLine(at, { ...state, now });
    const next = (now: number) => usageLineChangeAt(at, { ...state, now });
    const hours = changes(line, next, at + 59 * MIN, at + 61 * MIN + 29_000);
    expect(hours.map(([t, words]) => [t / 1000, words.split(' · ')[0]])).toEqual([
      [59.5 * 60, 'usage 1 h ago'],
      [60.5 * 60, 'usage 1 h 1 min ago'],
    ]);
    const days = changes(line, next, at + 47 * HOUR + 58 * MIN, at + 49 * HOUR + 30 * MIN);
    expect(days.map(([t, words]) => [t / MIN, words.split(' · ')[0]])).toEqual([
      [47 * 60 + 58.5, 'usage 47 h 59 min ago'],
      [47 * 60 + 59.5, 'usage 2 d ago'],
      [48 * 60 + 59.5, 'usage 2 d 1 h ago'],
    ]);
  });

  it('and, with no read left, at each step of the wait for the next', () => {
    // Twelve reads in the last 12 hours, the oldest 11 h 58 min ago: the next is allowed in 2 min.
    const calls = Array.from({ length: 12 }, (_, i) => at - 12 * HOUR + 2 * MIN + i * MIN);
    const state = budgetState(calls, undefined, at);
    expect(state.left).toBe(0);
    expect(state.nextAt).toBe(at + 2 * MIN);
    const line = (now: number) => usageStatusLine(at, { ...state, now });
    const next = (now: number) => usageLineChangeAt(at, { ...state, now });
    expect(line(at)).toBe('usage just now · no read left of 12 per 12 h · next in 2 min');
    const seen = changes(line, next, at, at + 2 * MIN);
    // The wait: "2 min" until 1 min 30 s is left, "1 min" until 60 s, then each second, then "now".
    expect(seen.slice(0, 3)).toEqual([
      [30_001, 'usage just now · no read left of 12 per 12 h · next in 1 min'],
      [MIN, 'usage 1 min ago · no read left of 12 per 12 h · next in 1 min'],
      [MIN + 1, 'usage 1 min ago · no read left of 12 per 12 h · next in 60 s'],
    ]);
    // Then 59 s … 0 s (60 more), the age's 2 min at 90 s among them, and "now".
    expect(seen.length).toBe(3 + 60 + 1 + 1);
    expect(seen).toContainEqual([90_000, 'usage 2 min ago · no read left of 12 per 12 h · next in 30 s']);
    expect(seen.at(-2)).toEqual([2 * MIN - 500 + 1, 'usage 2 min ago · no read left of 12 per 12 h · next in 0 s']);
    expect(seen.at(-1)).toEqual([2 * MIN, 'usage 2 min ago · no read left of 12 per 12 h · next now']);
    expect(next(at + 2 * MIN)).toBe(at + 150_000);
    // A 429's wait counts down the same way.
    const blocked = budgetState([at], at + 5 * MIN, at);
    expect(usageLineChangeAt(undefined, blocked)).toBe(at + 30_001);
    expect(usageLineChangeAt(undefined, budgetState([at], undefined, at))).toBeUndefined();
  });
});

describe('the account alert', () => {
  it('names the likely cause with the age of the usage read that found it', () => {
    const judgement = { usdPerHour: 6, baselineUsdPerHour: 0.5 };
    expect(accountAlertSentence(judgement)).toBe('the balance is falling $6.00/h, 12× its usual $0.50/h');
    expect(accountAlertSentence(judgement, { name: 'batch-jobs', age: ageWords(at, at + 3 * MIN) })).toBe(
      'the balance is falling $6.00/h, 12× its usual $0.50/h; likely cause: "batch-jobs", the top spender at the last usage read (3 min ago)',
    );
  });
});
