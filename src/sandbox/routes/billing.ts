/**
 * The service's endpoints for billing endpoints, in the `{ success, data }` envelope (reshaped by the dialect, ../dialect.ts): `POST /api/billing/topup`,
 * `POST /api/billing/verify-topup`, `GET /api/billing/credits`, `GET /api/billing/status`; and the
 * older billing page's `POST /api/billing/cancel` `{ subscriptionId }` (its answer is not
 * shown there): a pool pledge stops renewing and stays active until its period end, answered
 * `{ subscriptionId, status, currentPeriodEnd, cancelAtPeriodEnd: true }`; a subscription key of
 * the spec's model (paid once for 30 days) already ends then and is answered the same; an
 * unknown id is 404, an ended pledge 400. Every dialect has subscriptions, so every dialect
 * answers it.
 */
import type { FastifyInstance } from 'fastify';
import { CancelSubscriptionRequestSchema } from '../../api/poolSchemas.js';
import { TopUpRequestSchema, VerifyTopUpRequestSchema } from '../../api/schemas.js';
import type { SandboxContext } from '../context.js';
import { instructedMicros, methodKind, methodNames } from '../dialect.js';
import { SandboxError } from '../errors.js';
import { centsUsdToMicros } from '../money.js';
import type { AuthHook } from '../context.js';
import { parseBody } from '../validate.js';
import { BASE_CHAIN_ID, USDC_BASE_CONTRACT } from '../../api/chain/rpcUrl.js';

/** The service's endpoints success envelope. */
function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/**
 * On a real chain: reads `txHash`'s receipt and records its USDC transfer to one of
 * `userId`'s deposit addresses, so that the ledger judges it. What the real service refuses is
 * refused here: another chain, pending, reverted, another token, another recipient → nothing is
 * recorded (the verify answers `not_found`); the amount is the ledger's check. A chain that
 * cannot be read answers 502.
 */
async function readChainTransfer(ctx: SandboxContext, userId: string, txHash: string): Promise<void> {
  let read;
  try {
    read = await ctx.chain!.reader.readTransaction(txHash.toLowerCase() as `0x${string}`);
  } catch {
    throw new SandboxError('server_error', 'the sandbox chain cannot be read', { status: 502 });
  }
  if (read.kind !== 'mined' || read.status !== 'success' || read.chainId !== BASE_CHAIN_ID) return;
  const paid = read.transfers.filter((t) => t.token.toLowerCase() === USDC_BASE_CONTRACT.toLowerCase() && ctx.ledger.isDepositOf(t.to, userId));
  if (paid.length === 0) return;
  const units = paid.filter((t) => t.to === paid[0]!.to).reduce((sum, t) => sum + t.value, 0n);
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) return;
  ctx.ledger.recordChainTransfer(txHash, paid[0]!.to, Number(units));
}

/** Registers the billing routes; `requireAccount` authenticates. */
export function registerBillingRoutes(app: FastifyInstance, ctx: SandboxContext, requireAccount: AuthHook): void {
  app.get('/api/billing/credits', { onRequest: requireAccount }, async (request) => ok(ctx.ledger.credits(request.accountId)));

  app.get('/api/billing/status', { onRequest: requireAccount }, async (request) => {
    const status = ctx.ledger.status(request.accountId, ctx.baseUrl, methodNames(ctx.dialect));
    // Pool pledges of the pages' model: after the time-block keys of the seed's model.
    const now = ctx.clock.now();
    const keys = ctx.keys.listConsumption(request.accountId);
    const pledges = ctx.pools.list(request.accountId).map((p) => ctx.pools.pledgeWire(p, keys, now));
    return ok({ ...status, poolPledges: [...(status.poolPledges as unknown[]), ...pledges] });
  });

  app.post('/api/billing/topup', { onRequest: requireAccount }, async (request) => {
    const { amount, method: name } = parseBody(TopUpRequestSchema, request.body);
    const method = methodKind(name);
    if (method === undefined) {
      const names = methodNames(ctx.dialect);
      throw new SandboxError(
        'invalid_request',
        `method: "${name}" is not a top-up method; use ${names.card_checkout}, ${names.card_direct} or ${names.usdc}${ctx.dialect === 'seed' ? ' (stripe and stripe_direct are accepted too)' : ' (card_checkout and card_direct are accepted too)'}`,
        { field: 'method' },
      );
    }
    const userId = request.accountId;
    const micros = centsUsdToMicros(amount);
    switch (method) {
      case 'usdc':
        return ok(ctx.ledger.usdcInstruction(userId, instructedMicros(ctx.dialect, micros)));
      case 'card_checkout': {
        const sessionId = ctx.ledger.createCheckout(userId, micros);
        return ok({ sessionUrl: `${ctx.baseUrl}/sandbox/checkout/${sessionId}`, sessionId });
      }
      case 'card_direct':
        if (ctx.declines.useOne(userId)) {
          // Listed in the billing status's failedTopUps (../cardCharges.ts), as a processor keeps a declined payment.
          ctx.ledger.cards.recordDecline(userId, micros);
          throw new SandboxError('card_declined', 'Your card was declined (sandbox: POST /sandbox/cards/decline). Nothing was charged.');
        }
        return ok(ctx.ledger.cardDirect(userId, micros));
    }
  });

  app.post('/api/billing/cancel', { onRequest: requireAccount }, async (request) => {
    const { subscriptionId } = parseBody(CancelSubscriptionRequestSchema, request.body);
    const userId = request.accountId;
    const now = ctx.clock.now();
    const pledge = ctx.pools.get(userId, subscriptionId);
    if (pledge) {
      if (now >= pledge.period_end) {
        throw new SandboxError('invalid_request', `subscriptionId: this subscription ended at ${new Date(pledge.period_end).toISOString()}`, { field: 'subscriptionId' });
      }
      const cancelled = ctx.pools.cancel(userId, subscriptionId)!;
      return ok({ subscriptionId, status: 'active', currentPeriodEnd: new Date(cancelled.period_end).toISOString(), cancelAtPeriodEnd: true });
    }
    // A subscription key of the spec's model is its own subscription, paid once: it ends anyway.
    const key = ctx.keys.getConsumption(userId, subscriptionId);
    if (key && key.key_type === 'subscription' && !key.subscription_id) {
      const end = key.subscription_expires_at ?? key.created_at;
      if (now >= end) throw new SandboxError('invalid_request', `subscriptionId: this subscription ended at ${new Date(end).toISOString()}`, { field: 'subscriptionId' });
      return ok({ subscriptionId, status: 'active', currentPeriodEnd: new Date(end).toISOString(), cancelAtPeriodEnd: true });
    }
    throw new SandboxError('not_found', 'no subscription with this id');
  });

  app.post('/api/billing/verify-topup', { onRequest: requireAccount }, async (request) => {
    const { txHash, amount } = parseBody(VerifyTopUpRequestSchema, request.body);
    // A transfer the ledger knows already (credited or not) is not read from the chain again.
    if (ctx.chain && !ctx.ledger.hasTransfer(txHash)) await readChainTransfer(ctx, request.accountId, txHash);
    return ok(ctx.ledger.verifyUsdc(request.accountId, txHash, centsUsdToMicros(amount)));
  });
}
