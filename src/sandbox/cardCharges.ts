/**
 * The card on file (`card_direct`, the service's endpoints top-up; its answer is not shown there, so what it does is the
 * sandbox's choice), and the billing status's record of it:
 *
 * - charged and credited at once: `{ status: 'succeeded', paymentId, amount, credited, balance }`;
 * - or, after `POST /sandbox/cards/delay { seconds }`, charged at once and credited `seconds`
 *   later on the sandbox clock, as a card processor may take a while: answered `{ status:
 *   'processing', paymentId, amount }`, listed meanwhile among the status's `pendingTopUps`
 *   (`{ method, status: 'pending', amount, paymentId, createdAt }`), then among its
 *   `recentTopUps` once credited (the credit is made by the first read of the account after it
 *   is due, dated when it was due);
 * - declined after `POST /sandbox/cards/decline` (./cardDeclines.ts): nothing charged, and the
 *   decline listed among the status's `failedTopUps` (`{ method, status: 'declined', amount,
 *   paymentId, createdAt }`, the 10 newest), so every card charge asked for shows how it ended.
 *
 * Kept in the sandbox database: the lagging charges in `topups` (`due_at`), the delays in
 * `card_delays`, the declines in `card_failures`.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SandboxClock } from './clock.js';
import { transaction } from './db.js';
import { microsToUsd } from './money.js';
import { newOpaqueId } from './secrets.js';

/** Longest delay `POST /sandbox/cards/delay` accepts, seconds (one hour). */
export const MAX_CARD_DELAY_SECONDS = 3600;

/** A card-on-file charge's answer. USD numbers. */
export type CardChargeAnswer =
  | { readonly status: 'succeeded'; readonly paymentId: string; readonly amount: number; readonly credited: number }
  | { readonly status: 'processing'; readonly paymentId: string; readonly amount: number };

/** A card charge listed by the billing status: pending (credit lagging) or declined. */
export interface ListedCardCharge {
  readonly reference: string;
  readonly amountMicros: number;
  readonly createdAt: number;
}

/** The card on file of every account of one sandbox database (see the module comment). */
export class CardCharges {
  readonly #db: DatabaseSync;
  readonly #clock: SandboxClock;
  readonly #credit: (userId: string, amountMicros: number) => void;
  readonly #delayOf: StatementSync;
  readonly #setDelay: StatementSync;
  readonly #insert: StatementSync;
  readonly #dueRows: StatementSync;
  readonly #complete: StatementSync;
  readonly #nextDue: StatementSync;
  readonly #pending: StatementSync;
  readonly #insertFailure: StatementSync;
  readonly #failures: StatementSync;
  /** Accounts with a lagging charge, and when the first one is due (sandbox clock, ms): a read of another account costs nothing. */
  readonly #due = new Map<string, number>();

  /** `credit` raises an account's top-ups by a credited charge (inside the caller's transaction). */
  constructor(db: DatabaseSync, clock: SandboxClock, credit: (userId: string, amountMicros: number) => void) {
    this.#db = db;
    this.#clock = clock;
    this.#credit = credit;
    this.#delayOf = db.prepare('SELECT seconds FROM card_delays WHERE user_id = ?');
    this.#setDelay = db.prepare('INSERT INTO card_delays (user_id, seconds) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET seconds = excluded.seconds');
    this.#insert = db.prepare(
      `INSERT INTO topups (id, user_id, method, amount_micros, status, reference, created_at, completed_at, due_at)
       VALUES (?, ?, 'card_direct', ?, ?, ?, ?, ?, ?)`,
    );
    this.#dueRows = db.prepare("SELECT reference, amount_micros, due_at FROM topups WHERE user_id = ? AND status = 'pending' AND due_at IS NOT NULL AND due_at <= ?");
    this.#complete = db.prepare("UPDATE topups SET status = 'succeeded', completed_at = due_at WHERE reference = ? AND status = 'pending'");
    this.#nextDue = db.prepare("SELECT MIN(due_at) AS due FROM topups WHERE user_id = ? AND status = 'pending' AND due_at IS NOT NULL");
    this.#pending = db.prepare(
      `SELECT reference, amount_micros, created_at FROM topups
       WHERE user_id = ? AND method = 'card_direct' AND status = 'pending' ORDER BY created_at DESC LIMIT 20`,
    );
    this.#insertFailure = db.prepare('INSERT INTO card_failures (reference, user_id, amount_micros, created_at) VALUES (?, ?, ?, ?)');
    this.#failures = db.prepare('SELECT reference, amount_micros, created_at FROM card_failures WHERE user_id = ? ORDER BY created_at DESC LIMIT 10');
    const lagging = db.prepare("SELECT user_id, MIN(due_at) AS due FROM topups WHERE status = 'pending' AND due_at IS NOT NULL GROUP BY user_id").all() as Array<{ user_id: string; due: number }>;
    for (const row of lagging) this.#due.set(row.user_id, row.due);
  }

  /** Makes `userId`'s next card charges credit `seconds` after they are made (0: at once again). */
  setDelay(userId: string, seconds: number): void {
    this.#setDelay.run(userId, seconds);
  }

  /** `userId`'s delay, seconds (0: none). */
  delayOf(userId: string): number {
    return (this.#delayOf.get(userId) as { seconds: number } | undefined)?.seconds ?? 0;
  }

  /** Charges `userId`'s card `amountMicros`: credited now, or pending until its delay has passed. */
  charge(userId: string, amountMicros: number): CardChargeAnswer {
    const paymentId = newOpaqueId('pi_sandbox_');
    const delayMs = this.delayOf(userId) * 1000;
    return transaction(this.#db, () => {
      const now = this.#clock.now();
      const amount = microsToUsd(amountMicros);
      if (delayMs > 0) {
        this.#insert.run(randomUUID(), userId, amountMicros, 'pending', paymentId, now, null, now + delayMs);
        const due = this.#due.get(userId);
        if (due === undefined || now + delayMs < due) this.#due.set(userId, now + delayMs);
        return { status: 'processing', paymentId, amount };
      }
      this.#insert.run(randomUUID(), userId, amountMicros, 'succeeded', paymentId, now, now, null);
      this.#credit(userId, amountMicros);
      return { status: 'succeeded', paymentId, amount, credited: amount };
    });
  }

  /** Credits `userId`'s lagging charges that are due (a no-op for an account without one). */
  settle(userId: string): void {
    const due = this.#due.get(userId);
    if (due === undefined || due > this.#clock.now()) return;
    transaction(this.#db, () => {
      for (const row of this.#dueRows.all(userId, this.#clock.now()) as Array<{ reference: string; amount_micros: number }>) {
        if (Number(this.#complete.run(row.reference).changes) > 0) this.#credit(userId, row.amount_micros);
      }
      const next = (this.#nextDue.get(userId) as { due: number | null } | undefined)?.due ?? null;
      if (next === null) this.#due.delete(userId);
      else this.#due.set(userId, next);
    });
  }

  /** Records a declined charge of `amountMicros` for `userId`; returns its reference. */
  recordDecline(userId: string, amountMicros: number): string {
    const reference = newOpaqueId('pi_sandbox_');
    this.#insertFailure.run(reference, userId, amountMicros, this.#clock.now());
    return reference;
  }

  /** `userId`'s charges whose credit lags, newest first (at most 20). */
  pending(userId: string): ListedCardCharge[] {
    return (this.#pending.all(userId) as Array<{ reference: string; amount_micros: number; created_at: number }>).map((r) => ({
      reference: r.reference,
      amountMicros: r.amount_micros,
      createdAt: r.created_at,
    }));
  }

  /** `userId`'s declined charges, newest first (at most 10). */
  declined(userId: string): ListedCardCharge[] {
    return (this.#failures.all(userId) as Array<{ reference: string; amount_micros: number; created_at: number }>).map((r) => ({
      reference: r.reference,
      amountMicros: r.amount_micros,
      createdAt: r.created_at,
    }));
  }
}
