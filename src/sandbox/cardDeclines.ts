/**
 * Card declines asked for by `POST /sandbox/cards/decline`: the next N card charges of
 * an account (a `card_direct` top-up, a checkout page's Pay) fail as a card processor's decline.
 * Kept in the sandbox database (`card_declines`), per account.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** The declines of every account of one sandbox database. */
export class CardDeclines {
  readonly #left: StatementSync;
  readonly #set: StatementSync;
  readonly #use: StatementSync;

  constructor(db: DatabaseSync) {
    this.#left = db.prepare('SELECT remaining FROM card_declines WHERE user_id = ?');
    this.#set = db.prepare('INSERT INTO card_declines (user_id, remaining) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET remaining = excluded.remaining');
    this.#use = db.prepare('UPDATE card_declines SET remaining = remaining - 1 WHERE user_id = ? AND remaining > 0');
  }

  /** Makes the next `count` card charges of `userId` fail (0 ends an earlier request). */
  declineNext(userId: string, count: number): void {
    this.#set.run(userId, count);
  }

  /** The declines `userId` has left. */
  left(userId: string): number {
    return (this.#left.get(userId) as { remaining: number } | undefined)?.remaining ?? 0;
  }

  /** Uses one of `userId`'s declines: true when this charge is to be declined. */
  useOne(userId: string): boolean {
    return Number(this.#use.run(userId).changes) > 0;
  }
}
