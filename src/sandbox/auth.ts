/**
 * The service's authentication authentication: `Authorization: Bearer <token>` where the token is a session token or an
 * `mk_` management key on `/api/*` (and `/sandbox/subscriptions`), and an `sk_` consumption key
 * on `/v1/chat/completions`. A missing, malformed, unknown or deleted credential is 401
 * `unauthorized`; a known credential of the wrong kind is 403 `forbidden`.
 */
import type { SandboxClock } from './clock.js';
import { SandboxError } from './errors.js';
import type { ConsumptionKeyRow, KeyStore } from './keys.js';
import type { UserStore } from './users.js';

/** Who a request is from. */
export type Principal = { kind: 'session'; userId: string } | { kind: 'management'; userId: string; keyId: string } | { kind: 'consumption'; key: ConsumptionKeyRow };

/** Longest credential looked up, characters (longer ones are simply unknown). */
const MAX_TOKEN_LENGTH = 256;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Resolves Bearer credentials against the user and key stores. */
export class Authenticator {
  readonly #users: UserStore;
  readonly #keys: KeyStore;
  readonly #clock: SandboxClock;

  constructor(users: UserStore, keys: KeyStore, clock: SandboxClock) {
    this.#users = users;
    this.#keys = keys;
    this.#clock = clock;
  }

  /**
   * The principal of an `Authorization` header value. Throws SandboxError `unauthorized` when
   * the header is missing or not `Bearer <token>`, or the token is unknown or deleted.
   */
  resolve(header: string | undefined): Principal {
    const match = header === undefined ? null : BEARER.exec(header);
    if (!match) {
      throw new SandboxError('unauthorized', 'missing credentials: send Authorization: Bearer <token>');
    }
    const token = match[1]!;
    if (token.length <= MAX_TOKEN_LENGTH) {
      if (token.startsWith('sk_')) {
        const key = this.#keys.findConsumptionByValue(token);
        if (key) return { kind: 'consumption', key };
      } else if (token.startsWith('mk_')) {
        const key = this.#keys.findManagementByValue(token);
        if (key) return { kind: 'management', userId: key.userId, keyId: key.id };
      } else {
        const userId = this.#users.userIdForSession(token);
        if (userId) return { kind: 'session', userId };
      }
    }
    throw new SandboxError('unauthorized', 'invalid credentials: the token is unknown, revoked or deleted');
  }

  /**
   * The account behind a session token or management key (`/api/*`), recording the use of a
   * management key (`lastUsedAt`). Throws `unauthorized` (see {@link resolve}) or `forbidden`
   * for a consumption key.
   */
  account(header: string | undefined): { userId: string } {
    const principal = this.resolve(header);
    if (principal.kind === 'consumption') {
      throw new SandboxError('forbidden', 'a consumption key (sk_) cannot manage the account: use a session token or a management key (mk_)');
    }
    if (principal.kind === 'management') this.#keys.touchManagement(principal.keyId, this.#clock.now());
    return { userId: principal.userId };
  }

  /**
   * The consumption key behind an inference request (or `/v1/usage`), recording its use
   * (`lastUsedAt`). Throws `unauthorized` (see
   * {@link resolve}) or `forbidden` for a management key or session token.
   */
  consumer(header: string | undefined): ConsumptionKeyRow {
    const principal = this.resolve(header);
    if (principal.kind === 'management') {
      throw new SandboxError('forbidden', 'a management key (mk_) cannot be used for inference: use a consumption key (sk_)');
    }
    if (principal.kind === 'session') {
      throw new SandboxError('forbidden', 'a session token cannot be used for inference: use a consumption key (sk_)');
    }
    // Its `lastUsedAt`: presented, whatever the answer (a refused request is a use all the same).
    this.#keys.touchConsumption(principal.key, this.#clock.now());
    return principal.key;
  }
}
