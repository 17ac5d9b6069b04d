/**
 * `client.managementKeys`: the management keys of the service's endpoints (`/api/keys/management…`): list, create,
 * delete. Every method takes an optional last argument `CallOptions` and rejects with a
 * KeydeckApiError (or an `AbortError` when cancelled); see src/api/core.ts for the policy.
 */
import type { ApiCore, CallOptions } from '../core.js';
import type { OperationInfo } from '../failures.js';
import { CreateKeyRequestSchema, CreatedManagementKeySchema, KeyIdSchema, ManagementKeyListSchema, type CreatedManagementKey, type ManagementKey } from '../schemas.js';

const OPS = {
  list: { name: 'listManagementKeys', what: 'list the management keys', changesState: false },
  create: { name: 'createManagementKey', what: 'create the management key', check: 'list the management keys', changesState: true },
  delete: { name: 'deleteManagementKey', what: 'delete the management key', check: 'list the management keys', changesState: true, byId: true },
} satisfies Record<string, OperationInfo>;

/** The management keys of the account. */
export class ManagementKeysResource {
  readonly #core: ApiCore;

  /** @internal built by `KeydeckClient`. */
  constructor(core: ApiCore) {
    this.#core = core;
  }

  /**
   * The service's endpoints `GET /api/keys/management`: the management keys, with `keyPrefix`, never `apiKey`.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async list(options?: CallOptions): Promise<ManagementKey[]> {
    return this.#core.call({ op: OPS.list, method: 'GET', path: '/api/keys/management', read: { schema: ManagementKeyListSchema } }, options);
  }

  /**
   * The service's endpoints `POST /api/keys/management`: creates a management key; the result's `apiKey` (`mk_…`) is
   * the full key, returned only this once.
   * @throws KeydeckApiError `invalid_request` (bad name, nothing sent), others; never retried
   */
  async create(input: { name: string }, options?: CallOptions): Promise<CreatedManagementKey> {
    const body = this.#core.parseInput(CreateKeyRequestSchema, input);
    return this.#core.call({ op: OPS.create, method: 'POST', path: '/api/keys/management', body, read: { schema: CreatedManagementKeySchema, creates: true } }, options);
  }

  /**
   * The service's endpoints `DELETE /api/keys/management/:id`: deletes a management key.
   * @returns the body as sent (not shown in the service's endpoints): parsed JSON, text, or undefined when empty
   * @throws KeydeckApiError `invalid_request` (bad id, nothing sent), `not_found`, others; never retried
   */
  async delete(id: string, options?: CallOptions): Promise<unknown> {
    const keyId = this.#core.parseInput(KeyIdSchema, id, 'id');
    return this.#core.call({ op: OPS.delete, method: 'DELETE', path: `/api/keys/management/${encodeURIComponent(keyId)}`, read: { schema: null } }, options);
  }
}
