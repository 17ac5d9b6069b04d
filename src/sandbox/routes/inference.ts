/**
 * The stand-in inference endpoint of docs/sandbox-service.md: `POST /v1/chat/completions` with an `sk_` key.
 * Answers a canned completion (OpenAI-shaped), charges credit keys (`sandbox_cost_usd`, default
 * {@link DEFAULT_COST_USD}), holds the answer `sandbox_delay_ms`, and enforces the service's states and transitions/the service's errors (inactive,
 * expired, over budget) and the service's limits (rpm, tokens/min, concurrency).
 *
 * Order of checks: credential (401/403) → body (400) → key state (403 deactivated, 401 expired) → limits (429/400) →
 * budget (402) → admit and charge, all in one synchronous step after the body is read, so
 * concurrent requests cannot both pass a check that only one of them should.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from '../../api/zod.js';
import type { SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { isExpired } from '../keys.js';
import { LIMITS, limitsOf } from '../limits.js';
import { checkReservedHours, isPoolKey } from '../pools.js';
import { microsToUsd, usdToMicros } from '../money.js';
import type { AuthHook } from '../context.js';
import { parseBody } from '../validate.js';

/** The canned answer every completion returns. */
export const CANNED_ANSWER = 'This is a canned answer from the keydeck sandbox. No model was run and nothing real was billed.';
/** Charge of a credit-key request without `sandbox_cost_usd`, USD. */
export const DEFAULT_COST_USD = 0.001;
/** Longest `sandbox_delay_ms` accepted, ms. */
export const MAX_DELAY_MS = 30_000;

/** Token estimate of a text: ceil(characters / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Tokens a request counts against a tokens-per-minute limit: the messages' estimate plus
 * `max_tokens` when given, else the canned answer's estimate.
 */
export function estimateRequestTokens(messages: ReadonlyArray<{ content: string }>, maxTokens?: number): number {
  let chars = 0;
  for (const m of messages) chars += m.content.length;
  return Math.ceil(chars / 4) + (maxTokens ?? estimateTokens(CANNED_ANSWER));
}

/** Body of `POST /v1/chat/completions` (other OpenAI fields such as `temperature` are ignored). */
export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string({ error: 'model must be a string' }).max(200, 'model must be at most 200 characters').optional(),
  messages: z
    .array(
      z.looseObject({
        role: z.string({ error: 'role must be a string' }).min(1, 'role must not be empty').max(64),
        content: z.string({ error: 'content must be a string' }),
      }),
      { error: 'messages must be an array of { role, content }' },
    )
    .min(1, 'messages must hold at least one message')
    .max(1000, 'messages must hold at most 1000 messages'),
  max_tokens: z.number({ error: 'max_tokens must be a number' }).int('max_tokens must be an integer').min(1).max(1_000_000).optional(),
  sandbox_cost_usd: z
    .number({ error: 'sandbox_cost_usd must be a number' })
    .refine(Number.isFinite, 'sandbox_cost_usd must be finite')
    .refine((v) => v >= 0, 'sandbox_cost_usd must not be negative')
    .refine((v) => v <= 1_000_000, 'sandbox_cost_usd must be at most 1000000')
    .optional(),
  sandbox_delay_ms: z
    .number({ error: 'sandbox_delay_ms must be a number' })
    .int('sandbox_delay_ms must be an integer')
    .min(0, 'sandbox_delay_ms must not be negative')
    .max(MAX_DELAY_MS, `sandbox_delay_ms must be at most ${MAX_DELAY_MS}`)
    .optional(),
});

/** Registers the inference route; `requireConsumer` authenticates an `sk_` key. */
export function registerInferenceRoutes(app: FastifyInstance, ctx: SandboxContext, requireConsumer: AuthHook): void {
  app.post('/v1/chat/completions', { onRequest: requireConsumer }, async (request) => {
    const body = parseBody(ChatCompletionRequestSchema, request.body);
    const presented = request.consumer!;
    // Re-read the key now that the body is in: a PUT or DELETE meanwhile applies at once.
    const key = ctx.keys.getConsumption(presented.user_id, presented.id);
    if (!key) throw new SandboxError('unauthorized', 'invalid credentials: the token is unknown, revoked or deleted');
    const now = ctx.clock.now();
    if (key.is_active !== 1) {
      // 403 as the usage page's "403 Key is deactivated": the key is known, and refused.
      throw new SandboxError('forbidden', 'this key is deactivated: reactivate it (PUT /api/keys/:id with isActive true) to use it');
    }
    if (isExpired(key, now)) {
      throw new SandboxError('unauthorized', `this subscription key expired at ${new Date(key.subscription_expires_at!).toISOString()}: its 30-day period has ended`);
    }
    // A pool key: 429 outside its reserved blocks, then 1 concurrent request, no rpm/tpm.
    const pool = isPoolKey(key);
    if (pool) checkReservedHours(key, now);
    const tokens = estimateRequestTokens(body.messages, body.max_tokens);
    ctx.limiter.check(key.id, pool ? LIMITS.pool : limitsOf(key), tokens, now);
    let chargedMicros = 0;
    let remainingMicros: number | undefined;
    const costMicros = usdToMicros(body.sandbox_cost_usd ?? DEFAULT_COST_USD);
    if (key.key_type === 'credit') {
      chargedMicros = costMicros;
      remainingMicros = ctx.ledger.charge(key.user_id, key.id, chargedMicros);
    }
    // A usage event for GET /api/usage and /v1/usage: a subscription key's cost is
    // tracked as its spend, not charged to the balance.
    ctx.usage.record(key.user_id, key.id, now, costMicros, tokens);
    const release = ctx.limiter.admit(key.id, tokens, now);
    try {
      if (body.sandbox_delay_ms) await ctx.sleep(body.sandbox_delay_ms);
    } finally {
      release();
    }
    const promptTokens = tokens - (body.max_tokens ?? estimateTokens(CANNED_ANSWER));
    const completionTokens = estimateTokens(CANNED_ANSWER);
    return {
      id: `chatcmpl-sandbox-${randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(now / 1000),
      model: body.model ?? 'sandbox',
      choices: [{ index: 0, message: { role: 'assistant', content: CANNED_ANSWER }, finish_reason: 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
      sandbox: {
        keyType: key.key_type,
        chargedUsd: microsToUsd(chargedMicros),
        ...(remainingMicros !== undefined && { remainingUsd: microsToUsd(remainingMicros) }),
      },
    };
  });
}
