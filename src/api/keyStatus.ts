/**
 * The one status rule of a consumption key (§2.1, §3), shared by the TUI and the commands.
 */
import type { ConsumptionKey } from './schemas.js';

/** What a user is told about a key: usable, switched off, or a subscription past its 30 days. */
export type KeyStatus = 'active' | 'inactive' | 'expired';

/**
 * The {@link KeyStatus} of `key` at `now` (epoch ms). `expired` wins: a subscription key past its
 * period (`subscriptionStatus: 'expired'`, or `subscriptionExpiresAt` ≤ now) cannot be switched
 * back on, whatever `isActive` says; otherwise `isActive` decides.
 */
export function keyStatus(
  key: Pick<ConsumptionKey, 'isActive' | 'subscriptionStatus' | 'subscriptionExpiresAt'>,
  now: number = Date.now(),
): KeyStatus {
  if (key.subscriptionStatus === 'expired') return 'expired';
  const expires = key.subscriptionExpiresAt ? Date.parse(key.subscriptionExpiresAt) : Number.NaN;
  if (!Number.isNaN(expires) && expires <= now) return 'expired';
  return key.isActive ? 'active' : 'inactive';
}

/** A subscription key this close to its end is flagged (issue 19): 3 days, in ms. */
export const EXPIRY_WARNING_MS = 3 * 86_400_000;

/**
 * The paid time left of a subscription key at `now` (epoch ms, the service's clock: see
 * `KeydeckClient.serviceNow`), in ms; 0 once expired; undefined for a credit key or a
 * subscription without a readable `subscriptionExpiresAt`.
 */
export function paidTimeLeftMs(
  key: Pick<ConsumptionKey, 'keyType' | 'subscriptionStatus' | 'subscriptionExpiresAt'>,
  now: number = Date.now(),
): number | undefined {
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
 * What deleting or deactivating `key` costs in paid time, as a clause for a confirmation
 * (`29 days of paid time are lost`), or undefined when nothing paid is left (credit keys, expired).
 */
export function paidTimeLost(
  key: Pick<ConsumptionKey, 'keyType' | 'subscriptionStatus' | 'subscriptionExpiresAt'>,
  action: 'delete' | 'deactivate',
  now: number = Date.now(),
): string | undefined {
  const left = paidTimeLeftMs(key, now);
  if (left === undefined || left <= 0) return undefined;
  const words = timeLeftWords(left);
  return action === 'delete'
    ? `${words} of paid time are lost (a subscription is not refunded; a new payment creates a new key)`
    : `its ${words} of paid time keep running out while it is off`;
}
