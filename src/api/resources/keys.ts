/**
 * `client.keys`: the consumption keys of the service's endpoints (`/api/keys…`): list, create a credit key, mint the
 * key of a subscription (`POST /api/keys/subscription`, the Per-Key Plans page,
 * https://cheapestinference-docs.pages.dev/guides/per-key-plans/), rename or pause/resume, delete. Every method takes an optional last argument `CallOptions` and rejects
 * with a KeydeckApiError (or an `AbortError` when cancelled); see src/api/core.ts for the policy.
 */
import type { ApiCore, CallOptions } from '../core.js';
import type { OperationInfo } from '../failures.js';
import type { CreatedSubscriptionKey } from '../poolSchemas.js';
import {
  ConsumptionKeyListSchema,
  CreateKeyRequestSchema,
  CreatedConsumptionKeySchema,
  DeletedKeySchema,
  KeyIdSchema,
  UpdateKeyRequestSchema,
  type ConsumptionKey,
  type CreatedConsumptionKey,
  type DeletedKey,
} from '../schemas.js';

const OPS = {
  list: { name: 'listKeys', what: 'list the keys', changesState: false },
  createCredit: { name: 'createCreditKey', what: 'create the credit key', check: 'list the keys', changesState: true },
  createSubscription: { name: 'createSubscriptionKey', what: 'create the subscription key', check: 'list the keys', changesState: true },
  update: { name: 'updateKey', what: 'update the key', check: 'list the keys', changesState: true, byId: true },
  delete: { name: 'deleteKey', what: 'delete the key', check: 'list the keys', changesState: true, byId: true },
} satisfies Record<string, OperationInfo>;

/** The consumption keys of the account. */
export class KeysResource {
  readonly #core: ApiCore;

  /** @internal built by `KeydeckClient`. */
  constructor(core: ApiCore) {
    this.#core = core;
  }

  /**
   * The service's endpoints `GET /api/keys`: the user's consumption keys, subscription and credit, never with `apiKey`.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async list(options?: CallOptions): Promise<ConsumptionKey[]> {
    return this.#core.call({ op: OPS.list, method: 'GET', path: '/api/keys', read: { schema: ConsumptionKeyListSchema } }, options);
  }

  /**
   * The service's endpoints `POST /api/keys/credit`: creates a credit key (needs a credit balance above 0).
   * The result carries the full `apiKey` (`sk_…`), returned only this once.
   * @throws KeydeckApiError `invalid_request` (bad name, nothing sent), `insufficient_balance`
   *   (balance 0), others; never retried; `outcomeUnknown` when the connection failed after sending.
   */
  async createCredit(input: { name: string }, options?: CallOptions): Promise<CreatedConsumptionKey> {
    const body = this.#core.parseInput(CreateKeyRequestSchema, input);
    return this.#core.call({ op: OPS.createCredit, method: 'POST', path: '/api/keys/credit', body, read: { schema: CreatedConsumptionKeySchema, creates: true } }, options);
  }

  /**
   * `POST /api/keys/subscription` `{ name, subscriptionId }` (management key or session token):
   * mints the key of a subscription or pool pledge (`poolPledges[].id` of the billing status).
   * The service allows one active key per subscription; whether one exists is for the caller to
   * check first (the billing status's `hasKey`, the keys' `subscriptionId`). The result carries
   * the full `apiKey` (`sk_…`), returned only this once.
   * @throws KeydeckApiError `invalid_request` (bad name or subscription id, nothing sent; or the
   *   service's refusal, e.g. a subscription that already has its key), `not_found`, others;
   *   never retried; `outcomeUnknown` when the connection failed after sending
   */
  async createSubscription(input: { name: string; subscriptionId: string }, options?: CallOptions): Promise<CreatedSubscriptionKey> {
    // Loaded on use (../poolSchemas.ts is built for the calls that need it).
    const { CreateSubscriptionKeyRequestSchema, CreatedSubscriptionKeySchema } = await import('../poolSchemas.js');
    const body = this.#core.parseInput(CreateSubscriptionKeyRequestSchema, input);
    return this.#core.call({ op: OPS.createSubscription, method: 'POST', path: '/api/keys/subscription', body, read: { schema: CreatedSubscriptionKeySchema, creates: true } }, options);
  }

  /**
   * The service's endpoints `PUT /api/keys/:id`: renames (`name`) and/or pauses or resumes (`isActive`) a consumption key.
   * @returns the body as sent by the service (not shown in the service's endpoints): parsed JSON, text, or undefined when empty
   * @throws KeydeckApiError `invalid_request` (bad id or patch, nothing sent), `not_found`, others; never retried
   */
  async update(id: string, patch: { name?: string; isActive?: boolean }, options?: CallOptions): Promise<unknown> {
    const keyId = this.#core.parseInput(KeyIdSchema, id, 'id');
    const body = this.#core.parseInput(UpdateKeyRequestSchema, patch);
    return this.#core.call({ op: OPS.update, method: 'PUT', path: `/api/keys/${encodeURIComponent(keyId)}`, body, read: { schema: null } }, options);
  }

  /**
   * The service's endpoints `DELETE /api/keys/:id`: deletes a consumption key for good (it is revoked).
   * @returns `{ deleted: true }`
   * @throws KeydeckApiError `invalid_request` (bad id, nothing sent), `not_found`, others; never retried
   */
  async delete(id: string, options?: CallOptions): Promise<DeletedKey> {
    const keyId = this.#core.parseInput(KeyIdSchema, id, 'id');
    return this.#core.call({ op: OPS.delete, method: 'DELETE', path: `/api/keys/${encodeURIComponent(keyId)}`, read: { schema: DeletedKeySchema } }, options);
  }
}
