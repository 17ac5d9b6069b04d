/**
 * When the words that move with the clock next change, as the Keys pane and the pane tabs wait for
 * it: never after the words change (a wait worked out to a later time leaves them wrong on screen),
 * and not long before it (each wake too early is a look for nothing). Swept over times before and
 * after each boundary a key's words have: its end (status, expiry, paid time left, the tabs'
 * notice), its last use (relative age), and the thresholds of each (3 days, 48 h, 1 h, 1 min).
 */
import { describe, expect, it } from 'vitest';
import type { ConsumptionKey } from '../../src/api/schemas.js';
import { keyDetailLines, keyDetailsChangeAt } from '../../src/tui/components/KeyDetails.js';
import { expiresIn, expiresInChangeAt, relativeAgo, relativeAgoChangeAt } from '../../src/tui/format.js';
import { expiredBy, keyRow, keyRowChangeAt, statusEnds, subscriptionNotice, subscriptionNoticeChangeAt } from '../../src/tui/panes/keys/keyRows.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-11-30T00:00:00.000Z');

/** Spans either side of each boundary of the words (ms from the boundary). */
const SPANS = [
  -3 * DAY - 1,
  -3 * DAY + 1,
  -2 * DAY - 7,
  -DAY - 1,
  -DAY + 1,
  -5 * HOUR - 123,
  -HOUR - 1,
  -HOUR + 1,
  -30 * MIN - 1,
  -MIN - 1,
  -MIN + 1,
  -1234,
  -1,
  0,
  1,
  1234,
  MIN + 1,
  HOUR - 1,
  HOUR + 1,
  DAY + 1,
  40 * DAY,
];

function subscription(endsIn: number, usedAgo?: number): ConsumptionKey {
  return {
    id: 'k1',
    name: 'web',
    keyType: 'subscription',
    keyPlan: 'standard',
    isActive: true,
    createdAt: new Date(NOW - 10 * DAY).toISOString(),
    subscriptionStatus: 'active',
    subscriptionExpiresAt: new Date(NOW + endsIn).toISOString(),
    ...(usedAgo !== undefined && { lastUsedAt: new Date(NOW - usedAgo).toISOString() }),
  } as ConsumptionKey;
}

/**
 * Follows `changeAt` from `now` for 4 days as the wake does (50 ms past each time given): the words
 * never change before the time given (they would be wrong on screen until it), and a wake that
 * finds them as they were is counted (`idle`: a look for nothing).
 */
function follow(words: (t: number) => string | undefined, changeAt: (t: number) => number | undefined, now: number): { changes: number; idle: number } {
  let t = now;
  let changes = 0;
  let idle = 0;
  for (let at = changeAt(t); at !== undefined && at < now + 4 * DAY; at = changeAt(t)) {
    expect(at).toBeGreaterThanOrEqual(t);
    // The words at `t` hold until the time given.
    if (at - 1 > t) expect(words(at - 1)).toBe(words(t));
    const next = at + 50;
    if (words(next) === words(t)) idle++;
    else changes++;
    t = next;
  }
  // Nothing moves after the last time given (within the 4 days).
  if (changeAt(t) === undefined) expect(words(now + 5 * DAY)).toBe(words(t));
  return { changes, idle };
}

describe('the next change of the words that move with the clock', () => {
  it("is never after a key's row, details or the tabs' notice change, and rarely before", () => {
    for (const end of SPANS) {
      for (const used of [undefined, 0, 59_999, 60_000, 61_000, HOUR - 1, DAY + 1]) {
        const key = subscription(end, used);
        const row = (t: number) => {
          const r = keyRow(key, false, t);
          return `${r.status}|${r.expires}`;
        };
        expect(follow(row, (t) => keyRowChangeAt(key, t), NOW).idle).toBe(0);
        const details = follow(
          (t) => keyDetailLines(key, t).join('\n'),
          (t) => keyDetailsChangeAt(key, t),
          NOW,
        );
        expect(details.idle).toBeLessThanOrEqual(details.changes);
        expect(
          follow(
            (t) => subscriptionNotice([key], t),
            (t) => subscriptionNoticeChangeAt([key], t),
            NOW,
          ).idle,
        ).toBe(0);
        // The compact notice counts hours only: the full one's minutes are looks for nothing there.
        follow(
          (t) => subscriptionNotice([key], t, true),
          (t) => subscriptionNoticeChangeAt([key], t),
          NOW,
        );
      }
    }
  });

  it('is never after the relative age or the time left of a timestamp changes', () => {
    for (const d of SPANS) {
      const iso = new Date(NOW + d).toISOString();
      expect(
        follow(
          (t) => relativeAgo(iso, t),
          (t) => relativeAgoChangeAt(iso, t),
          NOW,
        ).idle,
      ).toBe(0);
      // "in 1 min" through the last two minutes: one look for nothing.
      expect(
        follow(
          (t) => expiresIn(iso, t),
          (t) => expiresInChangeAt(iso, t),
          NOW,
        ).idle,
      ).toBeLessThanOrEqual(1);
    }
    expect(relativeAgoChangeAt(undefined, NOW)).toBeUndefined();
    expect(expiresInChangeAt('not a time', NOW)).toBeUndefined();
  });

  it('counts the keys expired by the clock for the order by status, and the next to expire', () => {
    const keys = [subscription(HOUR), subscription(-MIN), { ...subscription(DAY), subscriptionStatus: 'expired' } as ConsumptionKey, subscription(2 * HOUR)];
    const ends = statusEnds(keys);
    expect(ends).toEqual([NOW - MIN, NOW + HOUR, NOW + 2 * HOUR]);
    expect(expiredBy(ends, NOW)).toEqual({ count: 1, next: NOW + HOUR });
    expect(expiredBy(ends, NOW + HOUR)).toEqual({ count: 2, next: NOW + 2 * HOUR });
    expect(expiredBy(ends, NOW + 3 * HOUR)).toEqual({ count: 3, next: undefined });
  });
});
