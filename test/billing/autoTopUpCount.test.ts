/**
 * What auto top-up counts (src/billing/autoTopUpCount.ts), from the billing status's lists as
 * src/billing/serviceTopUps.ts reads them and this machine's record: the caps count every card
 * charge once, whoever made it; the failures in a row are counted on the service's clock; a top-up
 * that appeared since a reading, and another charge made before this one, are found; and the
 * settle wait's bounds are read from their variable.
 */
import { describe, expect, it } from 'vitest';
import { appearedSince, chargedSince, countFrom, earlierCharge, listedFailureStreak, recordFailureStreak } from '../../src/billing/autoTopUpCount.js';
import type { JournalEntry } from '../../src/billing/journal.js';
import { listedTopUps } from '../../src/billing/serviceTopUps.js';
import { settleBounds } from '../../src/config/autoTopUp.js';

const CARD = new Set(['card_direct', 'stripe_direct']);
const T0 = Date.parse('2026-11-28T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

let n = 0;
function record(fields: Partial<JournalEntry>): JournalEntry {
  n++;
  return { id: `r${n}`, createdAt: at(0), updatedAt: at(0), amount: 30, method: 'card_direct', state: 'credited', host: 'h', profile: 'p', ...fields };
}

/** A status in the sandbox's shape. */
function status(lists: { pending?: object[]; recent?: object[]; failed?: object[] }): unknown {
  return { pendingTopUps: lists.pending ?? [], recentTopUps: lists.recent ?? [], failedTopUps: lists.failed ?? [] };
}
const paid = (paymentId: string, minutes: number, amount = 30, method = 'card_direct') => ({ method, status: 'succeeded', amount, paymentId, createdAt: at(minutes), completedAt: at(minutes) });
const declined = (paymentId: string, minutes: number) => ({ method: 'card_direct', status: 'declined', amount: 30, paymentId, createdAt: at(minutes) });

describe('the caps count every card charge once, whoever made it', () => {
  it('the service’s card charges (credited or in flight), and this machine’s that it does not list yet', () => {
    const listed = listedTopUps(
      status({
        recent: [paid('pi_other', 10), paid('pi_mine', 20), paid('0xusdc', 30, 50, 'usdc'), paid('pi_yesterday', -60)],
        pending: [{ method: 'card_direct', status: 'pending', amount: 30, paymentId: 'pi_lagging', createdAt: at(40) }],
      }),
    );
    const records = [
      record({ paymentId: 'pi_mine', autoTopUp: { decidedAt: at(20), remaining: 15, belowUsd: 20 } }),
      // A charge made here by hand, on record and listed: counted once.
      record({ paymentId: 'pi_other' }),
      // In flight here, not listed yet: counted.
      record({ state: 'verifying', paymentId: 'pi_unlisted', createdAt: at(45) }),
      // Refused and closed charges are no money.
      record({ state: 'refused', createdAt: at(46) }),
      record({ state: 'closed', createdAt: at(47) }),
    ];
    // pi_other, pi_mine, pi_lagging, pi_unlisted: not the USDC top-up, nor yesterday's.
    expect(chargedSince(records, listed, CARD, T0)).toBe(120);
    // Without the service's list: this machine's record alone, auto or by hand.
    expect(chargedSince(records, listedTopUps({}), CARD, T0)).toBe(90);
  });

  it('a charge whose answer was lost counts once: the listed charge it probably is stands for it', () => {
    const listed = listedTopUps(status({ recent: [paid('pi_lost', 5)] }));
    const lost = record({ state: 'verifying', autoTopUp: { decidedAt: at(5), remaining: 15, belowUsd: 20 } });
    expect(chargedSince([lost], listed, CARD, T0)).toBe(30);
    expect(chargedSince([lost], listedTopUps({}), CARD, T0)).toBe(30);
  });
});

describe('failures in a row, on the service’s clock', () => {
  it('this machine’s auto charges in the order they were decided (the service’s time), not recorded (this clock)', () => {
    const since = at(10);
    // Recorded by a clock two hours behind: createdAt before `since`, decided after it.
    const refused = (minute: number) => record({ state: 'refused', createdAt: at(minute - 120), autoTopUp: { decidedAt: at(minute), remaining: 15, belowUsd: 20 } });
    expect(recordFailureStreak([refused(11), refused(12), refused(13)], since)).toBe(3);
    expect(recordFailureStreak([refused(9), refused(12)], since)).toBe(1);
    const credited = record({ autoTopUp: { decidedAt: at(12.5), remaining: 15, belowUsd: 20 } });
    expect(recordFailureStreak([refused(11), refused(12), credited, refused(13)], since)).toBe(1);
  });

  it('the declines the service lists, whoever made them, until a card charge that went through; none where it lists none', () => {
    const since = at(10);
    const listed = listedTopUps(status({ recent: [paid('pi_ok', 12)], failed: [declined('d1', 11), declined('d2', 13), declined('d3', 14), declined('d0', 9)] }));
    expect(listedFailureStreak(listed, CARD, since)).toBe(2);
    expect(listedFailureStreak(listedTopUps(status({ failed: [declined('d1', 11), declined('d2', 13), declined('d3', 14)] })), CARD, since)).toBe(3);
    expect(listedFailureStreak(listedTopUps({ creditBalance: 3 }), CARD, since)).toBe(0);
  });

  it('a policy set or resumed counts from after every failure already known, and from now less the clock’s second', () => {
    const listed = listedTopUps(status({ failed: [declined('d1', 11)] }));
    expect(countFrom(T0 + 11 * 60_000 + 500, listed, [])).toBe(new Date(T0 + 11 * 60_000 + 1).toISOString());
    expect(countFrom(T0 + 20 * 60_000, listed, [])).toBe(new Date(T0 + 20 * 60_000 - 1000).toISOString());
    // A time far ahead of the service's clock is not believed.
    expect(countFrom(T0, listedTopUps(status({ failed: [declined('d9', 600)] })), [])).toBe(new Date(T0 - 1000).toISOString());
  });
});

describe('what appeared since a reading, and who charged first', () => {
  const seen = listedTopUps(status({ recent: [paid('pi_old', 1)], pending: [{ method: 'card_direct', status: 'pending', amount: 30, paymentId: 'pi_lag', createdAt: at(2) }] }));

  it('a top-up the later reading lists and the earlier did not; one that went from pending to credited is not new', () => {
    const after = listedTopUps(status({ recent: [paid('pi_old', 1), paid('PI_LAG', 2), paid('pi_new', 3)] }));
    expect(appearedSince(seen, after).map((t) => t.reference)).toEqual(['pi_new']);
    expect(appearedSince(seen, seen)).toEqual([]);
  });

  it('another card charge asked for before this one makes this one the later; after it, or this machine’s own, it does not', () => {
    const after = listedTopUps(status({ recent: [paid('pi_old', 1), paid('pi_a', 5), paid('pi_b', 6), paid('pi_hand', 4)] }));
    expect(earlierCharge(seen, after, 'pi_b', new Set(['pi_hand']), CARD)?.reference).toBe('pi_a');
    expect(earlierCharge(seen, after, 'pi_a', new Set(['pi_hand']), CARD)).toBeUndefined();
    // This charge not listed: nothing orders the two.
    expect(earlierCharge(seen, after, 'pi_unknown', new Set(), CARD)).toBeUndefined();
    // Asked for in the same millisecond: both readers order them by reference.
    const tie = listedTopUps(status({ recent: [paid('pi_x', 7), paid('pi_y', 7)] }));
    expect(earlierCharge(seen, tie, 'pi_y', new Set(), CARD)?.reference).toBe('pi_x');
    expect(earlierCharge(seen, tie, 'pi_x', new Set(), CARD)).toBeUndefined();
  });
});

describe('KEYDECK_AUTOTOPUP_SETTLE_SECONDS', () => {
  it('MIN-MAX or one number of seconds, at most 600; by default 5 to 30', () => {
    expect(settleBounds({})).toEqual({ minMs: 5000, maxMs: 30_000 });
    expect(settleBounds({ KEYDECK_AUTOTOPUP_SETTLE_SECONDS: '0' })).toEqual({ minMs: 0, maxMs: 0 });
    expect(settleBounds({ KEYDECK_AUTOTOPUP_SETTLE_SECONDS: '2-12.5' })).toEqual({ minMs: 2000, maxMs: 12_500 });
    for (const bad of ['12-2', '601', '-1', 'soon', '1-2-3']) expect(settleBounds({ KEYDECK_AUTOTOPUP_SETTLE_SECONDS: bad }), bad).toHaveProperty('problem');
  });
});
