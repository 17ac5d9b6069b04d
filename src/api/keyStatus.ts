/**
 * The one status rule of a consumption key, shared by the TUI and the commands.
 */
import type { ConsumptionKey } from './schemas.js';

/** What a user is told about a key: usable, switched off, or a subscription past its 30 days. */
export type KeyStatus = 'active' | 'inactive' | 'expired';

/**
 * The {@link KeyStatus} of `key` at `now` (epoch ms). `expired` wins: a subscription key past its
 * period (`subscriptionStatus: 'expired'`, or `subscriptionExpiresAt` ≤ now) cannot be switched
 * back on, whatever `isActive` says; otherwise `isActive` decides.
 */
export function keyStatus(key: Pick<ConsumptionKey, 'isActive' | 'subscriptionStatus' | 'subscriptionExpiresAt'>, now: number = Date.now()): KeyStatus {
  if (key.subscriptionStatus === 'expired') return 'expired';
  const expires = key.subscriptionExpiresAt ? Date.parse(key.subscriptionExpiresAt) : Number.NaN;
  if (!Number.isNaN(expires) && expires <= now) return 'expired';
  return key.isActive ? 'active' : 'inactive';
}

/** A subscription key this close to its end is flagged: 3 days, in ms. */
export const EXPIRY_WARNING_MS = 3 * 86_400_000;

/**
 * The paid time left of a subscription key at `now` (epoch ms, the service's clock: see
 * `KeydeckClient.serviceNow`), in ms; 0 once expired; undefined for a credit key or a
 * subscription without a readable `subscriptionExpiresAt`.
 */
export function paidTimeLeftMs(key: Pick<ConsumptionKey, 'keyType' | 'subscriptionStatus' | 'subscriptionExpiresAt'>, now: number = Date.now()): number | undefined {
  if (key.keyType !== 'subscription') return undefined;
  if (key.subscriptionStatus === 'expired') return 0;
  const expires = key.subscriptionExpiresAt ? Date.parse(key.subscriptionExpiresAt) : Number.NaN;
  if (Number.isNaN(expires)) return undefined;
  return Math.max(0, expires - now);
}

/**
 * A span of paid time in words, rounded down so it never promises more than is left: `29 days`,
 * `1 day`, `11 h`, `45 min`, `less than a minute`.
 */
export function timeLeftWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  const days = Math.floor(hours / 24);
  return `${days} day${days === 1 ? '' : 's'}`;
}

/**
 * True for a key minted from a pool pledge (`keyPlan: pool`, the newer keys page and the Per-Key
 * Plans page): its paid time is its pledge's, and a deleted key is minted again from the pledge.
 * The other subscription keys follow the spec's model (one key per payment, 30 days).
 */
export function isPoolKey(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>): boolean {
  return key.keyType === 'subscription' && key.keyPlan === 'pool';
}

/** A key's `subscriptionId` (the newer keys page: a pool key's pledge), when sent. */
function pledgeOf(key: object): string | undefined {
  const id = (key as Record<string, unknown>).subscriptionId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * What deleting or deactivating `key` costs in paid time, as a clause for a confirmation, or
 * undefined when nothing paid is left (credit keys, expired). The spec's subscription key:
 * `29 days of paid time are lost (…; a new payment creates a new key)`. A pool key (item
 * 5): its pledge keeps the paid time, and a new key is minted from the pledge.
 */
export function paidTimeLost(
  key: Pick<ConsumptionKey, 'keyType' | 'keyPlan' | 'subscriptionStatus' | 'subscriptionExpiresAt'>,
  action: 'delete' | 'deactivate',
  now: number = Date.now(),
): string | undefined {
  const left = paidTimeLeftMs(key, now);
  if (left === undefined || left <= 0) return undefined;
  const words = timeLeftWords(left);
  if (isPoolKey(key)) {
    const pledge = pledgeOf(key);
    return action === 'delete'
      ? `its pledge${pledge ? ` ${pledge}` : ''} keeps its ${words} of paid time, and a new key can be minted from it`
      : `its pledge's ${words} of paid time keep running out while it is off`;
  }
  return action === 'delete' ? `${words} of paid time are lost (a subscription is not refunded; a new payment creates a new key)` : `its ${words} of paid time keep running out while it is off`;
}

/**
 * How a subscription key's paid time goes on, as a clause: the spec's subscription key is not
 * extended (a new payment creates a new key; `priceUsd` a month when the service's plans say
 * it); a pool key's time is its pledge's, which renews each period unless its renewal was
 * cancelled (`cancelAtPeriodEnd`, from the billing status, when known; how to cancel it is the
 * face's to say).
 */
export function renewalWords(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, priceUsd?: string, cancelAtPeriodEnd?: boolean): string {
  if (isPoolKey(key)) {
    if (cancelAtPeriodEnd === true) return 'none: its pledge’s renewal was cancelled, so it ends with the period';
    if (cancelAtPeriodEnd === false) return 'with its pledge: renewed each period';
    return 'with its pledge: renewed each period unless cancelled (billing status)';
  }
  return priceUsd !== undefined ? `not extended; a new payment (${priceUsd}/month) creates a new key` : 'not extended; a new subscription payment creates a new key';
}

/** What follows the end of a subscription key's paid period, as a clause (said when it cannot be enabled again). */
export function endedWords(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>): string {
  return isPoolKey(key) ? 'its pledge has ended: a new pledge mints a new key' : 'a new subscription payment creates a new key';
}
