/**
 * The tolerant reader: the one place where an answer of the service becomes data (docs/real-service.md
 * "Boundaries": service answer → memory). The seed (seed/service-interface.md) is the contract;
 * what the real service's public documentation pages show it sending is accepted too, because a
 * tool for that service must read it. Anything outside these rules is `invalid_response` naming
 * the field (`[2].id`, `data.remaining`).
 *
 * Documentation pages (CheapestInference), two generations; a page address can hold either,
 * depending on when it was read, so each is named by generation and address:
 * - older keys: https://docs.cheapestinference.com/api/keys (also an earlier snapshot of
 *   https://cheapestinference-docs.pages.dev/api/keys): a bare array, no key values
 * - newer keys: https://cheapestinference-docs.pages.dev/api/keys/ — `{ success, data: [...] }`,
 *   `apiKey`, `subscriptionId`, `keyPlan: "pool"`, `lastUsedAt` on each entry
 * - older credits: an earlier snapshot of https://cheapestinference-docs.pages.dev/api/credits —
 *   bare bodies, `"remaining": "74.50"`, `creditKeyId`, `"balance": "75.00"`, a USDC instruction
 *   `"amount": 25` answering `{"amount": 50}`, methods `stripe`/`usdc`
 * - newer credits: https://cheapestinference-docs.pages.dev/api/credits/ — envelopes, numbers,
 *   `"amount": "50"`, methods `stripe`/`stripe_direct`/`usdc`
 * - older billing status: https://docs.cheapestinference.com/api/billing and
 *   https://docs.cheapestinference.com/guides/management-api — bare `{ subscriptions: [...],
 *   creditBalance: "25.00", legacySubscriptionKeys: [] }`
 * - newer billing status: https://cheapestinference-docs.pages.dev/api/billing/ — enveloped
 *   `{ subscriptions: [], poolPledges: [...], plan, status, creditBalance: 25.00, … }`
 * - older usage: an earlier snapshot of https://cheapestinference-docs.pages.dev/api/usage —
 *   `GET /api/usage?startDate=…&endDate=…` "aggregated usage across all your keys" (no body shown),
 *   `GET /api/usage/:keyId` (no body shown), `GET /api/plans` (a bare array, shown)
 * - middle usage: https://docs.cheapestinference.com/api/usage — `GET /v1/usage` with an `sk_`
 *   (body shown), and the aggregated `GET /api/usage` as a dashboard endpoint (no body shown)
 * - newer usage: https://cheapestinference-docs.pages.dev/api/usage — `GET /v1/usage` (the same
 *   body), and `GET /api/usage` with a session token or `mk_`: "all your keys with usage stats
 *   across 4 time periods and subscription info. Rate limited to 12 requests per 12 hours";
 *   its example is cut after `{ "success": true, "data": [ { "id": "key-uuid", "name": "`
 *
 * | field | accepted forms | source |
 * |---|---|---|
 * | the body of every endpoint | bare JSON, or the envelope `{ "success": true, "data": … }` (its `data` is read; `success: false` is an error whatever the status) | seed the service's endpoints (billing enveloped, keys bare); older credits page (billing bare); newer keys page (`GET /api/keys` enveloped) |
 * | `totalTopUp`, `remaining`, `credited`, `balance`, `creditBalance` (status) | a JSON number or a decimal string (`"74.50"`), read exactly into µUSD (./money.ts), shown to the cent cut toward −∞ | seed the credit balance record, the verified top-up result (numbers); older credits page (`"remaining": "74.50"`, `"balance": "75.00"`); status pages (`"creditBalance": "25.00"` and `25.00`) |
 * | `creditKeyCount` | a whole number; when missing, `creditKeyId` stands in: a string → 1, null → 0 | seed the credit balance record; older credits page (`"creditKeyId": "clx3ghi..."`) |
 * | `userId` | a string or null; missing → null | seed the credit balance record; older credits page (not shown) |
 * | `amount` of a USDC instruction | a decimal string (kept as sent) or a number (turned into its decimal); above 0; may differ from the amount requested | seed the USDC payment instruction (string); older credits page (`25` for a request of 50); newer credits page (`"50"`) |
 * | `keyPlan` | any string (`standard`, `credits`, `pool`, …) | seed the consumption key's fields; newer keys page (`"pool"`) |
 * | `lastUsedAt` of a consumption key | an ISO 8601 string, null, or missing | newer keys page |
 * | `subscriptionId` and any other field not in the service's resources | kept as sent (for `--json` and the status tree) | newer keys page; both status pages |
 * | a key value (`apiKey`, or a full `sk_`/`mk_` value) in any answer but the one creating that key | dropped, counted, reported once by the caller | newer keys page (`"apiKey": "sk-..."` on every list entry); seed the consumption key's fields, the service's authentication (never returned by list) |
 * | `GET /api/usage` (./usageSchemas.ts `UsageListSchema`) | an array of key entries (newer usage page: enveloped, `id` and `name` shown), or an object with a `keys` (`byKey`, `perKey`, `usage`) array and optional `startDate`/`endDate` (older usage page: no body shown; **assumed**). A wrong entry (not an object, no `id`/`keyId`) is `invalid_response` naming it (`data[3].id`); a wrong figure refuses only that key (`refused`, a sentence). The older form's one figure per key belongs to its range's period (24 h, 7 d or 30 d within 10 %, else all time) | newer and older usage pages |
 * | a key's spend per period (**assumed**: the newer page says "4 time periods" and is cut before them) | an object `usage`, `periods`, `spend` or `stats` whose fields are period names (`24h`/`day`/`today`/`last24h`, `7d`/`week`, `30d`/`month`, `total`/`all`/`allTime`/`lifetime`; case, `_`, `-` ignored) holding an amount, or `{ spend \| cost \| spent \| amount: amount, requests?, tokens? (or input + output tokens) }`; or flat fields `spend24h`, `spend_7d`, `cost30d`, `totalSpend`; or the consumption key's fields's `spend` (all time). Amounts are numbers or decimal strings read exactly; negative or not a number → that key refused | newer usage page ("4 time periods"); seed the consumption key's fields (`spend`, `max_budget`) |
 * | a key's other usage fields (**assumed**) | `name`/`keyName`, `keyType`/`type`, `keyPlan`, `isActive`, `max_budget`/`maxBudget` (amount or null), `subscription: { planSlug \| plan, status, expiresAt \| currentPeriodEnd }` or the consumption key's fields's `subscriptionStatus`/`subscriptionExpiresAt`; anything else kept in `raw` for `--json` | newer usage page ("subscription info"); seed the consumption key's fields |
 * | `GET /api/usage/:keyId` (`KeyUsageAnswerSchema`; no body shown, **assumed**) | one entry as above, bare or enveloped, or a one-entry list | older usage page |
 * | `GET /v1/usage` (`KeyInfoSchema`) | `{ budget: { spent, limit \| null, duration, resets_at }, rate_limits: { rpm, tpm }, plan: { slug \| null, status, expires_at }, credits: { balance }, key: { name, type, created_at } }`, bare or enveloped; each part may be missing or null; money numbers or decimal strings | middle and newer usage pages |
 * | `GET /api/plans` (`PlanListSchema`) | an array of `{ slug, name, priceUsdc: "20", rateLimits: { tpm_limit, rpm_limit } }`, bare (shown) or enveloped; the price also as `priceUsd`/`price` and the limits as `rpm`/`tpm` (**assumed**); the price is read as USD a month (**assumed** from https://docs.cheapestinference.com/guides/management-api: "$20/mo") | older usage page |
 * | `GET /api/billing/status` | any JSON; {@link summarizeBillingStatus} reads `subscriptions[]` (planSlug, status, currentPeriodEnd, cancelAtPeriodEnd, keyCount, keys[]), `poolPledges[]` (poolSlug, poolId, status, currentPeriodEnd, cancelAtPeriodEnd, hasKey, and `blocks`: an array of block names, **assumed**, the sandbox sends it) and `creditBalance`; other shapes stay a tree | seed the service's endpoints (not shown); older and newer status pages |
 * | `GET /api/pools` (./poolSchemas.ts `PoolListSchema`) | a list of pools, bare or enveloped (or an object with a `pools` list, **assumed**); each pool read field by field (`id` or `slug` needed; `modelId`, `modelName`, `description`, `infraSpec`, `status` any text, `totalSlots`, `pledgedSlots`, `minPricePerDay` a USD amount read as a month's price per seat, `manualProvisioning`, `annualDiscount` 0–1); a field of another type is left out and named, an entry without id/slug or an answer that is no list is kept whole and shown as a tree, never `invalid_response` | https://docs.cheapestinference.com/api/unlimited-subscriptions/ (`minPricePerDay: "39.00"`, `annualDiscount: 0.15`), https://docs.cheapestinference.com/api/gpu-boosts (`infraSpec`, `pledgedSlots`), https://cheapestinference-docs.pages.dev/api/gpu-boosts/ |
 * | `GET /api/pools/:id` (`PoolAnswerSchema`) | one pool as above with `hourSlots[]` (`hour` 0–23, `slotIndex`, `pricePerDay` a month's USD share of one hour, `status` any text: `available` counts as free); blocks derived by hour (asia 0–7, europe 8–15, americas 16–23, ./poolBlocks.ts); bare, enveloped or a one-entry list | the same pages |
 * | every optional field of every object above (**the pages' generations differ**: the newer billing page sends `"subscriptionExpiresAt": null`, the newer keys page is cut before a credit key's entry) | null, read as "not set" (`nullAsUnset` in ./schemas.ts: left out before the schema reads the object); where null has a meaning of its own it keeps it (`lastUsedAt: null`: never used; `creditKeyId: null`: no credit key; `max_budget: null`: no cap). One null never fails a list | newer billing page |
 * | `POST /api/keys/subscription` (`CreatedSubscriptionKeySchema`) | an object with `id` and the full `apiKey` (`sk_…`, kept: the creating answer); every other field optional and kept | https://cheapestinference-docs.pages.dev/guides/per-key-plans/ (request); https://docs.cheapestinference.com/guides/management-api (answer begins `{ "id": …`); not shown further |
 *
 * src/api knows no terminals: nothing here writes anywhere; the caller is told what was hidden.
 */
import type { z } from 'zod';
import type { ParsedBody } from './failures.js';
import { microsToUsd, parseUsdMicros } from './money.js';
import { parseOutput } from './validate.js';

/** True for a plain JSON object. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Field names that hold a full key value, compared without case, `_` or `-`. */
const KEY_VALUE_FIELDS = new Set(['apikey', 'secretkey', 'fullkey', 'keyvalue', 'plaintextkey']);
/** A full key value in text: `sk_`/`sk-`/`mk_`/`mk-` and at least 16 more key characters. */
const FULL_KEY = /^(sk|mk)[-_][A-Za-z0-9_-]{16,}$/;
/** A full key value inside a text body (not JSON): replaced, counted. */
const KEY_IN_TEXT = /\b(?:sk|mk)[-_][A-Za-z0-9_-]{16,}/g;
/** Fields whose text is never a key value even when it looks like one (a name, a display prefix). */
const NEVER_KEY_FIELDS = new Set(['name', 'keyPrefix', 'id']);

/** Deepest nesting walked when dropping key values (deeper parts are dropped whole and counted). */
const MAX_DEPTH = 32;

/** Result of {@link dropKeyValues}. */
export interface DroppedKeyValues {
  /** The value without key values (a copy; the input is not changed). */
  value: unknown;
  /** How many key values were dropped. */
  hidden: number;
}

/** Field names already judged by {@link isKeyField} (the same few names repeat in every entry of a list). */
const keyFieldMemo = new Map<string, boolean>();

function isKeyField(name: string): boolean {
  let known = keyFieldMemo.get(name);
  if (known === undefined) {
    known = KEY_VALUE_FIELDS.has(name.replace(/[-_]/g, '').toLowerCase());
    if (keyFieldMemo.size < 10_000) keyFieldMemo.set(name, known);
  }
  return known;
}

/** True when `v` may be a full key value (its first three characters checked before the pattern). */
function looksLikeKey(v: string): boolean {
  if (v.length < 19) return false;
  const c0 = v.charCodeAt(0);
  const c2 = v.charCodeAt(2);
  return (c0 === 115 || c0 === 109) && v.charCodeAt(1) === 107 && (c2 === 95 || c2 === 45) && FULL_KEY.test(v);
}

/**
 * Drops every key value from an answer: fields named like `apiKey` (any value) and any text
 * that is a full `sk_`/`mk_` value (except in `name`, `keyPrefix` and `id`). With `keepTopLevel`
 * (the answer that creates a key) the top-level `apiKey` is kept: that is the one time the
 * key is shown.
 */
export function dropKeyValues(value: unknown, keepTopLevel = false): DroppedKeyValues {
  // Most answers hold no key value: a scan that allocates nothing finds that, and the value is
  // returned as it is (a usage answer of 10,000 keys is not copied for nothing).
  if (!holdsKeyValue(value, 0, undefined, true, keepTopLevel)) return { value, hidden: 0 };
  let hidden = 0;
  const walk = (v: unknown, depth: number, field: string | undefined, top: boolean): unknown => {
    if (typeof v === 'string') {
      if (field !== undefined && NEVER_KEY_FIELDS.has(field)) return v;
      if (looksLikeKey(v)) {
        hidden++;
        return undefined;
      }
      return v;
    }
    if (typeof v !== 'object' || v === null) return v;
    if (depth > MAX_DEPTH) {
      hidden++;
      return undefined;
    }
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (const item of v) {
        const kept = walk(item, depth + 1, undefined, false);
        // A bare key value in an array is dropped; its place stays so indexes in messages hold.
        out.push(kept === undefined && typeof item === 'string' ? null : kept);
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      if (isKeyField(k) && !(top && keepTopLevel && k === 'apiKey')) {
        if (item !== undefined && item !== null) hidden++;
        continue;
      }
      if (top && keepTopLevel && k === 'apiKey') {
        out[k] = item;
        continue;
      }
      const kept = walk(item, depth + 1, k, false);
      if (kept !== undefined) out[k] = kept;
    }
    return out;
  };
  const result = walk(value, 0, undefined, true);
  return { value: result, hidden };
}

/**
 * True when {@link dropKeyValues} would drop anything from `v` (the same rules, nothing copied).
 * The hot loop of a large answer (a usage answer of 10,000 keys is ~60,000 objects): strings are
 * looked at in place, only objects are recursed into, and a field's own-ness is asked only of a
 * field named like a key value (an inherited enumerable field, which JSON never makes, is walked
 * too: at worst a needless copy by {@link dropKeyValues}, never a key value missed).
 */
function holdsKeyValue(v: unknown, depth: number, field: string | undefined, top: boolean, keepTopLevel: boolean): boolean {
  if (typeof v === 'string') return !(field !== undefined && NEVER_KEY_FIELDS.has(field)) && looksLikeKey(v);
  if (typeof v !== 'object' || v === null) return false;
  return holdsKeyValueIn(v, depth, top, keepTopLevel);
}

/** {@link holdsKeyValue} of an object or array (not null) at `depth`. */
function holdsKeyValueIn(v: object, depth: number, top: boolean, keepTopLevel: boolean): boolean {
  if (depth > MAX_DEPTH) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (typeof item === 'object') {
        if (item !== null && holdsKeyValueIn(item, depth + 1, false, keepTopLevel)) return true;
      } else if (typeof item === 'string' && looksLikeKey(item)) return true;
    }
    return false;
  }
  const record = v as Record<string, unknown>;
  for (const k in record) {
    const item = record[k];
    if (isKeyField(k)) {
      if (top && keepTopLevel && k === 'apiKey') continue;
      if (item !== undefined && item !== null && Object.hasOwn(record, k)) return true;
      continue;
    }
    if (typeof item === 'object') {
      if (item !== null && holdsKeyValueIn(item, depth + 1, false, keepTopLevel)) return true;
    } else if (typeof item === 'string' && looksLikeKey(item) && !NEVER_KEY_FIELDS.has(k)) return true;
  }
  return false;
}

/** A body with its envelope removed: the value and the path prefix of its fields in messages. */
export interface Unwrapped {
  value: unknown;
  /** `['data']` when the value came out of the envelope, `[]` when bare. */
  prefix: string[];
}

/**
 * Removes the `{ success: true, data }` envelope when present (from any endpoint: the seed's
 * billing endpoints and the newer pages' key endpoints). A bare body is returned as is.
 */
export function unwrapEnvelope(value: unknown): Unwrapped {
  if (isObject(value) && value.success === true && 'data' in value) return { value: value.data, prefix: ['data'] };
  return { value, prefix: [] };
}

/** Result of {@link readAnswer}. */
export type ReadResult<T> = { ok: true; data: T; hiddenKeyValues: number } | { ok: false; field: string | undefined; problem: string };

/** How {@link readAnswer} reads one endpoint's 2xx body. */
export interface AnswerRule<T> {
  /** The service's resources schema of the data, or null for a body the seed does not show (read as it comes). */
  schema: z.ZodType<T> | null;
  /** True for the answer that creates a key: its own top-level `apiKey` is kept. */
  creates?: boolean;
}

/**
 * Reads a 2xx body by the rules of this module's table: envelope or bare, key values dropped
 * (except the creating answer's own), then the schema (money read exactly, stand-ins filled,
 * extra fields kept). A body the seed does not show is returned as it came, minus key values:
 * parsed JSON (unwrapped), the raw text when not JSON, undefined when empty.
 */
export function readAnswer<T>(rule: AnswerRule<T>, body: ParsedBody): ReadResult<T> {
  if (rule.schema === null) {
    if (body.kind === 'empty') return { ok: true, data: undefined as T, hiddenKeyValues: 0 };
    if (body.kind === 'text') {
      let hidden = 0;
      const text = body.text.replace(KEY_IN_TEXT, () => {
        hidden++;
        return '[key value hidden]';
      });
      return { ok: true, data: text as T, hiddenKeyValues: hidden };
    }
    const dropped = dropKeyValues(unwrapEnvelope(body.value).value);
    return { ok: true, data: dropped.value as T, hiddenKeyValues: dropped.hidden };
  }
  if (body.kind !== 'json') return { ok: false, field: undefined, problem: body.kind === 'empty' ? 'the body is empty' : 'the body is not JSON' };
  const { value, prefix } = unwrapEnvelope(body.value);
  const dropped = dropKeyValues(value, rule.creates === true);
  const parsed = parseOutput(rule.schema, dropped.value, prefix);
  if (!parsed.ok) return parsed;
  return { ok: true, data: parsed.data, hiddenKeyValues: dropped.hidden };
}

// ---------------------------------------------------------------------------------------------
// GET /api/billing/status, as the documentation pages show it.

/** One subscription of the status pages (a legacy flat plan on the newer page). */
export interface StatusSubscription {
  id?: string;
  /** `planSlug`: `standard`, `pro`, … */
  plan?: string;
  /** `active`, `past_due`, `canceled`, … */
  status?: string;
  /** ISO 8601. */
  currentPeriodEnd?: string;
  cancelAtPeriodEnd?: boolean;
  /** `keyCount`, or the number of `keys` when absent. */
  keyCount?: number;
  /** The subscription's keys: id and name only (never a key value). */
  keys: Array<{ id?: string; name?: string }>;
}

/** One pool pledge (a time-block subscription) of the newer status page. */
export interface StatusPoolPledge {
  id?: string;
  /** `poolSlug`, or `poolId` when absent. */
  pool?: string;
  status?: string;
  /** ISO 8601. */
  currentPeriodEnd?: string;
  cancelAtPeriodEnd?: boolean;
  hasKey?: boolean;
  /** `poolId`, when sent. */
  poolId?: string;
  /** The reserved blocks (`asia`, `europe`, `americas`, or any text the service sends), when sent. */
  blocks?: string[];
}

/** A readable summary of `GET /api/billing/status` (req. "billing status as the pages document it"). */
export interface BillingStatusSummary {
  subscriptions: StatusSubscription[];
  poolPledges: StatusPoolPledge[];
  /** USD (read exactly: a number or a decimal string); undefined when not sent. */
  creditBalance?: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/** Entries of an array field that must hold objects only; null when it does not. */
function objectsOf(value: unknown): Record<string, unknown>[] | null | undefined {
  // Null is "not set", as for every optional field.
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every(isObject)) return null;
  return value;
}

/**
 * Reads the documented shapes of `GET /api/billing/status` (already unwrapped): an object with a
 * `subscriptions` and/or `poolPledges` array of objects, and optionally `creditBalance` (USD
 * number or decimal string).
 * @returns the summary, or undefined for any other shape (the caller then shows the tree)
 */
export function summarizeBillingStatus(value: unknown): BillingStatusSummary | undefined {
  if (!isObject(value)) return undefined;
  const subs = objectsOf(value.subscriptions);
  const pledges = objectsOf(value.poolPledges);
  if (subs === null || pledges === null || (subs === undefined && pledges === undefined)) return undefined;
  let creditBalance: number | undefined;
  if (value.creditBalance !== undefined && value.creditBalance !== null) {
    const micros = parseUsdMicros(value.creditBalance);
    if (micros === undefined) return undefined;
    creditBalance = microsToUsd(micros);
  }
  const subscriptions = (subs ?? []).map((s): StatusSubscription => {
    const keys = (Array.isArray(s.keys) ? s.keys : []).filter(isObject).map((k) => ({
      ...(str(k.id) !== undefined && { id: str(k.id) }),
      ...(str(k.name) !== undefined && { name: str(k.name) }),
    }));
    const keyCount = typeof s.keyCount === 'number' && Number.isInteger(s.keyCount) ? s.keyCount : Array.isArray(s.keys) ? keys.length : undefined;
    const plan = str(s.planSlug) ?? str(s.plan);
    return {
      ...(str(s.id) !== undefined && { id: str(s.id) }),
      ...(plan !== undefined && { plan }),
      ...(str(s.status) !== undefined && { status: str(s.status) }),
      ...(str(s.currentPeriodEnd) !== undefined && { currentPeriodEnd: str(s.currentPeriodEnd) }),
      ...(bool(s.cancelAtPeriodEnd) !== undefined && { cancelAtPeriodEnd: bool(s.cancelAtPeriodEnd) }),
      ...(keyCount !== undefined && { keyCount }),
      keys,
    };
  });
  const poolPledges = (pledges ?? []).map((p): StatusPoolPledge => {
    const pool = str(p.poolSlug) ?? str(p.poolId);
    return {
      ...(str(p.id) !== undefined && { id: str(p.id) }),
      ...(pool !== undefined && { pool }),
      ...(str(p.status) !== undefined && { status: str(p.status) }),
      ...(str(p.currentPeriodEnd) !== undefined && { currentPeriodEnd: str(p.currentPeriodEnd) }),
      ...(bool(p.cancelAtPeriodEnd) !== undefined && { cancelAtPeriodEnd: bool(p.cancelAtPeriodEnd) }),
      ...(bool(p.hasKey) !== undefined && { hasKey: bool(p.hasKey) }),
      ...(str(p.poolId) !== undefined && { poolId: str(p.poolId) }),
      ...(Array.isArray(p.blocks) && p.blocks.every((b) => typeof b === 'string') && { blocks: (p.blocks as string[]).slice(0, 24) }),
    };
  });
  return { subscriptions, poolPledges, ...(creditBalance !== undefined && { creditBalance }) };
}
