/**
 * The account's money (docs/sandbox-service.md budget model): top-ups by USDC and card,
 * the simulated Base chain, and inference charges. All amounts are integers in µUSD.
 *
 * - `max_budget` of an account = sum of its top-ups (= `totalTopUp`); a top-up raises it and
 *   leaves `spend` unchanged.
 * - `spend` of an account = sum of its credit keys' spend (kept denormalised in `users`,
 *   updated in the same transaction as the key's own `spend_micros`).
 * - `remaining` = max_budget − spend. A credit key may serve while spend < max_budget; a charge
 *   is checked and written in one synchronous step (see {@link Ledger.charge}), so concurrent
 *   requests overspend by less than one request's cost at most, and `remaining` can go below 0
 *   by that much.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { CreditBalance } from '../api/schemas.js';
import { BillingStatus } from './billingStatus.js';
import type { SandboxClock } from './clock.js';
import { transaction } from './db.js';
import { SandboxError } from './errors.js';
import { CardCharges } from './cardCharges.js';
import type { KeyStore } from './keys.js';
import { MAX_ACCOUNT_TOTAL_MICROS, MICROS_PER_USD, microsToDecimalString, microsToUsd } from './money.js';
import { newDepositAddress, newOpaqueId, newTxHash } from './secrets.js';

/** The account figures, µUSD. */
export interface AccountFigures {
  /** Sum of top-ups ever made (`max_budget`, `totalTopUp`). */
  maxBudgetMicros: number;
  /** Sum of the credit keys' spend. */
  spendMicros: number;
  /** The credit balance record `userId`: null until the first top-up. */
  budgetUserId: string | null;
}

/** A card checkout session as stored. */
export interface CheckoutSession {
  sessionId: string;
  userId: string;
  amountMicros: number;
  status: 'pending' | 'succeeded';
}

/** Most accounts whose figures are kept in memory. */
const FIGURES_CACHE_SIZE = 10_000;

/** Message of every refused verification whose transaction this user cannot see (no leak). */
const TX_NOT_FOUND = 'transaction not found: it may still be confirming, or it did not pay one of your deposit addresses';

/** Money operations over one database and one clock. Prepared statements are made once. */
export class Ledger {
  readonly #db: DatabaseSync;
  readonly #clock: SandboxClock;
  readonly #keys: KeyStore;
  readonly #figures;
  readonly #raiseBudget;
  readonly #insertTopUp;
  readonly #completeTopUp;
  readonly #topUpByReference;
  readonly #insertDeposit;
  readonly #depositOfUser;
  readonly #insertTransfer;
  readonly #transferByHash;
  readonly #chargeUser;
  readonly #chargeKey;
  readonly #status: BillingStatus;
  readonly #figuresCache = new Map<string, AccountFigures>();
  /** The card on file: its lagging credits and declines (./cardCharges.ts). */
  readonly cards: CardCharges;

  constructor(db: DatabaseSync, clock: SandboxClock, keys: KeyStore) {
    this.#db = db;
    this.#clock = clock;
    this.#keys = keys;
    this.cards = new CardCharges(db, clock, (userId, micros) => this.#raise(userId, micros));
    this.#figures = db.prepare('SELECT max_budget_micros, spend_micros, budget_user_id FROM users WHERE id = ?');
    this.#raiseBudget = db.prepare('UPDATE users SET max_budget_micros = max_budget_micros + ?, budget_user_id = COALESCE(budget_user_id, ?) WHERE id = ? AND max_budget_micros + ? <= ?');
    this.#insertTopUp = db.prepare(
      `INSERT INTO topups (id, user_id, method, amount_micros, status, reference, created_at, completed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#completeTopUp = db.prepare("UPDATE topups SET status = 'succeeded', completed_at = ? WHERE reference = ? AND status = 'pending'");
    this.#topUpByReference = db.prepare('SELECT user_id, amount_micros, status FROM topups WHERE reference = ?');
    this.#insertDeposit = db.prepare('INSERT INTO deposit_addresses (address, user_id, requested_micros, created_at) VALUES (?, ?, ?, ?)');
    this.#depositOfUser = db.prepare('SELECT 1 AS ok FROM deposit_addresses WHERE address = ? AND user_id = ?');
    this.#insertTransfer = db.prepare('INSERT INTO chain_transfers (tx_hash, to_address, amount_micros, created_at) VALUES (?, ?, ?, ?)');
    this.#transferByHash = db.prepare('SELECT to_address, amount_micros FROM chain_transfers WHERE tx_hash = ?');
    this.#chargeUser = db.prepare('UPDATE users SET spend_micros = spend_micros + ? WHERE id = ?');
    this.#chargeKey = db.prepare('UPDATE consumption_keys SET spend_micros = spend_micros + ? WHERE id = ?');
    this.#status = new BillingStatus(db, clock, keys, this.cards);
  }

  /**
   * The account figures of `userId` (zeros for an unknown user). Cached in memory: only this
   * ledger writes them, and it drops a user's entry before every write (see {@link #forget}).
   */
  figures(userId: string): AccountFigures {
    // A lagging card charge now due is credited first (./cardCharges.ts).
    this.cards.settle(userId);
    const cached = this.#figuresCache.get(userId);
    if (cached) return cached;
    const row = this.#figures.get(userId) as { max_budget_micros: number; spend_micros: number; budget_user_id: string | null } | undefined;
    if (!row) return { maxBudgetMicros: 0, spendMicros: 0, budgetUserId: null };
    const figures = {
      maxBudgetMicros: row.max_budget_micros,
      spendMicros: row.spend_micros,
      budgetUserId: row.budget_user_id,
    };
    if (this.#figuresCache.size >= FIGURES_CACHE_SIZE) this.#figuresCache.clear();
    this.#figuresCache.set(userId, figures);
    return figures;
  }

  /** Drops the cached figures of `userId`; called before any write of its money columns. */
  #forget(userId: string): void {
    this.#figuresCache.delete(userId);
  }

  /** max_budget − spend, µUSD (may be slightly negative after a concurrent overspend). */
  remainingMicros(userId: string): number {
    const f = this.figures(userId);
    return f.maxBudgetMicros - f.spendMicros;
  }

  /** The credit balance record credit balance record, USD numbers. */
  credits(userId: string): CreditBalance {
    const f = this.figures(userId);
    const counts = this.#keys.creditKeyCounts(userId);
    return {
      totalTopUp: microsToUsd(f.maxBudgetMicros),
      remaining: microsToUsd(f.maxBudgetMicros - f.spendMicros),
      hasCreditKey: counts.total > 0,
      creditKeyCount: counts.active,
      userId: f.budgetUserId,
    };
  }

  /** Raises max_budget by a succeeded top-up; must run inside a transaction. */
  #raise(userId: string, amountMicros: number): void {
    this.#forget(userId);
    const changed = this.#raiseBudget.run(amountMicros, randomUUID(), userId, amountMicros, MAX_ACCOUNT_TOTAL_MICROS).changes;
    if (Number(changed) === 0) {
      // Inside the caller's transaction: nothing of this top-up is kept.
      throw new SandboxError('invalid_request', `amount: a sandbox account holds at most ${MAX_ACCOUNT_TOTAL_MICROS / MICROS_PER_USD} USD of top-ups in total`, {
        field: 'amount',
        status: 422,
      });
    }
  }

  /**
   * A USDC payment instruction with a fresh deposit address on `base` that belongs to
   * `userId`. `amount` is the requested amount as a decimal string ("25", "25.5").
   */
  usdcInstruction(userId: string, amountMicros: number): { address: string; chain: 'base'; amount: string } {
    const address = newDepositAddress();
    this.#insertDeposit.run(address, userId, amountMicros, this.#clock.now());
    return { address, chain: 'base', amount: microsToDecimalString(amountMicros) };
  }

  /** Records a simulated USDC transfer of `amountMicros` to `toAddress` on Base; returns its hash. */
  recordTransfer(toAddress: string, amountMicros: number): string {
    const txHash = newTxHash();
    this.#insertTransfer.run(txHash, toAddress.toLowerCase(), amountMicros, this.#clock.now());
    return txHash;
  }

  /** True when `address` is one of `userId`'s deposit addresses (any case). */
  isDepositOf(address: string, userId: string): boolean {
    return this.#depositOfUser.get(address.toLowerCase(), userId) !== undefined;
  }

  /** True when the transfer `txHash` is known (made here, or read from the sandbox's chain before). */
  hasTransfer(txHash: string): boolean {
    return this.#transferByHash.get(txHash.toLowerCase()) !== undefined;
  }

  /** Records a transfer read from the sandbox's real chain for {@link verifyUsdc}; once per hash. */
  recordChainTransfer(txHash: string, toAddress: string, amountMicros: number): void {
    if (this.hasTransfer(txHash)) return;
    this.#insertTransfer.run(txHash.toLowerCase(), toAddress.toLowerCase(), amountMicros, this.#clock.now());
  }

  /**
   * The service's endpoints verify-topup: credits the transfer `txHash` once, only to the user whose deposit address
   * it paid, only for the exact amount sent. Returns USD `{ credited, balance }`.
   * Throws SandboxError `not_found` (unknown hash, or not to one of this user's addresses:
   * the same answer, so nothing leaks), `tx_already_used` (credited before), `amount_mismatch`
   * (`amountMicros` ≠ the amount sent; nothing changes).
   */
  verifyUsdc(userId: string, txHash: string, amountMicros: number): { credited: number; balance: number } {
    const hash = txHash.toLowerCase();
    return transaction(this.#db, () => {
      const transfer = this.#transferByHash.get(hash) as { to_address: string; amount_micros: number } | undefined;
      if (!transfer || !this.#depositOfUser.get(transfer.to_address, userId)) {
        throw new SandboxError('not_found', TX_NOT_FOUND, { field: 'txHash' });
      }
      if (this.#topUpByReference.get(hash)) {
        throw new SandboxError('tx_already_used', 'this transaction has already been credited', { field: 'txHash' });
      }
      if (transfer.amount_micros !== amountMicros) {
        throw new SandboxError('amount_mismatch', 'amount does not match the amount sent in this transaction', {
          field: 'amount',
        });
      }
      const now = this.#clock.now();
      this.#insertTopUp.run(randomUUID(), userId, 'usdc', amountMicros, 'succeeded', hash, now, now);
      this.#raise(userId, amountMicros);
      return { credited: microsToUsd(amountMicros), balance: microsToUsd(this.remainingMicros(userId)) };
    });
  }

  /** Opens a pending card checkout session for `amountMicros`; returns its id. */
  createCheckout(userId: string, amountMicros: number): string {
    const sessionId = newOpaqueId('cs_sandbox_');
    const now = this.#clock.now();
    this.#insertTopUp.run(randomUUID(), userId, 'card_checkout', amountMicros, 'pending', sessionId, now, null);
    return sessionId;
  }

  /** A checkout session by id, or undefined. */
  checkout(sessionId: string): CheckoutSession | undefined {
    const row = this.#topUpByReference.get(sessionId) as { user_id: string; amount_micros: number; status: 'pending' | 'succeeded' } | undefined;
    if (!row || !sessionId.startsWith('cs_')) return undefined;
    return { sessionId, userId: row.user_id, amountMicros: row.amount_micros, status: row.status };
  }

  /**
   * Pays a checkout session: credits its amount the first time (`'paid'`), does nothing after
   * (`'already_paid'`); undefined for an unknown session.
   */
  payCheckout(sessionId: string): 'paid' | 'already_paid' | undefined {
    return transaction(this.#db, () => {
      const session = this.checkout(sessionId);
      if (!session) return undefined;
      if (session.status === 'succeeded') return 'already_paid';
      this.#completeTopUp.run(this.#clock.now(), sessionId);
      this.#raise(session.userId, session.amountMicros);
      return 'paid';
    });
  }

  /**
   * `card_direct` (answer not shown in the service's endpoints; ./cardCharges.ts): `{ status: 'succeeded', paymentId,
   * amount, credited, balance }` (USD), or with a delay set `{ status: 'processing', paymentId, amount }`.
   */
  cardDirect(userId: string, amountMicros: number): Record<string, unknown> {
    const answer = this.cards.charge(userId, amountMicros);
    return answer.status === 'succeeded' ? { ...answer, balance: microsToUsd(this.remainingMicros(userId)) } : answer;
  }

  /**
   * Checks and charges an inference request of `costMicros` to credit key `keyId` of `userId`
   * in one synchronous step (nothing else can run between the check and the write): refused
   * with SandboxError `budget_exceeded` (402) when the account's spend ≥ max_budget.
   * Returns the account's remaining µUSD after the charge.
   */
  charge(userId: string, keyId: string, costMicros: number): number {
    return transaction(this.#db, () => {
      const f = this.figures(userId);
      if (f.spendMicros >= f.maxBudgetMicros) {
        throw new SandboxError(
          'budget_exceeded',
          `the credit balance is used up (spent ${microsToDecimalString(f.spendMicros)} of ${microsToDecimalString(f.maxBudgetMicros)} USD): top up to continue`,
        );
      }
      if (costMicros > 0) {
        this.#forget(userId);
        this.#chargeUser.run(costMicros, userId);
        this.#chargeKey.run(costMicros, keyId);
      }
      return f.maxBudgetMicros - f.spendMicros - costMicros;
    });
  }

  /**
   * Data of `GET /api/billing/status` (not shown in the service's endpoints; built by
   * ./billingStatus.ts): the newer documentation page's shape
   * (https://cheapestinference-docs.pages.dev/api/billing/), USD numbers —
   * `{ subscriptions: [{ id, planSlug, status, currentPeriodEnd, cancelAtPeriodEnd, keyCount,
   * keys: [{ id, name }] }], poolPledges: [{ id, poolId, poolSlug, status, currentPeriodEnd,
   * cancelAtPeriodEnd, hasKey }], plan: null, status, creditBalance, subscriptionExpiresAt: null,
   * legacySubscriptionKeys: [] }` — where a subscription key with time blocks is a pool pledge
   * (slug: its blocks joined by `+`) and one without is a subscription; a sandbox subscription
   * is paid once for 30 days, so `cancelAtPeriodEnd` is true. Beside them, the sandbox's own
   * fields: `{ userId, balance: { totalTopUp, spend, remaining }, creditKeys: { total, active,
   * keys: [{ id, name, isActive, spend }] }, pendingTopUps: [{ method, status: 'pending', amount,
   * paymentId | sessionId, sessionUrl | address, chain, createdAt }], recentTopUps: [{ method,
   * status: 'succeeded', amount, txHash | sessionId | paymentId, createdAt, completedAt }],
   * failedTopUps: [{ method, status: 'declined', amount, paymentId, createdAt }] }` (pending: 20
   * of each kind; the 10 newest succeeded and declined; card charges: ./cardCharges.ts). `baseUrl`
   * builds the `sessionUrl` of pending checkouts; `names` are the dialect's method names.
   */
  status(userId: string, baseUrl: string, names: Readonly<Record<string, string>> = {}): Record<string, unknown> {
    return this.#status.body(userId, baseUrl, names, this.figures(userId));
  }
}
