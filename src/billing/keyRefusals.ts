/**
 * What keydeck refuses about a key before anything is sent, decided here once for every face (the
 * TUI's Keys pane, `keydeck keys enable`): a credit key asked for while the balance is $0 or less
 * (the service creates none then: a credit key draws on the balance), and an expired subscription
 * key asked to be switched on again (the service interface: a subscription key whose paid period
 * has ended cannot be reactivated; a new payment creates a new key). Data only: each face words it.
 */
import { endedWords, keyStatus } from '../api/keyStatus.js';
import type { ConsumptionKey, CreditBalance } from '../api/schemas.js';

/** A new credit key refused: the balance (USD) is $0 or less. */
export interface ZeroBalanceRefusal {
  readonly code: 'zero_balance';
  /** The balance read, USD. */
  readonly remaining: number;
}

/** An expired subscription key: it is not switched back on. */
export interface SubscriptionEndedRefusal {
  readonly code: 'subscription_ended';
  /** What follows its end, as a clause (src/api/keyStatus.ts `endedWords`: "a new subscription payment creates a new key"). */
  readonly ended: string;
}

/** Why a new credit key is not asked for with the balance `balance` (its `remaining`, USD); undefined: it may be. */
export function creditKeyRefusal(balance: Pick<CreditBalance, 'remaining'>): ZeroBalanceRefusal | undefined {
  return balance.remaining <= 0 ? { code: 'zero_balance', remaining: balance.remaining } : undefined;
}

/**
 * Why `key` is not switched back on at `now` (epoch ms, the service's clock: its state and its
 * end from one clock); undefined: it may be.
 */
export function reactivationRefusal(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan' | 'isActive' | 'subscriptionStatus' | 'subscriptionExpiresAt'>, now: number): SubscriptionEndedRefusal | undefined {
  return keyStatus(key, now) === 'expired' ? { code: 'subscription_ended', ended: endedWords(key) } : undefined;
}
