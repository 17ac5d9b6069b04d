/**
 * Dialects of the sandbox: the same behaviour, answered in the shape of the seed
 * (seed/service-interface.md) or of one of the two generations of the real service's public
 * documentation pages (CheapestInference), so the client can be tried against each.
 *
 * | dialect | envelope | money | lists | USDC instruction | method names in answers |
 * |---|---|---|---|---|---|
 * | `seed` (default) | billing only | numbers | the consumption key's fields fields, plus the newer keys page's `lastUsedAt` | `amount` string, as requested | `card_checkout`, `card_direct`, `usdc` |
 * | `docs-v1` (older pages) | none | decimal strings (`"74.50"`); `creditKeyId` instead of `creditKeyCount`, no `userId` | the consumption key's fields fields | `amount` a number, and half the requested amount (the older credits page answers 25 to a request of 50) | `stripe`, `stripe_direct`, `usdc` |
 * | `docs-v2` (newer pages) | every `/api/*` answer | numbers | plus `apiKey` (a key value: the reader must drop it), `subscriptionId` (a pool key's pledge; a seed-model subscription key's own id) | `amount` string, as requested | `stripe`, `stripe_direct`, `usdc` |
 *
 * Every dialect accepts both the seed's method names and the pages' (`stripe`, `stripe_direct`).
 * `GET /api/billing/status` answers in the newer page's shape in every dialect (enveloped where
 * the dialect envelopes), plus the sandbox's own fields (see `Ledger.status`).
 * Pages: https://docs.cheapestinference.com/api/keys, https://cheapestinference-docs.pages.dev/api/credits
 * (older); https://cheapestinference-docs.pages.dev/api/keys/, https://cheapestinference-docs.pages.dev/api/credits/,
 * https://cheapestinference-docs.pages.dev/api/billing/ (newer).
 */
import type { TopUpMethod } from '../api/schemas.js';
import { microsToDecimalString, usdToMicros } from './money.js';
import { newConsumptionKeyValue } from './secrets.js';

/** The dialects, by name. */
export const DIALECTS = ['seed', 'docs-v1', 'docs-v2'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** True for a dialect name. */
export function isDialect(value: unknown): value is Dialect {
  return typeof value === 'string' && (DIALECTS as readonly string[]).includes(value);
}

/** Every method name the sandbox accepts, in every dialect, and the kind it stands for. */
const ACCEPTED_METHODS: Readonly<Record<string, TopUpMethod>> = {
  card_checkout: 'card_checkout',
  card_direct: 'card_direct',
  usdc: 'usdc',
  stripe: 'card_checkout',
  stripe_direct: 'card_direct',
};

/** The kind a top-up method name stands for, or undefined for a name the sandbox does not accept. */
export function methodKind(name: string): TopUpMethod | undefined {
  return Object.hasOwn(ACCEPTED_METHODS, name) ? ACCEPTED_METHODS[name] : undefined;
}

/** The names a dialect uses for the kinds in its own answers (pending and recent top-ups, refusals). */
export function methodNames(dialect: Dialect): Readonly<Record<TopUpMethod, string>> {
  return dialect === 'seed' ? { card_checkout: 'card_checkout', card_direct: 'card_direct', usdc: 'usdc' } : { card_checkout: 'stripe', card_direct: 'stripe_direct', usdc: 'usdc' };
}

/** The USDC amount a dialect's instruction names for a request of `requestedMicros` (µUSD). */
export function instructedMicros(dialect: Dialect, requestedMicros: number): number {
  if (dialect !== 'docs-v1') return requestedMicros;
  return Math.floor(requestedMicros / 2 / 10_000) * 10_000;
}

/** What {@link shapeAnswer} may need to know about the account beyond the answer itself. */
export interface ShapeLookups {
  /** The id of the account's first active credit key, or null (the older pages' `creditKeyId`). */
  creditKeyId(): string | null;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** USD number → the older pages' decimal string: two decimals at least, more when it has them. */
function moneyText(usd: unknown): unknown {
  if (typeof usd !== 'number') return usd;
  const text = microsToDecimalString(usdToMicros(usd));
  const [whole, frac = ''] = text.split('.');
  return `${whole}.${frac.padEnd(2, '0')}`;
}

/**
 * Reshapes a 2xx answer of `/api/*` (as the seed dialect's routes produce it) into `dialect`'s
 * shape. `route` is `METHOD /route/pattern` (`GET /api/keys/:id`).
 */
export function shapeAnswer(dialect: Dialect, route: string, body: unknown, lookups: ShapeLookups): unknown {
  if (dialect === 'seed') return body;
  const enveloped = isObject(body) && body.success === true && 'data' in body;
  let data = enveloped ? (body as Json).data : body;
  if (dialect === 'docs-v1') {
    data = olderShape(route, data, lookups);
    return data;
  }
  data = newerShape(route, data);
  return { success: true, data };
}

/** A consumption key as the older keys page shows it: without the newer page's `lastUsedAt`. */
function olderKey(entry: unknown): unknown {
  if (!isObject(entry) || !('keyType' in entry)) return entry;
  const { lastUsedAt: _used, ...rest } = entry;
  return rest;
}

function olderShape(route: string, data: unknown, lookups: ShapeLookups): unknown {
  if (/^(GET|PUT|POST) \/api\/keys(\/|$)/.test(route)) return Array.isArray(data) ? data.map(olderKey) : olderKey(data);
  if (!isObject(data)) return data;
  switch (route) {
    case 'GET /api/billing/credits': {
      const { creditKeyCount: _count, userId: _user, ...rest } = data;
      return { ...rest, totalTopUp: moneyText(data.totalTopUp), remaining: moneyText(data.remaining), creditKeyId: lookups.creditKeyId() };
    }
    case 'POST /api/billing/topup':
      return typeof data.address === 'string' && typeof data.amount === 'string' ? { ...data, amount: Number(data.amount) } : data;
    case 'POST /api/billing/verify-topup':
      return { ...data, balance: moneyText(data.balance) };
    case 'GET /api/billing/status': {
      // The older page has no pool pledges: a time-block subscription is one more subscription.
      const pledges = Array.isArray(data.poolPledges) ? data.poolPledges.filter(isObject) : [];
      const { poolPledges: _p, plan: _plan, status: _status, stripeCustomerId: _c, subscriptionExpiresAt: _e, ...rest } = data;
      const subscriptions = [
        ...(Array.isArray(data.subscriptions) ? data.subscriptions : []),
        ...pledges.map((p) => ({
          id: p.id,
          planSlug: p.poolSlug,
          status: p.status,
          currentPeriodEnd: p.currentPeriodEnd,
          cancelAtPeriodEnd: p.cancelAtPeriodEnd,
          keyCount: Array.isArray(p.keys) ? p.keys.length : 0,
          keys: Array.isArray(p.keys) ? p.keys : [],
        })),
      ];
      return { ...rest, subscriptions, creditBalance: moneyText(data.creditBalance) };
    }
    default:
      return data;
  }
}

function newerShape(route: string, data: unknown): unknown {
  if (route !== 'GET /api/keys' || !Array.isArray(data)) return data;
  return data.map((entry) => {
    if (!isObject(entry)) return entry;
    const subscription = entry.keyType === 'subscription';
    return {
      ...entry,
      // The newer page shows a key value on every entry; the sandbox keeps only hashes, so this
      // is a fresh value of the same form, never a working key.
      apiKey: newConsumptionKeyValue(),
      // A pool key names its pledge; a key of the seed's model is its own subscription (the
      // billing status lists it under the same id).
      ...(subscription && typeof entry.id === 'string' && entry.subscriptionId === undefined && { subscriptionId: entry.id }),
    };
  });
}
