/**
 * `client.pools`: the pools of the service's pool (time-block) subscriptions, read-only
 *, as the Unlimited Subscriptions page documents them
 * (https://docs.cheapestinference.com/api/unlimited-subscriptions/, and its earlier form, the GPU
 * Boosts page https://docs.cheapestinference.com/api/gpu-boosts):
 * - `pools.list()`: `GET /api/pools`, every pool not in draft (model, status, seats, prices);
 * - `pools.get(idOrSlug)`: `GET /api/pools/:id`, one pool with its hour slots.
 *
 * Subscribing (`POST /api/pools/:id/subscribe`) is not offered: subscription payment is outside
 * the seed and its answers are not documented. Answers are read tolerantly (../poolSchemas.ts):
 * what keydeck cannot read is kept and shown as a tree, never a failed call. Every method takes
 * an optional last argument `CallOptions` and rejects with a KeydeckApiError (or an `AbortError`
 * when cancelled); see src/api/core.ts for the policy (GETs are retried).
 */
import type { ApiCore, CallOptions } from '../core.js';
import type { OperationInfo } from '../failures.js';
import type { PoolAnswer, PoolList } from '../poolSchemas.js';
import { KeyIdSchema } from '../schemas.js';

const OPS = {
  list: { name: 'listPools', what: 'list the pools', changesState: false },
  get: { name: 'getPool', what: 'read the pool', changesState: false, byId: true },
} satisfies Record<string, OperationInfo>;

/** The service's pools (read-only). */
export class PoolsResource {
  readonly #core: ApiCore;

  /** @internal built by `KeydeckClient`. */
  constructor(core: ApiCore) {
    this.#core = core;
  }

  /**
   * `GET /api/pools`: the pools, bare or enveloped; entries keydeck cannot read are in `unread`.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async list(options?: CallOptions): Promise<PoolList> {
    const { PoolListSchema } = await import('../poolSchemas.js'); // built on use
    return this.#core.call({ op: OPS.list, method: 'GET', path: '/api/pools', read: { schema: PoolListSchema } }, options);
  }

  /**
   * `GET /api/pools/:id`: one pool by UUID or slug, with its hour slots and the blocks derived
   * from them; `{ unread }` when the answer is not a pool keydeck can read.
   * @throws KeydeckApiError `invalid_request` (bad id, nothing sent), `not_found`, others
   */
  async get(idOrSlug: string, options?: CallOptions): Promise<PoolAnswer> {
    const id = this.#core.parseInput(KeyIdSchema, idOrSlug, 'id');
    const { PoolAnswerSchema } = await import('../poolSchemas.js'); // built on use
    return this.#core.call({ op: OPS.get, method: 'GET', path: `/api/pools/${encodeURIComponent(id)}`, read: { schema: PoolAnswerSchema } }, options);
  }
}
