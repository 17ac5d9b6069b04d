/**
 * §4 billing endpoints, in the `{ success, data }` envelope: `POST /api/billing/topup`,
 * `POST /api/billing/verify-topup`, `GET /api/billing/credits`, `GET /api/billing/status`.
 */
import type { FastifyInstance } from 'fastify';
import { TopUpRequestSchema, VerifyTopUpRequestSchema } from '../../api/schemas.js';
import type { SandboxContext } from '../context.js';
import { centsUsdToMicros } from '../money.js';
import type { AuthHook } from '../server.js';
import { parseBody } from '../validate.js';

/** The §4 success envelope. */
function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** Registers the billing routes; `requireAccount` authenticates (§5). */
export function registerBillingRoutes(app: FastifyInstance, ctx: SandboxContext, requireAccount: AuthHook): void {
  app.get('/api/billing/credits', { onRequest: requireAccount }, async (request) => ok(ctx.ledger.credits(request.accountId)));

  app.get('/api/billing/status', { onRequest: requireAccount }, async (request) =>
    ok(ctx.ledger.status(request.accountId, ctx.baseUrl)),
  );

  app.post('/api/billing/topup', { onRequest: requireAccount }, async (request) => {
    const { amount, method } = parseBody(TopUpRequestSchema, request.body);
    const userId = request.accountId;
    const micros = centsUsdToMicros(amount);
    switch (method) {
      case 'usdc':
        return ok(ctx.ledger.usdcInstruction(userId, micros));
      case 'card_checkout': {
        const sessionId = ctx.ledger.createCheckout(userId, micros);
        return ok({ sessionUrl: `${ctx.baseUrl}/sandbox/checkout/${sessionId}`, sessionId });
      }
      case 'card_direct':
        return ok(ctx.ledger.cardDirect(userId, micros));
    }
  });

  app.post('/api/billing/verify-topup', { onRequest: requireAccount }, async (request) => {
    const { txHash, amount } = parseBody(VerifyTopUpRequestSchema, request.body);
    return ok(ctx.ledger.verifyUsdc(request.accountId, txHash, centsUsdToMicros(amount)));
  });
}
