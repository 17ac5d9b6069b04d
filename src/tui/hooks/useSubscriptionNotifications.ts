/**
 * Issue 19 req. 2 through issue 16's channels: when a subscription key comes within 3 days of
 * its end (by the service's clock, as the row's `⚠ 11 h left`), a `subscription_expiring`
 * notification goes out once per key for the life of the process (terminal OSC, the desktop when
 * asked; src/terminal/notify.ts). Issue 23: when a pool key's reserved block ends within
 * {@link BLOCK_END_NOTICE_MS} (and the next reserved block does not follow at once), a
 * `block_ending` notification goes out once per key and block end.
 */
import { useEffect, useRef } from 'react';
import { reservedHoursAt } from '../../api/poolBlocks.js';
import type { ConsumptionKey } from '../../api/schemas.js';
import type { NotifyEvent } from '../../terminal/notify.js';
import { paidTimeLeftMs } from '../../api/keyStatus.js';
import { endsSoon } from '../panes/keyRows.js';

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
    events.push({ kind: 'subscription_expiring', keyName: key.name, expiresAt: key.subscriptionExpiresAt ?? '', daysLeft: (paidTimeLeftMs(key, now) ?? 0) / DAY_MS });
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

/** How long before its block ends a pool key's `block_ending` goes out, ms (15 min). */
export const BLOCK_END_NOTICE_MS = 15 * 60_000;

/**
 * The `block_ending` events due at `now` for the active pool keys whose blocks `blocksOf` knows,
 * leaving out the key-and-end pairs in `already` (which it then adds to). Pure.
 */
export function dueBlockEvents(
  keys: readonly ConsumptionKey[] | undefined,
  blocksOf: (key: ConsumptionKey) => readonly string[] | undefined,
  now: number,
  already: Set<string>,
): NotifyEvent[] {
  const events: NotifyEvent[] = [];
  for (const key of keys ?? []) {
    if (!key.isActive) continue;
    const blocks = blocksOf(key);
    const at = blocks ? reservedHoursAt(blocks, now) : undefined;
    if (!at?.inside || !Number.isFinite(at.endsAt) || at.endsAt - now > BLOCK_END_NOTICE_MS) continue;
    const id = `${key.id}@${at.endsAt}`;
    if (already.has(id)) continue;
    already.add(id);
    const next = reservedHoursAt(blocks!, at.endsAt);
    events.push({ kind: 'block_ending', keyName: key.name, block: at.block, minutesLeft: (at.endsAt - now) / 60_000, ...(next && !next.inside && { nextBlock: next.block }) });
  }
  return events;
}

/** Sends {@link dueBlockEvents} through `notify` whenever `keys` change or `tick` moves (each balance poll). */
export function useBlockNotifications(
  keys: readonly ConsumptionKey[] | undefined,
  blocksOf: (key: ConsumptionKey) => readonly string[] | undefined,
  now: () => number,
  notify: ((event: NotifyEvent) => void) | undefined,
  tick: unknown,
): void {
  const sent = useRef(new Set<string>());
  useEffect(() => {
    if (!notify) return;
    for (const event of dueBlockEvents(keys, blocksOf, now(), sent.current)) notify(event);
  }, [keys, blocksOf, now, notify, tick]);
}
