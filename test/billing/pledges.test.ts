/**
 * src/billing/pledges.ts: which subscriptions and pool pledges have no key, why a key
 * may not be minted (one active key per subscription), a key's blocks by its `subscriptionId`,
 * and a block's end announced once per key and end.
 */
import { describe, expect, it } from 'vitest';
import type { BillingStatusSummary } from '../../src/api/reader.js';
import type { ConsumptionKey } from '../../src/api/schemas.js';
import { blocksOfKey, dueBlockEvents, keylessSubscriptions, mintRefusal } from '../../src/billing/pledges.js';
import { notificationText } from '../../src/terminal/notify.js';

const key = (id: string, extra: Partial<ConsumptionKey> & Record<string, unknown> = {}): ConsumptionKey =>
  ({ id, name: id, keyPlan: 'pool', keyType: 'subscription', isActive: true, createdAt: '2026-11-25T00:00:00Z', ...extra }) as ConsumptionKey;

const summary: BillingStatusSummary = {
  subscriptions: [{ id: 'sub1', plan: 'pro', status: 'active', keyCount: 0, keys: [] }],
  poolPledges: [
    { id: 'p1', pool: 'kimi26', status: 'active', hasKey: false, blocks: ['europe'] },
    { id: 'p2', pool: 'kimi26', status: 'active', hasKey: true, blocks: ['asia'] },
    { id: 'p3', pool: 'qwen', status: 'canceled', hasKey: false },
  ],
};

describe('pledges', () => {
  it('names the running ones without a key, unless a listed active key names them', () => {
    expect(keylessSubscriptions(summary).map((k) => [k.kind, k.id])).toEqual([
      ['pledge', 'p1'],
      ['subscription', 'sub1'],
    ]);
    expect(keylessSubscriptions(summary, [key('k1', { subscriptionId: 'p1' })]).map((k) => k.id)).toEqual(['sub1']);
    expect(keylessSubscriptions(undefined)).toEqual([]);
  });

  it('refuses a second key, an ended pledge and an unknown id; lets the service decide without a status', () => {
    expect(mintRefusal('p1', summary)).toBeUndefined();
    expect(mintRefusal('p2', summary)).toMatch(/already has its key/);
    expect(mintRefusal('p1', summary, [key('k1', { subscriptionId: 'p1', name: 'edge' })])).toMatch(/already has an active key, "edge"/);
    expect(mintRefusal('p1', summary, [key('k1', { subscriptionId: 'p1', isActive: false })])).toBeUndefined();
    expect(mintRefusal('p3', summary)).toMatch(/is canceled, not active/);
    expect(mintRefusal('nope', summary)).toMatch(/lists no subscription or pool pledge with id nope/);
    expect(mintRefusal('nope', undefined)).toBeUndefined();
  });

  it('finds a key’s blocks on its pledge (or on the key), and nothing when the service says none', () => {
    expect(blocksOfKey(key('k', { subscriptionId: 'p2' }), summary)).toEqual(['asia']);
    expect(blocksOfKey(key('k', { blocks: ['americas'] }), summary)).toEqual(['americas']);
    expect(blocksOfKey(key('k'), summary)).toBeUndefined();
  });

  it('announces a block’s end once, within 15 minutes of it, naming the next block', () => {
    const blocks: Record<string, string[]> = { a: ['europe'], b: ['europe', 'americas'] };
    const sent = new Set<string>();
    const at = Date.parse('2026-11-25T15:50:00Z');
    const events = dueBlockEvents([key('a'), key('b'), key('c')], (k) => blocks[k.id], at, sent);
    expect(events).toEqual([{ kind: 'block_ending', keyName: 'a', block: 'europe', minutesLeft: 10, nextBlock: 'europe' }]);
    expect(dueBlockEvents([key('a')], (k) => blocks[k.id], at + 60_000, sent)).toEqual([]);
    expect(dueBlockEvents([key('a')], (k) => blocks[k.id], Date.parse('2026-11-25T15:40:00Z'), new Set())).toEqual([]);
    expect(notificationText(events[0]!, 'default').body).toBe('"a": block europe ends in 10 min; its requests get 429 until europe starts');
  });
});
