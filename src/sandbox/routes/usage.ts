/**
 * The usage endpoints of the real service's usage page, fed by the usage events the
 * inference route records (../usage.ts), on the sandbox clock:
 *
 * | method, path | auth | answer |
 * |---|---|---|
 * | `GET /api/usage` | session token or `mk_` | seed and `docs-v2`: `{ success, data: [entry] }` (the newer page's envelope; entry below); `docs-v1`: the older page's aggregated form `{ startDate, endDate, totalSpend, totalRequests, totalTokens, keys: [{ keyId, name, spend, requests, tokens }] }` over `?startDate=&endDate=` (default the last 30 days), money as decimal strings |
 * | `GET /api/usage/:keyId` | session token or `mk_` | one entry (seed, `docs-v2`: enveloped); `docs-v1`: `{ keyId, name, startDate, endDate, spend, requests, tokens }`; 404 for another user's or an unknown key |
 * | `GET /v1/usage` | `sk_` | the page's `{ budget, rate_limits, plan, credits, key }`, for credit and subscription keys; 403 for a deactivated key, 404 for a deleted one |
 * | `GET /api/plans` | none | `[{ slug, name, priceUsdc, rateLimits: { tpm_limit, rpm_limit } }]` with the service's limits's limits (standard 60 rpm / 3,333 tpm, pro 200 / 13,333) |
 * | `GET /sandbox/usage/calls` | none | every usage read seen: `{ windowSeconds, served, refused, allTime }` |
 * | `POST /sandbox/usage/unavailable` `{ "unavailable": true }` | none | usage reads answer 502 "usage data temporarily unavailable" until turned off |
 *
 * An entry (keydeck's assumption of the newer page's cut example): `{ id, name, keyType, keyPlan,
 * isActive, createdAt, usage: { 24h|7d|30d|total: { spend, requests, tokens } }, maxBudget,
 * subscription: { planSlug, status, expiresAt } | null }` (a credit key's `total` is its the consumption key's fields
 * `spend`, its `maxBudget` the account's max_budget; a key deleted in the last 30 days is still
 * listed, `isActive: false`, with `deletedAt`). Every usage read (the three `GET`s but plans)
 * counts against the 12-per-12-hours limit of its credential (429 with `Retry-After`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from '../../api/zod.js';
import type { AuthHook, SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import { isExpired } from '../keys.js';
import { LIMITS, limitsOf } from '../limits.js';
import { isPoolKey } from '../pools.js';
import { microsToDecimalString, microsToUsd } from '../money.js';
import { hashSecret } from '../secrets.js';
import { emptySums, PERIODS, type KeyPeriodSums, type PeriodSums, type UsageKeyRow } from '../usage.js';
import { parseBody } from '../validate.js';
import { keyNotFound, parseKeyId } from './keys.js';

/** The plans of `GET /api/plans`: the service's slugs and prices, the service's limits's limits. */
export function plansAnswer(): Array<Record<string, unknown>> {
  const plan = (slug: 'standard' | 'pro', name: string, priceUsdc: string) => ({
    slug,
    name,
    priceUsdc,
    rateLimits: { tpm_limit: LIMITS[slug].tokensPerMinute, rpm_limit: LIMITS[slug].requestsPerMinute },
  });
  return [plan('standard', 'Standard', '20'), plan('pro', 'Pro', '60')];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const older = (micros: number): string => {
  const [whole, frac = ''] = microsToDecimalString(micros).split('.');
  return `${whole}.${frac.padEnd(2, '0')}`;
};

/** The newer page's entry of one key (see the module comment). */
function entryOf(row: UsageKeyRow, sums: KeyPeriodSums, now: number, accountMaxBudgetMicros: number): Record<string, unknown> {
  const period = (p: PeriodSums, costMicros = p.costMicros) => ({ spend: microsToUsd(costMicros), requests: p.requests, tokens: p.tokens });
  const credit = row.key_type === 'credit';
  const expired = isExpired({ ...row, user_id: '', subscription_id: null, last_used_at: null }, now);
  return {
    id: row.id,
    name: row.name,
    keyType: row.key_type,
    keyPlan: row.key_plan,
    isActive: row.is_active === 1 && !expired && row.deleted_at === null,
    createdAt: new Date(row.created_at).toISOString(),
    ...(row.deleted_at !== null && { deletedAt: iso(row.deleted_at) }),
    usage: {
      '24h': period(sums['24h']),
      '7d': period(sums['7d']),
      '30d': period(sums['30d']),
      // A credit key's all-time spend is its the consumption key's fields `spend` (the ledger's own figure).
      total: period(sums.total, credit ? Math.max(row.spend_micros, sums.total.costMicros) : sums.total.costMicros),
    },
    maxBudget: credit ? microsToUsd(accountMaxBudgetMicros) : null,
    subscription: credit ? null : { planSlug: row.key_plan, status: expired ? 'expired' : 'active', expiresAt: iso(row.subscription_expires_at ?? row.created_at) },
  };
}

/** A date query parameter (ISO 8601 date or time) → epoch ms; `fallback` when absent. */
function dateParam(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const t = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(t)) throw new SandboxError('invalid_request', `${field} must be an ISO 8601 date such as 2026-01-01`, { field });
  return t;
}

const UnavailableSchema = z.strictObject({ unavailable: z.boolean({ error: 'unavailable must be true or false' }) });

/** Registers the usage routes; `requireAccount` authenticates `/api/usage*`. */
export function registerUsageRoutes(app: FastifyInstance, ctx: SandboxContext, requireAccount: AuthHook): void {
  /** Counts a usage read of this request's credential (429 past the limit), then the 502 switch. */
  const spendRead = (request: FastifyRequest) => {
    ctx.usageReads.admit(hashSecret(request.headers.authorization ?? '').toString('hex'), ctx.clock.now());
    if (ctx.usageUnavailable.on) throw new SandboxError('server_error', 'usage data temporarily unavailable', { status: 502 });
  };
  const deletedSince = (now: number) => now - PERIODS['30d'];

  app.get('/api/usage', { onRequest: requireAccount }, async (request) => {
    spendRead(request);
    const userId = request.accountId;
    const now = ctx.clock.now();
    const rows = ctx.usage.keys(userId, deletedSince(now));
    if (ctx.dialect === 'docs-v1') {
      const query = request.query as { startDate?: unknown; endDate?: unknown };
      const to = dateParam(query.endDate, 'endDate', now);
      const from = dateParam(query.startDate, 'startDate', to - PERIODS['30d']);
      const sums = ctx.usage.range(userId, from, to);
      let cost = 0;
      let requests = 0;
      let tokens = 0;
      const keys = rows
        .filter((r) => sums.has(r.id) || r.deleted_at === null)
        .map((r) => {
          const s = sums.get(r.id) ?? { costMicros: 0, requests: 0, tokens: 0 };
          cost += s.costMicros;
          requests += s.requests;
          tokens += s.tokens;
          return { keyId: r.id, name: r.name, spend: older(s.costMicros), requests: s.requests, tokens: s.tokens };
        });
      return { startDate: new Date(from).toISOString(), endDate: new Date(to).toISOString(), totalSpend: older(cost), totalRequests: requests, totalTokens: tokens, keys };
    }
    const sums = ctx.usage.periods(userId, now);
    const maxBudget = ctx.ledger.figures(userId).maxBudgetMicros;
    return { success: true, data: rows.map((r) => entryOf(r, sums.get(r.id) ?? emptySums(), now, maxBudget)) };
  });

  app.get('/api/usage/:keyId', { onRequest: requireAccount }, async (request) => {
    const id = parseKeyId((request.params as { keyId?: unknown }).keyId);
    spendRead(request);
    const userId = request.accountId;
    const now = ctx.clock.now();
    const row = ctx.usage.keys(userId, deletedSince(now)).find((r) => r.id === id);
    if (!row) throw keyNotFound();
    if (ctx.dialect === 'docs-v1') {
      const from = now - PERIODS['30d'];
      const s = ctx.usage.range(userId, from, now).get(id) ?? { costMicros: 0, requests: 0, tokens: 0 };
      return { keyId: id, name: row.name, startDate: new Date(from).toISOString(), endDate: new Date(now).toISOString(), spend: older(s.costMicros), requests: s.requests, tokens: s.tokens };
    }
    const sums = ctx.usage.periods(userId, now).get(id) ?? emptySums();
    return { success: true, data: entryOf(row, sums, now, ctx.ledger.figures(userId).maxBudgetMicros) };
  });

  app.get('/v1/usage', async (request) => {
    const header = request.headers.authorization;
    let key;
    try {
      key = ctx.auth.consumer(header);
    } catch (error) {
      // A deleted key is known to the service: "404 Key not found in the system".
      const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
      if (error instanceof SandboxError && error.code === 'unauthorized' && token?.startsWith('sk_') && ctx.usage.isDeletedKeyValue(token)) {
        throw new SandboxError('not_found', 'key not found: it was deleted');
      }
      throw error;
    }
    const now = ctx.clock.now();
    if (key.is_active !== 1) throw new SandboxError('forbidden', 'this key is deactivated: reactivate it (PUT /api/keys/:id with isActive true) to use it');
    spendRead(request);
    const credit = key.key_type === 'credit';
    const expired = isExpired(key, now);
    // A pool key: no rpm/tpm cap inside its blocks (null on the wire).
    const limits = isPoolKey(key) ? LIMITS.pool : limitsOf(key);
    const spent = credit ? key.spend_micros : (ctx.usage.range(key.user_id, key.created_at, now).get(key.id)?.costMicros ?? 0);
    const expiresAt = iso(key.subscription_expires_at);
    return {
      budget: { spent: microsToUsd(spent), limit: null, duration: credit ? null : '30d', resets_at: credit ? null : expiresAt },
      rate_limits: { rpm: Number.isFinite(limits.requestsPerMinute) ? limits.requestsPerMinute : null, tpm: limits.tokensPerMinute },
      plan: credit ? { slug: null, status: null, expires_at: null } : { slug: key.key_plan, status: expired ? 'expired' : 'active', expires_at: expiresAt },
      credits: { balance: microsToUsd(ctx.ledger.remainingMicros(key.user_id)) },
      key: { name: key.name, type: key.key_type, created_at: new Date(key.created_at).toISOString() },
    };
  });

  app.get('/api/plans', async () => plansAnswer());

  app.get('/sandbox/usage/calls', async () => ctx.usageReads.counts(ctx.clock.now()));

  app.post('/sandbox/usage/unavailable', async (request) => {
    const { unavailable } = parseBody(UnavailableSchema, request.body);
    ctx.usageUnavailable.on = unavailable;
    return { unavailable };
  });
}
