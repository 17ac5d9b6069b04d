/**
 * Users and their session tokens (the service's authentication "auth token"). A session token is stored as its SHA-256
 * hash only; the demo user's token is additionally kept in `meta` by the caller (index.ts).
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { transaction } from './db.js';
import { hashesEqual, hashSecret, newSessionToken } from './secrets.js';

/** A created user: its id and its session token (shown once). */
export interface CreatedUser {
  userId: string;
  token: string;
}

/** Most session tokens remembered in memory after a successful lookup. */
const SESSION_CACHE_SIZE = 10_000;

/**
 * Creates users and resolves session tokens. Prepared statements are made once. A resolved
 * token is remembered in memory (sessions are never revoked in the sandbox), so the hot path
 * of every `/api/*` request skips the hash and the query.
 */
export class UserStore {
  readonly #db: DatabaseSync;
  readonly #sessionCache = new Map<string, string>();
  readonly #insertUser;
  readonly #insertSession;
  readonly #sessionByHash;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#insertUser = db.prepare('INSERT INTO users (id, created_at) VALUES (?, ?)');
    this.#insertSession = db.prepare('INSERT INTO sessions (token_hash, user_id, created_at) VALUES (?, ?, ?)');
    this.#sessionByHash = db.prepare('SELECT token_hash, user_id FROM sessions WHERE token_hash = ?');
  }

  /** Creates a user with a new session token (or `token`, for the demo user) at time `now` (ms). */
  create(now: number, token: string = newSessionToken()): CreatedUser {
    const userId = randomUUID();
    transaction(this.#db, () => {
      this.#insertUser.run(userId, now);
      this.#insertSession.run(hashSecret(token), userId, now);
    });
    return { userId, token };
  }

  /** The user id a session token belongs to, or undefined for an unknown token. */
  userIdForSession(token: string): string | undefined {
    const cached = this.#sessionCache.get(token);
    if (cached !== undefined) return cached;
    const hash = hashSecret(token);
    const row = this.#sessionByHash.get(hash) as { token_hash: Uint8Array; user_id: string } | undefined;
    if (!row || !hashesEqual(row.token_hash, hash)) return undefined;
    if (this.#sessionCache.size >= SESSION_CACHE_SIZE) this.#sessionCache.clear();
    this.#sessionCache.set(token, row.user_id);
    return row.user_id;
  }
}
