/**
 * The body of the sandbox's `GET /api/billing/status` (./ledger.ts `Ledger.status`): the
 * account's subscriptions and pool pledges from its keys, its balance, its credit keys, and its
 * top-ups pending, recent and declined, in the newer documentation page's shape plus the
 * sandbox's own fields. It only reads; amounts are USD on the wire, µUSD in the database.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { CardCharges } from './cardCharges.js';
import type { SandboxClock } from './clock.js';
import { isExpired, type KeyStore } from './keys.js';
import { microsToUsd } from './money.js';

/** The account figures the status says, µUSD (./ledger.ts AccountFigures). */
interface StatusFigures {
  readonly maxBudgetMicros: number;
  readonly spendMicros: number;
  readonly budgetUserId: string | null;
}

/** Reads one account's billing status over one database. Prepared statements are made once. */
export class BillingStatus {
  readonly #clock: SandboxClock;
  readonly #keys: KeyStore;
  readonly #cards: CardCharges;
  readonly #pendingCheckouts;
  readonly #pendingDeposits;
  readonly #recentTopUps;

  constructor(db: DatabaseSync, clock: SandboxClock, keys: KeyStore, cards: CardCharges) {
    this.#clock = clock;
    this.#keys = keys;
    this.#cards = cards;
    this.#pendingCheckouts = db.prepare(
      `SELECT reference, amount_micros, created_at FROM topups
       WHERE user_id = ? AND method = 'card_checkout' AND status = 'pending' ORDER BY created_at DESC LIMIT 20`,
    );
    this.#pendingDeposits = db.prepare(
      `SELECT d.address, d.requested_micros, d.created_at FROM deposit_addresses d
       WHERE d.user_id = ? AND NOT EXISTS (
         SELECT 1 FROM chain_transfers t JOIN topups p ON p.reference = t.tx_hash WHERE t.to_address = d.address)
       ORDER BY d.created_at DESC LIMIT 20`,
    );
    this.#recentTopUps = db.prepare(
      `SELECT method, amount_micros, reference, created_at, completed_at FROM topups
       WHERE user_id = ? AND status = 'succeeded' ORDER BY completed_at DESC LIMIT 10`,
    );
  }

  /**
   * The status of `userId` whose figures are `f` (read first, a lagging card charge now due
   * credited: ./cardCharges.ts); `baseUrl` builds the `sessionUrl` of pending checkouts, `names`
   * are the dialect's method names. Its shape is said at ./ledger.ts `Ledger.status`.
   */
  body(userId: string, baseUrl: string, names: Readonly<Record<string, string>>, f: StatusFigures): Record<string, unknown> {
    const nameOf = (method: string): string => names[method] ?? method;
    const now = this.#clock.now();
    const keys = this.#keys.listConsumption(userId);
    const creditKeys = keys.filter((k) => k.key_type === 'credit').map((k) => ({ id: k.id, name: k.name, isActive: k.is_active === 1, spend: microsToUsd(k.spend_micros) }));
    const subscriptionKeys = keys.filter((k) => k.key_type === 'subscription' && !k.subscription_id); // pool keys: with their pledge
    const period = (k: (typeof keys)[number]) => {
      const expired = isExpired(k, now);
      return {
        status: expired ? 'expired' : k.is_active === 1 ? 'active' : 'paused',
        currentPeriodEnd: new Date(k.subscription_expires_at ?? k.created_at).toISOString(),
        cancelAtPeriodEnd: true,
      };
    };
    const subscriptions = subscriptionKeys.filter((k) => !k.blocks).map((k) => ({ id: k.id, planSlug: k.key_plan, ...period(k), keyCount: 1, keys: [{ id: k.id, name: k.name }] }));
    const poolPledges = subscriptionKeys
      .filter((k) => k.blocks)
      .map((k) => ({ id: k.id, poolId: 'pool_sandbox', poolSlug: k.blocks!.split(',').join('+'), ...period(k), hasKey: true, plan: k.key_plan, keys: [{ id: k.id, name: k.name }] }));
    const pendingCheckouts = (
      this.#pendingCheckouts.all(userId) as Array<{
        reference: string;
        amount_micros: number;
        created_at: number;
      }>
    ).map((p) => ({
      method: nameOf('card_checkout'),
      status: 'pending',
      amount: microsToUsd(p.amount_micros),
      sessionId: p.reference,
      sessionUrl: `${baseUrl}/sandbox/checkout/${p.reference}`,
      createdAt: new Date(p.created_at).toISOString(),
    }));
    const pendingDeposits = (
      this.#pendingDeposits.all(userId) as Array<{
        address: string;
        requested_micros: number;
        created_at: number;
      }>
    ).map((d) => ({
      method: nameOf('usdc'),
      status: 'pending',
      amount: microsToUsd(d.requested_micros),
      address: d.address,
      chain: 'base',
      createdAt: new Date(d.created_at).toISOString(),
    }));
    const card = (status: 'pending' | 'declined') => (c: { reference: string; amountMicros: number; createdAt: number }) => ({
      method: nameOf('card_direct'),
      status,
      amount: microsToUsd(c.amountMicros),
      paymentId: c.reference,
      createdAt: new Date(c.createdAt).toISOString(),
    });
    const recentTopUps = (
      this.#recentTopUps.all(userId) as Array<{
        method: string;
        amount_micros: number;
        reference: string;
        created_at: number;
        completed_at: number;
      }>
    ).map((t) => ({
      method: nameOf(t.method),
      status: 'succeeded',
      amount: microsToUsd(t.amount_micros),
      // The reference names the top-up: a tx hash, a checkout session or a card payment.
      ...(t.method === 'usdc' && { txHash: t.reference }),
      ...(t.method === 'card_checkout' && { sessionId: t.reference }),
      ...(t.method === 'card_direct' && { paymentId: t.reference }),
      createdAt: new Date(t.created_at).toISOString(),
      completedAt: new Date(t.completed_at).toISOString(),
    }));
    const remaining = microsToUsd(f.maxBudgetMicros - f.spendMicros);
    return {
      subscriptions,
      poolPledges,
      plan: null,
      status: 'active',
      creditBalance: remaining,
      subscriptionExpiresAt: null,
      legacySubscriptionKeys: [],
      userId: f.budgetUserId,
      balance: {
        totalTopUp: microsToUsd(f.maxBudgetMicros),
        spend: microsToUsd(f.spendMicros),
        remaining,
      },
      creditKeys: { total: creditKeys.length, active: creditKeys.filter((k) => k.isActive).length, keys: creditKeys },
      pendingTopUps: [...this.#cards.pending(userId).map(card('pending')), ...pendingCheckouts, ...pendingDeposits],
      recentTopUps,
      failedTopUps: this.#cards.declined(userId).map(card('declined')),
    };
  }
}
