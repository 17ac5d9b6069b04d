/**
 * `client.usage` and `client.plans`: where the money goes, as the real service's
 * usage page documents it (https://cheapestinference-docs.pages.dev/api/usage, both generations,
 * and https://docs.cheapestinference.com/api/usage):
 * - `usage.list()`: `GET /api/usage`, every key's spend over the periods the service gives;
 * - `usage.get(keyId)`: `GET /api/usage/:keyId`, one key;
 * - `usage.keyInfo()`: `GET /v1/usage` with the client's token being a consumption key `sk_…`;
 * - `plans.list()`: `GET /api/plans`, public (sent without `Authorization`).
 *
 * The service allows 12 usage reads per 12 hours: these calls are sent once, never retried by
 * the core (`retries: 0`), so a failure never spends a second read. Whether a read may be spent
 * at all is decided before calling, by the one budget (src/billing/usageBudget.ts).
 * Every method takes an optional last argument `CallOptions` and rejects with a KeydeckApiError
 * (or an `AbortError` when cancelled); see src/api/core.ts for the policy.
 */
import type { ApiCore, CallOptions } from '../core.js';
import type { OperationInfo } from '../failures.js';
import { KeyIdSchema } from '../schemas.js';
// Built when a call needs them (a dynamic import): a command that lists keys does not pay for them.
import type { KeyInfo, KeyUsage, Plan, UsageReport } from '../usageSchemas.js';

/** ../usageSchemas.ts, loaded on the first call that reads a usage or plans answer. */
const usageSchemas = () => import('../usageSchemas.js');

const OPS = {
  list: { name: 'listUsage', what: 'read the usage of the keys', changesState: false },
  get: { name: 'getKeyUsage', what: 'read the key’s usage', changesState: false, byId: true },
  keyInfo: { name: 'getKeyInfo', what: 'read the consumption key’s usage', changesState: false },
  plans: { name: 'listPlans', what: 'read the plans', changesState: false },
} satisfies Record<string, OperationInfo>;

/** The spend of the account's keys (usage endpoints of the service's usage page). */
export class UsageResource {
  readonly #core: ApiCore;

  /** @internal built by `KeydeckClient`. */
  constructor(core: ApiCore) {
    this.#core = core;
  }

  /**
   * `GET /api/usage`: every key of the account with its spend per period (24 h, 7 d, 30 d, all
   * time: those the service gives), USD read exactly; a key whose figures are negative or not a
   * number carries `refused` (a sentence) instead. Spends one read of the service's 12-per-12-hours
   * budget; sent once (never retried).
   * @throws KeydeckApiError `rate_limited` (429, with `retryAfterMs`), `server_error` (502: usage
   *   data temporarily unavailable), `invalid_response` naming the field of a shape it does not read, others
   */
  async list(options?: CallOptions): Promise<UsageReport> {
    const { UsageListSchema } = await usageSchemas();
    return this.#core.call({ op: OPS.list, method: 'GET', path: '/api/usage', read: { schema: UsageListSchema }, retries: 0 }, options);
  }

  /**
   * `GET /api/usage/:keyId`: one key's usage (the shape is not shown: read by the same rules as
   * one entry of {@link list}). Assumed to spend a read of the same budget; sent once.
   * @throws KeydeckApiError `invalid_request` (bad id, nothing sent), `not_found`, `rate_limited`, others
   */
  async get(keyId: string, options?: CallOptions): Promise<KeyUsage> {
    const id = this.#core.parseInput(KeyIdSchema, keyId, 'id');
    const { KeyUsageAnswerSchema } = await usageSchemas();
    return this.#core.call({ op: OPS.get, method: 'GET', path: `/api/usage/${encodeURIComponent(id)}`, read: { schema: KeyUsageAnswerSchema }, retries: 0 }, options);
  }

  /**
   * `GET /v1/usage`, for a client whose token is a consumption key `sk_…`: its budget (`spent`,
   * `limit`, `duration`, `resets_at`), `rate_limits`, `plan`, the account's `credits.balance`,
   * and its `key` metadata. Sent once.
   * @throws KeydeckApiError `unauthorized` (401), `forbidden` (403: the key is deactivated),
   *   `not_found` (404), `rate_limited` (429), `server_error` (502), others
   */
  async keyInfo(options?: CallOptions): Promise<KeyInfo> {
    const { KeyInfoSchema } = await usageSchemas();
    return this.#core.call({ op: OPS.keyInfo, method: 'GET', path: '/v1/usage', read: { schema: KeyInfoSchema }, retries: 0 }, options);
  }
}

/** The service's plans (public). */
export class PlansResource {
  readonly #core: ApiCore;

  /** @internal built by `KeydeckClient`. */
  constructor(core: ApiCore) {
    this.#core = core;
  }

  /**
   * `GET /api/plans` (no authentication: sent without the token): each plan's `slug`, `name`,
   * price (`priceUsd`, USD a month) and rate limits (`requestsPerMinute`, `tokensPerMinute`).
   * Retried as any GET (it spends no budget).
   * @throws KeydeckApiError
   */
  async list(options?: CallOptions): Promise<Plan[]> {
    const { PlanListSchema } = await usageSchemas();
    return this.#core.call({ op: OPS.plans, method: 'GET', path: '/api/plans', read: { schema: PlanListSchema }, anonymous: true }, options);
  }
}
