/**
 * What the Keys pane knows of the account's subscriptions, from the billing status the
 * account data keeps (contexts/AccountDataContext.tsx `billingStatus`) and the key list: the
 * subscriptions and pool pledges without a key (src/billing/pledges.ts), why one may not get a
 * key now, the reserved blocks of a subscription key and where it stands in them at a time, and
 * the one line above the table that names what has no key. Nothing is guessed: a key whose
 * blocks the service does not say gets no reserved-hours status.
 */
import { useMemo } from 'react';
import { reservedHoursAt, reservedHoursText, type ReservedHours } from '../../../api/poolBlocks.js';
import type { ConsumptionKey } from '../../../api/schemas.js';
import { blocksOfKey, keylessSubscriptions, mintRefusal, type KeylessSubscription } from '../../../billing/pledges.js';
import { visible } from '../../../terminal/sanitize.js';
import { summarizeBillingStatus } from '../../../api/reader.js';
import { useAccountData } from '../../contexts/AccountDataContext.js';
import { useSession } from '../../contexts/SessionContext.js';

/** What {@link usePledges} gives the pane. */
export interface Pledges {
  /** Running subscriptions and pledges without a key. */
  readonly keyless: readonly KeylessSubscription[];
  /** Why a key must not be minted for `id` now, or undefined (the lists kept). */
  refusal(id: string): string | undefined;
  /**
   * The same on the keys and the billing status read afresh (what was kept when a read fails);
   * the lists kept are reloaded with them.
   */
  freshRefusal(id: string): Promise<string | undefined>;
  /** The key's reserved blocks, when the service says them. */
  blocksOf(key: ConsumptionKey): readonly string[] | undefined;
  /** Where the key stands in its blocks at `now`, or undefined when they are not known. */
  hoursOf(key: ConsumptionKey, now: number): ReservedHours | undefined;
  /** `in block europe, 3 h left` / `outside its blocks: next asia in 5 h`, or undefined. */
  hoursText(key: ConsumptionKey, now: number): string | undefined;
}

/** See {@link Pledges}. */
export function usePledges(): Pledges {
  const { keys, billingStatus } = useAccountData();
  const { client } = useSession();
  const summary = billingStatus.data ?? undefined;
  const list = keys.data;
  return useMemo(() => {
    const blocksOf = (key: ConsumptionKey) => (key.keyType === 'subscription' ? blocksOfKey(key, summary) : undefined);
    return {
      keyless: keylessSubscriptions(summary, list ?? []),
      refusal: (id: string) => mintRefusal(id, summary, list ?? []),
      freshRefusal: async (id: string) => {
        void keys.reload();
        void billingStatus.reload();
        if (!client) return mintRefusal(id, summary, list ?? []);
        const [freshKeys, status] = await Promise.all([client.keys.list().catch(() => list ?? []), client.billing.status().catch(() => undefined)]); // unreadable: decided on the lists already shown
        return mintRefusal(id, status === undefined ? summary : summarizeBillingStatus(status), freshKeys);
      },
      blocksOf,
      hoursOf: (key: ConsumptionKey, now: number) => {
        const blocks = blocksOf(key);
        return blocks ? reservedHoursAt(blocks, now) : undefined;
      },
      hoursText: (key: ConsumptionKey, now: number) => reservedHoursText(blocksOf(key), now),
    };
  }, [summary, list, client, keys, billingStatus]);
}

/**
 * The line above the Keys table when something has no key: `⚠ pool pledge kimi26 (europe) has
 * no key · n mints it` (`⚠ 2 subscriptions have no key: kimi26, qwen · n mints one`); undefined
 * when all have theirs.
 */
export function keylessNotice(keyless: readonly KeylessSubscription[]): string | undefined {
  if (keyless.length === 0) return undefined;
  if (keyless.length === 1) {
    const k = keyless[0]!;
    const blocks = k.blocks && k.blocks.length > 0 ? ` (${k.blocks.join(', ')})` : '';
    return visible(`⚠ ${k.kind === 'pledge' ? 'pool pledge' : 'subscription'} ${k.what ?? k.id}${blocks} has no key · n mints it`);
  }
  return visible(`⚠ ${keyless.length} subscriptions have no key: ${keyless.map((k) => k.what ?? k.id).join(', ')} · n mints one`);
}
