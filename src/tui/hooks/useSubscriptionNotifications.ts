/**
 * Through the notification channels (src/terminal/notify.ts): when a subscription key comes within 3 days of
 * its end (by the service's clock, as the row's `⚠ 11 h left`), a `subscription_expiring`
 * notification goes out once per key for the life of the process (terminal OSC, the desktop when
 * asked; src/terminal/notify.ts). When a pool key's reserved block ends within
 * 15 minutes (and the next reserved block does not follow at once), a
 * `block_ending` notification goes out once per key and block end (src/billing/pledges.ts).
 */
import { useCallback, useEffect, useRef } from 'react';
import type { ConsumptionKey } from '../../api/schemas.js';
import type { NotifyEvent } from '../../terminal/notify.js';
import { isPoolKey, paidTimeLeftMs } from '../../api/keyStatus.js';
import { dueBlockEvents } from '../../billing/pledges.js';
import { endsSoon } from '../panes/keys/keyRows.js';

const DAY_MS = 86_400_000;

/**
 * The `subscription_expiring` events due for `keys` at `now` (epoch ms, the service's clock),
 * leaving out the ids in `already` (which it then adds to). Pure: the hook below sends them.
 */
export function dueSubscriptionEvents(keys: readonly ConsumptionKey[] | undefined, now: number, already: Set<string>): NotifyEvent[] {
  const events: NotifyEvent[] = [];
  for (const key of keys ?? []) {
    if (already.has(key.id) || !endsSoon(key, now)) continue;
    already.add(key.id);
    events.push({
      kind: 'subscription_expiring',
      keyName: key.name,
      expiresAt: key.subscriptionExpiresAt ?? '',
      daysLeft: (paidTimeLeftMs(key, now) ?? 0) / DAY_MS,
      ...(isPoolKey(key) && { pool: true }),
    });
  }
  return events;
}

/** Sends {@link dueSubscriptionEvents} through `notify` whenever `keys` change. */
export function useSubscriptionNotifications(keys: readonly ConsumptionKey[] | undefined, now: () => number, notify: ((event: NotifyEvent) => void) | undefined): void {
  const sent = useRef(new Set<string>());
  useEffect(() => {
    if (!notify) return;
    for (const event of dueSubscriptionEvents(keys, now(), sent.current)) notify(event);
  }, [keys, now, notify]);
}

/**
 * Sends {@link dueBlockEvents} through `notify` whenever `keys` change, and returns the check
 * itself (stable; it reads the latest arguments), for the caller to run at each balance poll
 * (src/tui/contexts/BalanceContext.tsx `usePollSucceeded`: no render for it).
 */
export function useBlockNotifications(
  keys: readonly ConsumptionKey[] | undefined,
  blocksOf: (key: ConsumptionKey) => readonly string[] | undefined,
  now: () => number,
  notify: ((event: NotifyEvent) => void) | undefined,
): () => void {
  const sent = useRef(new Set<string>());
  const args = useRef({ keys, blocksOf, now, notify });
  args.current = { keys, blocksOf, now, notify };
  const check = useCallback(() => {
    const { keys, blocksOf, now, notify } = args.current;
    if (!notify) return;
    for (const event of dueBlockEvents(keys, blocksOf, now(), sent.current)) notify(event);
  }, []);
  useEffect(check, [keys, blocksOf, now, notify, check]);
  return check;
}
