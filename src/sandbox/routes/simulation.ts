/**
 * docs/sandbox-service.md simulation endpoints: `GET /sandbox` (`{ sandbox: "keydeck", instance, dialect }`: a
 * keydeck sandbox, and which database), `POST /sandbox/users`, `POST /sandbox/chain/transfers` (a real
 * token transfer when the sandbox runs on a chain, simulated otherwise), `GET
 * /sandbox/chain` (`{ rpcUrl }`, null without a chain), `POST /sandbox/subscriptions`,
 * `POST /sandbox/clock`, `POST /sandbox/cards/decline`, `POST /sandbox/cards/delay` (a
 * card-on-file charge whose credit lags, ../cardCharges.ts).
 */
import type { FastifyInstance } from 'fastify';
import { z } from '../../api/zod.js';
import { KeyNameSchema } from '../../api/schemas.js';
import { MAX_CARD_DELAY_SECONDS } from '../cardCharges.js';
import { MAX_CLOCK_OFFSET_MS } from '../clock.js';
import type { SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { consumptionKeyToWire, type SubscriptionBlock, type SubscriptionPlan } from '../keys.js';
import { decimalStringToMicros, usdToMicros } from '../money.js';
import { findPool } from '../pools.js';
import type { AuthHook } from '../context.js';
import { parseBody } from '../validate.js';
import { USDC_BASE_CONTRACT } from '../../api/chain/rpcUrl.js';

/** Pool subscription blocks. */
export const SUBSCRIPTION_BLOCKS = ['asia', 'europe', 'americas'] as const;

/**
 * `POST /sandbox/subscriptions` body: 1–3 distinct blocks and either a `plan` (the seed's model:
 * one key per payment, returned with its `apiKey`; an optional key `name`) or a `pool` (id or
 * slug: the pages' model, a pool pledge without a key).
 */
export const SubscriptionRequestSchema = z
  .strictObject({
    plan: z.enum(['standard', 'pro'], { error: 'plan must be standard or pro' }).optional(),
    pool: z.string({ error: 'pool must be a pool id or slug' }).min(1).max(200).optional(),
    blocks: z
      .array(z.enum(SUBSCRIPTION_BLOCKS, { error: 'blocks must be asia, europe or americas' }), {
        error: 'blocks must be an array',
      })
      .min(1, 'blocks must hold 1 to 3 blocks')
      .max(3, 'blocks must hold 1 to 3 blocks')
      .refine((b) => new Set(b).size === b.length, 'blocks must not repeat a block'),
    name: KeyNameSchema.optional(),
  })
  .refine((b) => (b.plan === undefined) !== (b.pool === undefined), { message: 'give either plan (a subscription key) or pool (a pledge without a key)', path: ['plan'] });

/** Largest simulated transfer, USD. */
const MAX_TRANSFER_USD = 10_000_000;

/** `POST /sandbox/chain/transfers` body: `to` address and `amount` (decimal string, or number). */
export const TransferRequestSchema = z.strictObject({
  to: z.string({ error: 'to must be a string' }).regex(/^0x[0-9a-fA-F]{40}$/, 'to must be 0x followed by 40 hex digits'),
  amount: z.union([z.string(), z.number()], { error: 'amount must be a decimal string such as "25"' }),
});

/** `POST /sandbox/cards/decline` body: how many of the account's next card charges fail (0–100; 0 ends it). */
export const CardDeclineRequestSchema = z.strictObject({
  count: z
    .number({ error: 'count must be a whole number from 0 to 100' })
    .int('count must be a whole number from 0 to 100')
    .min(0, 'count must be a whole number from 0 to 100')
    .max(100, 'count must be a whole number from 0 to 100'),
});

/** `POST /sandbox/cards/delay` body: how long the account's next card-on-file charges take to be credited, seconds (0 to {@link MAX_CARD_DELAY_SECONDS}; 0: at once). */
export const CardDelayRequestSchema = z.strictObject({
  seconds: z
    .number({ error: `seconds must be a whole number from 0 to ${MAX_CARD_DELAY_SECONDS}` })
    .int(`seconds must be a whole number from 0 to ${MAX_CARD_DELAY_SECONDS}`)
    .min(0, `seconds must be a whole number from 0 to ${MAX_CARD_DELAY_SECONDS}`)
    .max(MAX_CARD_DELAY_SECONDS, `seconds must be a whole number from 0 to ${MAX_CARD_DELAY_SECONDS}`),
});

/** `POST /sandbox/clock` body. */
export const ClockRequestSchema = z.strictObject({
  advanceSeconds: z
    .number({ error: 'advanceSeconds must be a number' })
    .refine(Number.isFinite, 'advanceSeconds must be finite')
    .refine((v) => v >= 0, 'advanceSeconds must not be negative (the clock only moves forward)')
    .refine((v) => v <= 10 * 365 * 24 * 3600, 'advanceSeconds must be at most ten years'),
});

function transferMicros(amount: string | number): number {
  const micros = typeof amount === 'string' ? decimalStringToMicros(amount) : Number.isFinite(amount) && amount >= 0 ? usdToMicros(amount) : null;
  if (micros === null || micros <= 0 || micros > MAX_TRANSFER_USD * 1_000_000) {
    throw new SandboxError('invalid_request', 'amount must be a positive USDC amount with at most 6 decimals, such as "25"', {
      field: 'amount',
    });
  }
  return micros;
}

const PLAN_LABEL: Record<SubscriptionPlan, string> = { standard: 'Standard', pro: 'Pro' };

/** Registers the simulation routes; `requireAccount` authenticates `/sandbox/subscriptions` and `/sandbox/cards/*`. */
export function registerSimulationRoutes(app: FastifyInstance, ctx: SandboxContext, requireAccount: AuthHook): void {
  // Who answers here: keydeck processes join the process serving their database, and
  // the TUI badges a service on this machine SANDBOX, only when this says so.
  app.get('/sandbox', async () => ({ sandbox: 'keydeck', instance: ctx.instance, dialect: ctx.dialect }));

  app.post('/sandbox/users', async () => ({ token: ctx.users.create(ctx.clock.now()).token }));

  app.post('/sandbox/chain/transfers', async (request) => {
    const { to, amount } = parseBody(TransferRequestSchema, request.body);
    const micros = transferMicros(amount);
    // On a real chain: a token transfer from the funded payer (USDC's 6 decimals are µUSD).
    if (ctx.chain) return { txHash: await ctx.chain.transfer(to as `0x${string}`, BigInt(micros)) };
    return { txHash: ctx.ledger.recordTransfer(to, micros) };
  });

  app.get('/sandbox/chain', async () => ({
    rpcUrl: ctx.chain?.rpcUrl ?? null,
    ...(ctx.chain && { chainId: ctx.chain.chainId, token: USDC_BASE_CONTRACT, payer: ctx.chain.payer }),
  }));

  app.post('/sandbox/subscriptions', { onRequest: requireAccount }, async (request) => {
    const body = parseBody(SubscriptionRequestSchema, request.body);
    const blocks = body.blocks as SubscriptionBlock[];
    if (body.pool !== undefined) {
      const pool = findPool(body.pool);
      if (!pool) throw new SandboxError('invalid_request', 'pool: no pool with this id or slug', { field: 'pool' });
      const now = ctx.clock.now();
      const pledge = ctx.pools.pledge(request.accountId, pool, blocks, now);
      return ctx.pools.pledgeWire(pledge, [], now);
    }
    const plan = body.plan as SubscriptionPlan;
    const name = body.name ?? `${PLAN_LABEL[plan]} subscription (${blocks.join(', ')})`;
    const now = ctx.clock.now();
    const { row, apiKey } = ctx.keys.createSubscription(request.accountId, plan, blocks, name, now);
    return { ...consumptionKeyToWire(row, now), apiKey, blocks };
  });

  // The next N card charges of the account (card on file, checkout page) are declined.
  app.post('/sandbox/cards/decline', { onRequest: requireAccount }, async (request) => {
    const { count } = parseBody(CardDeclineRequestSchema, request.body);
    ctx.declines.declineNext(request.accountId, count);
    return { declineNext: ctx.declines.left(request.accountId) };
  });

  // The account's next card-on-file charges are credited `seconds` after they are made (money in flight).
  app.post('/sandbox/cards/delay', { onRequest: requireAccount }, async (request) => {
    const { seconds } = parseBody(CardDelayRequestSchema, request.body);
    ctx.ledger.cards.setDelay(request.accountId, seconds);
    return { delaySeconds: ctx.ledger.cards.delayOf(request.accountId) };
  });

  app.post('/sandbox/clock', async (request) => {
    const { advanceSeconds } = parseBody(ClockRequestSchema, request.body);
    if (ctx.clock.offsetMs() + advanceSeconds * 1000 > MAX_CLOCK_OFFSET_MS) {
      const aheadDays = Math.floor(ctx.clock.offsetMs() / 86_400_000);
      throw new SandboxError('invalid_request', `advanceSeconds: the sandbox clock may run at most 100 years ahead of real time (it is ${aheadDays} days ahead)`, {
        field: 'advanceSeconds',
      });
    }
    ctx.clock.advance(advanceSeconds);
    return { now: new Date(ctx.clock.now()).toISOString(), offsetSeconds: ctx.clock.offsetMs() / 1000 };
  });
}
