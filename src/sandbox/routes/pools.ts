/**
 * Pool subscriptions: `GET /api/pools`, `GET /api/pools/:id` (UUID or slug) and
 * `POST /api/keys/subscription` `{ name, subscriptionId }`, which mints the one active key of a
 * pool pledge (../pools.ts; pages: https://docs.cheapestinference.com/api/unlimited-subscriptions/,
 * https://cheapestinference-docs.pages.dev/guides/per-key-plans/). Answers are bare here and
 * enveloped by the docs-v2 dialect (../dialect.ts), as every `/api/*` answer.
 *
 * Refusals: an unknown subscription id 404; a subscription that already has an active key 409
 * (`invalid_request`, field `subscriptionId`, naming the key); an ended one 400; a key of the
 * seed's model (one key per payment) 409 too, as it is its subscription's key.
 */
import type { FastifyInstance } from 'fastify';
import { CreateSubscriptionKeyRequestSchema } from '../../api/poolSchemas.js';
import type { AuthHook, SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { consumptionKeyToWire } from '../keys.js';
import { findPool, SANDBOX_POOLS } from '../pools.js';
import { parseBody } from '../validate.js';
import { parseKeyId } from './keys.js';

/** Registers the pool routes; `requireAccount` authenticates. */
export function registerPoolRoutes(app: FastifyInstance, ctx: SandboxContext, requireAccount: AuthHook): void {
  app.get('/api/pools', { onRequest: requireAccount }, async () => {
    const now = ctx.clock.now();
    return SANDBOX_POOLS.map((pool) => ctx.pools.listed(pool, now));
  });

  app.get('/api/pools/:id', { onRequest: requireAccount }, async (request) => {
    const pool = findPool(parseKeyId((request.params as { id?: unknown }).id));
    if (!pool) throw new SandboxError('not_found', 'no pool with this id or slug');
    return ctx.pools.detail(pool, ctx.clock.now());
  });

  app.post('/api/keys/subscription', { onRequest: requireAccount }, async (request) => {
    const { name, subscriptionId } = parseBody(CreateSubscriptionKeyRequestSchema, request.body);
    const userId = request.accountId;
    const now = ctx.clock.now();
    const keys = ctx.keys.listConsumption(userId);
    const pledge = ctx.pools.get(userId, subscriptionId);
    if (!pledge) {
      const own = keys.find((k) => k.id === subscriptionId && k.key_type === 'subscription' && !k.subscription_id);
      if (own) {
        throw new SandboxError('invalid_request', `subscriptionId: this subscription already has its key, "${own.name}" (one key per subscription payment)`, {
          status: 409,
          field: 'subscriptionId',
        });
      }
      throw new SandboxError('not_found', 'no subscription with this id');
    }
    if (now >= pledge.period_end) {
      throw new SandboxError('invalid_request', `subscriptionId: this subscription ended at ${new Date(pledge.period_end).toISOString()}`, {
        field: 'subscriptionId',
      });
    }
    // Check and create in one synchronous step: one active key per subscription.
    const active = ctx.pools.activeKeyOf(pledge.id, keys, now);
    if (active) {
      throw new SandboxError(
        'invalid_request',
        `subscriptionId: this subscription already has an active key, "${active.name}" (${active.id}); one active key per subscription: deactivate or delete it first`,
        { status: 409, field: 'subscriptionId' },
      );
    }
    const { row, apiKey } = ctx.keys.createPoolKey(userId, pledge, name, now);
    return { ...consumptionKeyToWire(row, now), apiKey };
  });
}
