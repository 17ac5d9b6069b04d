/**
 * Wire schemas of the usage endpoints, read by the one tolerant reader's rules (./reader.ts; its
 * table names each accepted form, its page and what was assumed); the object schemas are built on first use:
 * - `GET /api/usage` (session token or `mk_`): every key with its spend over the periods the service
 *   gives — {@link UsageListSchema} → {@link UsageReport}; `GET /api/usage/:keyId`: one key —
 *   {@link KeyUsageAnswerSchema} → {@link KeyUsage};
 * - `GET /v1/usage` (an `sk_` as the Bearer): the key's own budget, limits, plan, the account's
 *   balance — {@link KeyInfoSchema} → {@link KeyInfo};
 * - `GET /api/plans` (public): plans with price and rate limits — {@link PlanListSchema} → {@link Plan}[].
 * Money is read exactly (./money.ts: a number or a decimal string → USD number from µUSD). Key values
 * are dropped before these schemas run (reader.ts `dropKeyValues`). Unknown fields are kept on the
 * raw answer (`UsageReport.raw`, `KeyInfo`/`Plan` loose objects) for `--json`.
 */
import { z } from './zod.js';
import { microsToUsd, parseUsdMicros } from './money.js';
import { nullAsUnset, onFirstUse } from './schemas.js';

/** The canonical spend periods, shortest first: the last 24 hours, 7 days, 30 days, and all time. */
export const USAGE_PERIODS = ['24h', '7d', '30d', 'total'] as const;
/** One of {@link USAGE_PERIODS}. */
export type UsagePeriod = (typeof USAGE_PERIODS)[number];

/** Length of each rolling period, ms (`total` has none). */
export const PERIOD_MS: Readonly<Record<Exclude<UsagePeriod, 'total'>, number>> = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };

/**
 * Names a period may carry on the wire, compared without case, `_` or `-` (the newer usage page
 * says "4 time periods" without naming them; these are the usual spellings).
 */
const PERIOD_ALIASES: Readonly<Record<string, UsagePeriod>> = {
  '24h': '24h',
  '1d': '24h',
  day: '24h',
  daily: '24h',
  today: '24h',
  last24h: '24h',
  last24hours: '24h',
  lastday: '24h',
  '7d': '7d',
  week: '7d',
  weekly: '7d',
  last7d: '7d',
  last7days: '7d',
  lastweek: '7d',
  '30d': '30d',
  month: '30d',
  monthly: '30d',
  last30d: '30d',
  last30days: '30d',
  lastmonth: '30d',
  total: 'total',
  all: 'total',
  alltime: 'total',
  lifetime: 'total',
  overall: 'total',
};

/** Names already looked up (the same few repeat in every entry). */
const periodMemo = new Map<string, UsagePeriod | null>();

/** The canonical period of a wire name, or undefined. */
export function periodOf(name: string): UsagePeriod | undefined {
  let known = periodMemo.get(name);
  if (known === undefined) {
    const k = name.replace(/[-_\s]/g, '').toLowerCase();
    known = Object.hasOwn(PERIOD_ALIASES, k) ? PERIOD_ALIASES[k]! : null;
    if (periodMemo.size < 10_000) periodMemo.set(name, known);
  }
  return known ?? undefined;
}

/** Flat field names already looked up: the period a `spend24h`-like name stands for, or null. */
const flatMemo = new Map<string, UsagePeriod | null>();

/** The period of a flat spend field (`spend24h`, `totalSpend`), or undefined. */
function flatPeriodOf(name: string): UsagePeriod | undefined {
  let known = flatMemo.get(name);
  if (known === undefined) {
    const m = FLAT_SPEND.exec(name);
    known = (m ? periodOf(m[1] ?? m[2] ?? '') : undefined) ?? null;
    if (flatMemo.size < 10_000) flatMemo.set(name, known);
  }
  return known ?? undefined;
}

/** One period's figures of one key. */
export interface PeriodUsage {
  /** USD spent in the period (≥ 0). */
  readonly spend: number;
  /** Requests served, when sent. */
  readonly requests?: number;
  /** Tokens (input + output), when sent. */
  readonly tokens?: number;
}

/** One key's usage, as read. */
export interface KeyUsage {
  /** The key's id (the consumption key's fields `id`; `keyId` on the older aggregated form). */
  readonly id: string;
  readonly name?: string;
  readonly keyType?: string;
  readonly keyPlan?: string;
  readonly isActive?: boolean;
  /** Spend by period; empty when {@link refused}. */
  readonly periods: Partial<Record<UsagePeriod, PeriodUsage>>;
  /** The consumption key's fields `max_budget` of the key, USD; null: unlimited; undefined: not sent. */
  readonly maxBudget?: number | null;
  /** Subscription info, when sent. */
  readonly subscription?: { readonly plan?: string; readonly status?: string; readonly expiresAt?: string };
  /** Why this key's figures were refused (a spend that is negative or not a number): one sentence. */
  readonly refused?: string;
}

/** `GET /api/usage`, read. */
export interface UsageReport {
  /** Every key the answer lists, in its order. */
  readonly keys: readonly KeyUsage[];
  /** The periods the answer gives figures for, shortest first. */
  readonly periods: readonly UsagePeriod[];
  /** The older aggregated form's date range, when it names one. */
  readonly range?: { readonly startDate?: string; readonly endDate?: string };
  /** The answer as the service sent it (envelope removed, key values dropped): `--json` prints it. Undefined from the figures kept as read (src/billing/usageReads.ts `keptUsageList`). */
  readonly raw: unknown;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);

/** Field names holding a period's spend inside a period object. */
const SPEND_FIELDS = ['spend', 'cost', 'spent', 'amount', 'usd', 'costUsd', 'spendUsd'];
/** Objects of an entry that map period names to figures. */
const PERIOD_CONTAINERS = ['usage', 'periods', 'spend', 'stats'];
/** Flat spend fields: `spend24h`, `spend_7d`, `cost30d`, `totalSpend`, `spendTotal`. */
const FLAT_SPEND = /^(?:spend|cost|spent)[-_]?(.+)$|^(.+?)[-_]?(?:spend|cost|spent)$/i;

/**
 * Reads a spend: a number or decimal string, exactly, not negative.
 * @returns USD, or why not (a string: the words after "its … spend")
 */
function readSpend(value: unknown): number | string {
  const micros = parseUsdMicros(value);
  if (micros === undefined) return `is not an amount (${typeof value === 'string' ? JSON.stringify(value.slice(0, 24)) : typeof value})`;
  if (micros < 0) return 'is negative';
  return microsToUsd(micros);
}

/**
 * Reads one period's figures: a bare amount, or an object with a spend field and counts.
 * @returns the figures, why they are refused (a string), or undefined when `value` holds none
 */
function readPeriod(value: unknown): PeriodUsage | string | undefined {
  if (isObject(value)) {
    // `spend` by name first: a named load, far faster than the others' keyed loads (every figure comes here).
    let amount: unknown = value.spend;
    if (amount === undefined || amount === null) {
      amount = undefined;
      for (const f of SPEND_FIELDS) {
        if (value[f] !== undefined && value[f] !== null) {
          amount = value[f];
          break;
        }
      }
    }
    if (amount === undefined) return undefined;
    const spend = readSpend(amount);
    if (typeof spend === 'string') return spend;
    const usage: { spend: number; requests?: number; tokens?: number } = { spend };
    const requests = count(value.requests) ?? count(value.requestCount) ?? count(value.request_count);
    if (requests !== undefined) usage.requests = requests;
    let tokens = count(value.tokens) ?? count(value.totalTokens) ?? count(value.total_tokens);
    if (tokens === undefined) {
      const inOut = (count(value.inputTokens) ?? count(value.prompt_tokens) ?? 0) + (count(value.outputTokens) ?? count(value.completion_tokens) ?? 0);
      if (inOut > 0) tokens = inOut;
    }
    if (tokens !== undefined) usage.tokens = tokens;
    return usage;
  }
  if (value === undefined || value === null) return undefined;
  const spend = readSpend(value);
  return typeof spend === 'string' ? spend : { spend };
}

/**
 * Takes one period's figures into `periods` unless that period already has some; `container`
 * and `name` say where they were (`usage.24h`, `spend24h`), in words only when refused.
 * @returns why the key is refused (one phrase), or undefined
 */
function takePeriod(periods: Partial<Record<UsagePeriod, PeriodUsage>>, period: UsagePeriod, value: unknown, container: string | undefined, name: string): string | undefined {
  if (periods[period] !== undefined) return undefined;
  const read = readPeriod(value);
  if (read === undefined) return undefined;
  if (typeof read === 'string') return `its ${container === undefined ? name : `${container}.${name}`} spend ${read}`;
  periods[period] = read;
  return undefined;
}

/**
 * Reads one key's entry (see reader.ts's table for every accepted form).
 * @returns the key, or the field at fault (relative to the entry) and what is wrong
 */
export function readKeyUsage(entry: unknown): { ok: true; key: KeyUsage } | { ok: false; field: string; problem: string } {
  if (!isObject(entry)) return { ok: false, field: '', problem: 'must be an object (one key)' };
  const id = str(entry.id) ?? str(entry.keyId) ?? str(entry.key_id);
  if (id === undefined) return { ok: false, field: 'id', problem: 'must be the key’s id (a non-empty string)' };
  // Allocates only what it keeps (no closure, no result wrappers): a usage answer may hold 10,000 entries.
  const periods: Partial<Record<UsagePeriod, PeriodUsage>> = {};
  let refused: string | undefined;
  for (const container of PERIOD_CONTAINERS) {
    const c = entry[container];
    if (!isObject(c)) continue;
    for (const name in c) {
      const period = periodOf(name);
      if (period && refused === undefined) refused = takePeriod(periods, period, c[name], container, name);
    }
  }
  for (const name in entry) {
    const period = flatPeriodOf(name);
    if (period && refused === undefined) refused = takePeriod(periods, period, entry[name], undefined, name);
  }
  // The consumption key's fields tracks each credit key's `spend` (cumulative): the all-time figure when nothing else gives one.
  // The entry's own counts (`requests`, `tokens`) go with it (the older aggregated form).
  if (entry.spend !== undefined && !isObject(entry.spend) && refused === undefined) refused = takePeriod(periods, 'total', entry, undefined, 'spend');
  let maxBudget: number | null | undefined;
  const budget = entry.max_budget ?? entry.maxBudget;
  if (budget === null) maxBudget = null;
  else if (budget !== undefined) {
    const read = readSpend(budget);
    if (typeof read === 'number') maxBudget = read;
  }
  const sub = isObject(entry.subscription) ? entry.subscription : undefined;
  const plan = str(sub?.planSlug) ?? str(sub?.plan) ?? str(sub?.slug);
  const status = str(sub?.status) ?? str(entry.subscriptionStatus);
  const expiresAt = str(sub?.expiresAt) ?? str(sub?.currentPeriodEnd) ?? str(sub?.expires_at) ?? str(entry.subscriptionExpiresAt);
  const name = str(entry.name) ?? str(entry.keyName);
  const keyType = str(entry.keyType) ?? str(entry.type);
  const keyPlan = str(entry.keyPlan) ?? plan;
  // Built by assignment (no spread copies): a usage answer may hold 10,000 entries.
  const key: { -readonly [K in keyof KeyUsage]: KeyUsage[K] } = { id, periods: refused === undefined ? periods : {} };
  if (name !== undefined) key.name = name;
  if (keyType !== undefined) key.keyType = keyType;
  if (keyPlan !== undefined) key.keyPlan = keyPlan;
  if (typeof entry.isActive === 'boolean') key.isActive = entry.isActive;
  if (maxBudget !== undefined) key.maxBudget = maxBudget;
  if (plan !== undefined || status !== undefined || expiresAt !== undefined) {
    const subscription: { plan?: string; status?: string; expiresAt?: string } = {};
    if (plan !== undefined) subscription.plan = plan;
    if (status !== undefined) subscription.status = status;
    if (expiresAt !== undefined) subscription.expiresAt = expiresAt;
    key.subscription = subscription;
  }
  if (refused !== undefined) key.refused = `${name ?? id}: ${refused}, so keydeck shows no figures for this key`;
  return { ok: true, key };
}

/** The array of entries of a usage answer, the path prefix of its fields, and the older form's range. */
function entriesOf(value: unknown): { entries: unknown[]; path: PropertyKey[]; range?: UsageReport['range'] } | undefined {
  if (Array.isArray(value)) return { entries: value, path: [] };
  if (!isObject(value)) return undefined;
  for (const field of ['keys', 'byKey', 'perKey', 'usage']) {
    const list = value[field];
    if (Array.isArray(list)) {
      const startDate = str(value.startDate);
      const endDate = str(value.endDate);
      return { entries: list, path: [field], ...((startDate !== undefined || endDate !== undefined) && { range: { ...(startDate && { startDate }), ...(endDate && { endDate }) } }) };
    }
  }
  return undefined;
}

/** The period an older aggregated answer's range stands for: 24h, 7d or 30d within 10 %, else `total`. */
export function periodOfRange(range: UsageReport['range']): UsagePeriod {
  const from = range?.startDate ? Date.parse(range.startDate) : Number.NaN;
  const to = range?.endDate ? Date.parse(range.endDate) : Number.NaN;
  const length = to - from;
  if (!Number.isFinite(length)) return 'total';
  for (const [period, ms] of Object.entries(PERIOD_MS)) if (Math.abs(length - ms) <= ms * 0.1) return period as UsagePeriod;
  return 'total';
}

/**
 * `GET /api/usage`: an array of key entries (newer page, enveloped), or an object with a `keys` array (the older page's
 * aggregated answer; its figures are the range's, labelled by {@link periodOfRange}). A wrong entry (not an object, no
 * id) is an issue naming its field; a wrong figure only refuses that key ({@link KeyUsage.refused}).
 */
export const UsageListSchema = z.unknown().transform((value, ctx): UsageReport => {
  const found = entriesOf(value);
  if (!found) {
    ctx.addIssue({ code: 'custom', message: 'must be a list of keys with their usage (or an object with a keys list)' });
    return z.NEVER;
  }
  const keys: KeyUsage[] = [];
  const rangePeriod = found.range !== undefined || found.path.length > 0 ? periodOfRange(found.range) : undefined;
  for (let i = 0; i < found.entries.length; i++) {
    const read = readKeyUsage(found.entries[i]);
    if (!read.ok) {
      ctx.addIssue({ code: 'custom', path: [...found.path, i, ...(read.field ? [read.field] : [])], message: read.problem });
      return z.NEVER;
    }
    let key = read.key;
    // The older aggregated form carries one figure per key (its range's): it belongs to that period.
    if (rangePeriod !== undefined && key.periods.total && rangePeriod !== 'total' && !key.periods[rangePeriod]) {
      const { total, ...rest } = key.periods;
      key = { ...key, periods: { ...rest, [rangePeriod]: total } };
    }
    keys.push(key);
  }
  const periods = USAGE_PERIODS.filter((p) => keys.some((k) => k.periods[p] !== undefined));
  return { keys, periods, ...(found.range && { range: found.range }), raw: value };
});

/** `GET /api/usage/:keyId`: one entry (or a list holding it). */
export const KeyUsageAnswerSchema = z.unknown().transform((value, ctx): KeyUsage => {
  const entry = Array.isArray(value) && value.length === 1 ? value[0] : isObject(value) && isObject(value.key) && value.id === undefined ? value.key : value;
  const read = readKeyUsage(entry);
  if (!read.ok) {
    ctx.addIssue({ code: 'custom', path: read.field ? [read.field] : [], message: read.problem });
    return z.NEVER;
  }
  return read.key;
});

/** A USD amount (number or decimal string), exactly; null stays null. */
const Usd = z.union([z.number(), z.string()], { error: 'must be a USD amount (a number or a decimal string)' }).transform((value, ctx) => {
  const micros = parseUsdMicros(value);
  if (micros === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a USD amount (a number or a decimal string)' });
    return z.NEVER;
  }
  return microsToUsd(micros);
});
const NonNegativeUsd = Usd.refine((v) => v >= 0, 'must not be negative');
const Limit = z.number().int().min(0).nullable().optional();

/**
 * `GET /v1/usage` (https://docs.cheapestinference.com/api/usage and the newer https://cheapestinference-docs.pages.dev/api/usage):
 * the authenticated consumption key's budget, rate limits, plan, the account's credit balance, and the key's own
 * metadata. Each part may be missing (a credit key's `plan.slug` is null); money as a number or a decimal string.
 */
export const KeyInfoSchema = onFirstUse(() =>
  z.looseObject({
    budget: nullAsUnset(
      z.looseObject({
        /** USD spent in the current budget period. */
        spent: NonNegativeUsd.optional(),
        /** USD cap of the period; null: unlimited. */
        limit: NonNegativeUsd.nullable().optional(),
        /** Reset interval (`30d`). */
        duration: z.string().nullable().optional(),
        /** ISO 8601: the next reset. */
        resets_at: z.string().nullable().optional(),
      }),
    )
      .nullable()
      .optional(),
    rate_limits: z.looseObject({ rpm: Limit, tpm: Limit }).nullable().optional(),
    plan: z.looseObject({ slug: z.string().nullable().optional(), status: z.string().nullable().optional(), expires_at: z.string().nullable().optional() }).nullable().optional(),
    credits: z.looseObject({ balance: Usd.nullable().optional() }).nullable().optional(),
    key: nullAsUnset(z.looseObject({ name: z.string().optional(), type: z.string().optional(), created_at: z.string().nullable().optional() }))
      .nullable()
      .optional(),
  }),
);
/** See {@link KeyInfoSchema}. */
export type KeyInfo = z.infer<typeof KeyInfoSchema>;

/**
 * One plan of `GET /api/plans` (the older https://cheapestinference-docs.pages.dev/api/usage):
 * `{ slug, name, priceUsdc: "20", rateLimits: { tpm_limit, rpm_limit } }`. The price may come as
 * `priceUsdc`, `priceUsd` or `price` (a number or a decimal string; USD per month, assumed from
 * the management-api guide's "$20/mo"); the limits as `rpm_limit`/`tpm_limit` or `rpm`/`tpm`.
 */
export const PlanSchema = onFirstUse(() =>
  nullAsUnset(
    z.looseObject({
      slug: z.string().min(1),
      name: z.string().optional(),
      priceUsdc: Usd.optional(),
      priceUsd: Usd.optional(),
      price: Usd.optional(),
      rateLimits: z.looseObject({ rpm_limit: Limit, tpm_limit: Limit, rpm: Limit, tpm: Limit }).nullable().optional(),
    }),
  ).transform((p) => {
    const priceUsd = p.priceUsdc ?? p.priceUsd ?? p.price;
    const rpm = p.rateLimits?.rpm_limit ?? p.rateLimits?.rpm ?? undefined;
    const tpm = p.rateLimits?.tpm_limit ?? p.rateLimits?.tpm ?? undefined;
    return {
      ...p,
      ...(priceUsd !== undefined && { priceUsd }),
      ...(rpm !== undefined && rpm !== null && { requestsPerMinute: rpm }),
      ...(tpm !== undefined && tpm !== null && { tokensPerMinute: tpm }),
    };
  }),
);
/** A plan: the service's fields, plus `priceUsd` (USD a month), `requestsPerMinute`, `tokensPerMinute` when given. */
export type Plan = z.infer<typeof PlanSchema>;

/** `GET /api/plans`: an array of plans (bare on the page; enveloped accepted as every answer). */
export const PlanListSchema = onFirstUse(() => z.array(PlanSchema));
