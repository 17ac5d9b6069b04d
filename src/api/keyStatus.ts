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
