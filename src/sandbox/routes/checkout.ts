/**
 * The hosted card checkout page of the card checkout session (`sessionUrl`): `GET /sandbox/checkout/:sessionId`
 * shows the amount and a Pay button (an HTML form); `POST` to the same URL pays once and
 * credits the account (a second POST credits nothing). No authentication: the session id is
 * the capability, as on a real processor's hosted page.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';

const SESSION_ID = /^cs_sandbox_[0-9A-Za-z]{24}$/;

function usd(micros: number): string {
  return `$${(micros / 1_000_000).toFixed(2)}`;
}

function page(reply: FastifyReply, title: string, body: string, status = 200): FastifyReply {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · keydeck sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}
main{border:1px solid #ccc;border-radius:8px;padding:1.5rem}button{font-size:1.1rem;padding:.6rem 1.4rem;cursor:pointer}
.note{color:#666;font-size:.9rem}</style></head>
<body><main><h1>${title}</h1>${body}<p class="note">keydeck sandbox: no real card is charged.</p></main></body></html>
`;
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
}

function sessionIdOf(params: unknown): string {
  const id = (params as { sessionId?: unknown }).sessionId;
  if (typeof id !== 'string' || !SESSION_ID.test(id)) throw new SandboxError('not_found', 'no checkout session with this id');
  return id;
}

/** Registers the checkout page routes. */
export function registerCheckoutRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get('/sandbox/checkout/:sessionId', async (request, reply) => {
    const session = ctx.ledger.checkout(sessionIdOf(request.params));
    if (!session) throw new SandboxError('not_found', 'no checkout session with this id');
    if (session.status === 'succeeded') {
      return page(reply, 'Already paid', `<p>This checkout session (${usd(session.amountMicros)}) is already paid.</p>`);
    }
    return page(
      reply,
      'Sandbox checkout',
      `<p>Top-up of <strong>${usd(session.amountMicros)}</strong> to your account's credit balance.</p>
<form method="post"><button type="submit">Pay ${usd(session.amountMicros)}</button></form>`,
    );
  });

  app.post('/sandbox/checkout/:sessionId', async (request, reply) => {
    const sessionId = sessionIdOf(request.params);
    const session = ctx.ledger.checkout(sessionId);
    if (!session) throw new SandboxError('not_found', 'no checkout session with this id');
    const amount = usd(session.amountMicros);
    if (session.status !== 'succeeded' && ctx.declines.useOne(session.userId)) {
      return page(reply, 'Card declined', `<p>Your card was declined (sandbox: POST /sandbox/cards/decline). Nothing was charged; the ${amount} top-up is still unpaid.</p>`, 402);
    }
    const outcome = ctx.ledger.payCheckout(sessionId);
    if (!outcome) throw new SandboxError('not_found', 'no checkout session with this id');
    return outcome === 'paid'
      ? page(reply, 'Payment received', `<p>${amount} was credited to your account. You can close this page and return to keydeck.</p>`)
      : page(reply, 'Already paid', `<p>This checkout session (${amount}) was already paid; nothing was charged again.</p>`);
  });
}
