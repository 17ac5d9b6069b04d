/**
 * The service's endpoints consumption key endpoints (bare JSON): `GET /api/keys`, `POST /api/keys/credit`,
 * `PUT /api/keys/:id`, `DELETE /api/keys/:id`; transitions of the service's states and transitions.
 */
import type { FastifyInstance } from 'fastify';
import { CreateKeyRequestSchema, KeyIdSchema, UpdateKeyRequestSchema } from '../../api/schemas.js';
import type { SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { consumptionKeyToWire, isExpired } from '../keys.js';
import type { AuthHook } from '../context.js';
import { parseBody } from '../validate.js';

/** Validates a `:id` path parameter (400 `invalid_request`, field `id`). */
export function parseKeyId(value: unknown): string {
  const result = KeyIdSchema.safeParse(value);
  if (!result.success) {
    throw new SandboxError('invalid_request', `id: ${result.error.issues[0]?.message ?? 'invalid id'}`, { field: 'id' });
  }
  return result.data;
}

/** 404 for a key id that is unknown, deleted, or another user's (same answer: no leak). */
export function keyNotFound(): SandboxError {
  return new SandboxError('not_found', 'no key with this id');
}

/** Most users whose serialised key list is kept. */
const LIST_CACHE_SIZE = 1_000;

/**
 * The serialised `GET /api/keys` answer of each user, valid while the user's keys are unchanged
 * (`KeyStore.version`) and the sandbox clock is before the next subscription expiry (which
 * flips `isActive` and `subscriptionStatus`). Serialising 1,000 keys costs milliseconds; this
 * makes repeated lists (a TUI polling) cost a map lookup.
 */
class KeyListCache {
  readonly #entries = new Map<string, { version: number; validUntil: number; json: string }>();

  json(ctx: SandboxContext, userId: string): string {
    const now = ctx.clock.now();
    const version = ctx.keys.version(userId);
    const hit = this.#entries.get(userId);
    if (hit && hit.version === version && now < hit.validUntil) return hit.json;
    const rows = ctx.keys.listConsumption(userId);
    let validUntil = Number.POSITIVE_INFINITY;
    for (const row of rows) {
      const expiry = row.subscription_expires_at;
      if (expiry !== null && expiry > now && expiry < validUntil) validUntil = expiry;
    }
    const json = JSON.stringify(rows.map((row) => consumptionKeyToWire(row, now)));
    if (this.#entries.size >= LIST_CACHE_SIZE) this.#entries.clear();
    this.#entries.set(userId, { version, validUntil, json });
    return json;
  }
}

/** Registers the consumption key routes; `requireAccount` authenticates. */
export function registerKeyRoutes(app: FastifyInstance, ctx: SandboxContext, requireAccount: AuthHook): void {
  const listCache = new KeyListCache();
  app.get('/api/keys', { onRequest: requireAccount }, async (request, reply) => {
    if (ctx.dialect !== 'seed') {
      // Another dialect reshapes the objects (../dialect.ts): no cached text then.
      const now = ctx.clock.now();
      return ctx.keys.listConsumption(request.accountId).map((row) => consumptionKeyToWire(row, now));
    }
    return reply.type('application/json; charset=utf-8').send(listCache.json(ctx, request.accountId));
  });

  app.post('/api/keys/credit', { onRequest: requireAccount }, async (request) => {
    const { name } = parseBody(CreateKeyRequestSchema, request.body);
    const userId = request.accountId;
    // Check and create in one synchronous step (credit balance > 0 required).
    if (ctx.ledger.remainingMicros(userId) <= 0) {
      throw new SandboxError('insufficient_balance', 'a credit key needs a credit balance above 0: top up first');
    }
    const now = ctx.clock.now();
    const { row, apiKey } = ctx.keys.createCredit(userId, name, now);
    return { ...consumptionKeyToWire(row, now), apiKey };
  });

  app.put('/api/keys/:id', { onRequest: requireAccount }, async (request) => {
    const id = parseKeyId((request.params as { id?: unknown }).id);
    const change = parseBody(UpdateKeyRequestSchema, request.body);
    const userId = request.accountId;
    const now = ctx.clock.now();
    const row = ctx.keys.getConsumption(userId, id);
    if (!row) throw keyNotFound();
    if (change.isActive === true && isExpired(row, now)) {
      throw new SandboxError('invalid_request', 'isActive: an expired subscription key cannot be reactivated; a new subscription payment creates a new key', { field: 'isActive' });
    }
    if (change.isActive === true && row.subscription_id && ctx.pools.activeKeyOf(row.subscription_id, ctx.keys.listConsumption(userId), now, row.id)) {
      throw new SandboxError('invalid_request', 'isActive: its subscription already has another active key (one active key per subscription)', {
        status: 409,
        field: 'isActive',
      });
    }
    ctx.keys.updateConsumption(userId, id, change);
    return consumptionKeyToWire({ ...row, ...(change.name !== undefined && { name: change.name }), ...(change.isActive !== undefined && { is_active: change.isActive ? 1 : 0 }) }, now);
  });

  app.delete('/api/keys/:id', { onRequest: requireAccount }, async (request) => {
    const id = parseKeyId((request.params as { id?: unknown }).id);
    if (!ctx.keys.deleteConsumption(request.accountId, id, ctx.clock.now())) throw keyNotFound();
    return { deleted: true };
  });
}
