/**
 * Wire readers of the pool subscriptions, by the one tolerant reader's rules
 * (./reader.ts; its table names each accepted form and its page):
 *
 * - `GET /api/pools`: the pools ({@link PoolListSchema} → {@link PoolList}), as the Unlimited
 *   Subscriptions page (https://docs.cheapestinference.com/api/unlimited-subscriptions/) and the
 *   GPU Boosts page (https://docs.cheapestinference.com/api/gpu-boosts) show them: `{ success,
 *   data: [ { id, slug, modelId, modelName, description, infraSpec, status, totalSlots,
 *   pledgedSlots, minPricePerDay: "39.00", manualProvisioning, annualDiscount: 0.15 } ] }`;
 * - `GET /api/pools/:id` (UUID or slug): one pool with its `hourSlots: [ { id, hour, slotIndex,
 *   pricePerDay: "4.88", status: "available" } ]` ({@link PoolAnswerSchema} → {@link PoolAnswer});
 * - `POST /api/keys/subscription` `{ name, subscriptionId }` (the Per-Key Plans page,
 *   https://cheapestinference-docs.pages.dev/guides/per-key-plans/; its answer is not shown, the
 *   older Management API page shows it starting with `{ "id": …`): the created key with its
 *   `apiKey`, shown once ({@link CreatedSubscriptionKeySchema}).
 *
 * Tolerant: a pool is read field by field; a field of an unexpected type is left out and named in
 * `problems`, the entry kept whole in `raw` (key values dropped) for `--json` and the tree view.
 * An entry that is not an object, or has neither `id` nor `slug`, and an answer that is not a
 * list, are kept as {@link UnreadPool} (shown as a tree) instead of failing the call.
 *
 * Money: the pages name the price fields `…PerDay` but define them as monthly USD per seat
 * ("Lowest monthly price across all time blocks", "Prices are monthly amounts distributed across
 * the 8 hours in a block"); keydeck reads them as such (`minMonthlyUsd`, `monthlyUsd`), exactly
 * (./money.ts).
 */
import { z } from './zod.js';
import { microsToUsd, parseUsdMicros } from './money.js';
import { BLOCK_HOURS, BLOCK_NAMES, blockOfHour, type BlockName } from './poolBlocks.js';
import { ConsumptionKeyValueSchema, KeyNameSchema, nullAsUnset } from './schemas.js';

/** A pool's status: the pages' `draft`, `funding`, `activating`, `active`, `paused`, or any other text. */
export type PoolStatus = 'draft' | 'funding' | 'activating' | 'active' | 'paused' | (string & {});

/** One hour of one seat of a pool (`hourSlots[]`). */
export interface HourSlot {
  readonly id?: string;
  /** UTC hour, 0–23. */
  readonly hour: number;
  /** The seat (0-based). */
  readonly slotIndex: number;
  /** This hour's share of the seat's monthly block price, USD (`pricePerDay` on the wire). */
  readonly monthlyUsd?: number;
  /** `available`, or whatever the service says (`reserved`, `taken`, …). */
  readonly status?: string;
}

/** One block of a pool, derived from its hour slots. */
export interface PoolBlock {
  readonly name: BlockName;
  /** Seats the block has (distinct `slotIndex` values). */
  readonly seats: number;
  /** Seats whose 8 hours are all `available`. */
  readonly availableSeats: number;
  /** Monthly USD of one seat of this block (its 8 hours summed), when every hour has a price. */
  readonly monthlyUsd?: number;
}

/** A pool as read. Every field but `id` is optional: the service may leave any out. */
export interface Pool {
  /** `id`, or the `slug` when the pool has no id. */
  readonly id: string;
  readonly slug?: string;
  readonly modelId?: string;
  readonly modelName?: string;
  readonly description?: string;
  /** The GPU Boosts page's `infraSpec` (`8× H100 SXM5 · 50 tok/s guaranteed`). */
  readonly infraSpec?: string;
  readonly status?: PoolStatus;
  /** Seats across all blocks. */
  readonly totalSlots?: number;
  /** Confirmed reservations (GPU Boosts page). */
  readonly pledgedSlots?: number;
  /** Lowest monthly price of a seat across its blocks, USD (`minPricePerDay` on the wire). */
  readonly minMonthlyUsd?: number;
  /** Key delivered by hand (within 24 h) when true. */
  readonly manualProvisioning?: boolean;
  /** Fraction off for yearly billing (0.15 = 15 %). */
  readonly annualDiscount?: number;
  /** The hour slots (`GET /api/pools/:id` only). */
  readonly hourSlots?: readonly HourSlot[];
  /** The blocks, derived from the hour slots (undefined without them). */
  readonly blocks?: readonly PoolBlock[];
  /** Fields keydeck could not read, by name (`totalSlots`): shown, never fatal. */
  readonly problems: readonly string[];
  /** The entry as sent, key values dropped. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** An entry (or a whole answer) keydeck could not read as a pool: shown as a tree. */
export interface UnreadPool {
  /** Its index in the list; undefined for a whole answer. */
  readonly index?: number;
  /** Why it is not read (one phrase). */
  readonly problem: string;
  /** The value as sent, key values dropped. */
  readonly value: unknown;
}

/** `GET /api/pools` as read: the pools, and what could not be read. */
export interface PoolList {
  readonly pools: readonly Pool[];
  readonly unread: readonly UnreadPool[];
}

/** `GET /api/pools/:id` as read. */
export type PoolAnswer = { readonly pool: Pool } | { readonly unread: UnreadPool };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Longest text field kept (a bound on hostile input; longer text is cut with `…`). */
const MAX_TEXT = 2_000;
/** Most hour slots read from one pool (24 hours × 1,000 seats). */
const MAX_SLOTS = 24_000;

/**
 * Reads one pool entry.
 * @returns the pool, or why it is not one
 */
export function readPool(value: unknown): Pool | { problem: string } {
  if (!isObject(value)) return { problem: 'not an object' };
  const problems: string[] = [];
  const text = (name: string): string | undefined => {
    const v = value[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      problems.push(name);
      return undefined;
    }
    return v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT)}…` : v;
  };
  const count = (name: string): number | undefined => {
    const v = value[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      problems.push(name);
      return undefined;
    }
    return v;
  };
  const money = (name: string): number | undefined => {
    const v = value[name];
    if (v === undefined || v === null) return undefined;
    const micros = parseUsdMicros(v);
    if (micros === undefined || micros < 0) {
      problems.push(name);
      return undefined;
    }
    return microsToUsd(micros);
  };
  const id = text('id') ?? text('slug');
  if (id === undefined || id === '') return { problem: 'it has no id or slug' };
  const slug = text('slug');
  const discount = value.annualDiscount;
  let annualDiscount: number | undefined;
  if (discount !== undefined && discount !== null) {
    if (typeof discount === 'number' && discount >= 0 && discount < 1) annualDiscount = discount;
    else problems.push('annualDiscount');
  }
  const manual = value.manualProvisioning;
  if (manual !== undefined && manual !== null && typeof manual !== 'boolean') problems.push('manualProvisioning');
  const hourSlots = readHourSlots(value.hourSlots, problems);
  const fields = {
    slug,
    modelId: text('modelId'),
    modelName: text('modelName'),
    description: text('description'),
    infraSpec: text('infraSpec'),
    status: text('status'),
    totalSlots: count('totalSlots'),
    pledgedSlots: count('pledgedSlots'),
    minMonthlyUsd: money('minPricePerDay'),
    manualProvisioning: typeof manual === 'boolean' ? manual : undefined,
    annualDiscount,
    hourSlots,
    blocks: hourSlots === undefined ? undefined : blocksOf(hourSlots),
  };
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return { id, ...defined, problems, raw: value } as Pool;
}

function readHourSlots(value: unknown, problems: string[]): HourSlot[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    problems.push('hourSlots');
    return undefined;
  }
  const slots: HourSlot[] = [];
  let bad = false;
  for (const entry of value.slice(0, MAX_SLOTS)) {
    if (!isObject(entry) || typeof entry.hour !== 'number' || !Number.isInteger(entry.hour) || entry.hour < 0 || entry.hour > 23) {
      bad = true;
      continue;
    }
    const seat = entry.slotIndex;
    const micros = entry.pricePerDay === undefined || entry.pricePerDay === null ? undefined : parseUsdMicros(entry.pricePerDay);
    slots.push({
      ...(typeof entry.id === 'string' && { id: entry.id }),
      hour: entry.hour,
      slotIndex: typeof seat === 'number' && Number.isInteger(seat) && seat >= 0 ? seat : 0,
      ...(micros !== undefined && micros >= 0 && { monthlyUsd: microsToUsd(micros) }),
      ...(typeof entry.status === 'string' && { status: entry.status.slice(0, MAX_TEXT) }),
    });
  }
  if (bad || value.length > MAX_SLOTS) problems.push('hourSlots');
  return slots;
}

/** The three blocks of a pool from its hour slots (a block without slots is left out). */
export function blocksOf(slots: readonly HourSlot[]): PoolBlock[] {
  const out: PoolBlock[] = [];
  for (const name of BLOCK_NAMES) {
    const mine = slots.filter((s) => blockOfHour(s.hour) === name);
    if (mine.length === 0) continue;
    const seats = new Map<number, HourSlot[]>();
    for (const s of mine) seats.set(s.slotIndex, [...(seats.get(s.slotIndex) ?? []), s]);
    let availableSeats = 0;
    for (const hours of seats.values()) if (hours.length === BLOCK_HOURS && hours.every((h) => h.status === 'available')) availableSeats++;
    // The price of one seat: the lowest seat's 8 hours summed, in µUSD (exact).
    const first = seats.get(Math.min(...seats.keys())) ?? [];
    const priced = first.length === BLOCK_HOURS && first.every((h) => h.monthlyUsd !== undefined);
    const micros = priced ? first.reduce((sum, h) => sum + (parseUsdMicros(h.monthlyUsd) ?? 0), 0) : undefined;
    out.push({ name, seats: seats.size, availableSeats, ...(micros !== undefined && { monthlyUsd: microsToUsd(micros) }) });
  }
  return out;
}

/** Reads a `GET /api/pools` answer (already unwrapped): a list, or an object with a `pools` list. */
export function readPoolList(value: unknown): PoolList {
  const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.pools) ? value.pools : undefined;
  if (list === undefined) return { pools: [], unread: [{ problem: 'the answer is not a list of pools', value }] };
  const pools: Pool[] = [];
  const unread: UnreadPool[] = [];
  list.forEach((entry, index) => {
    const read = readPool(entry);
    if ('problem' in read) unread.push({ index, problem: read.problem, value: entry });
    else pools.push(read);
  });
  return { pools, unread };
}

/** Reads a `GET /api/pools/:id` answer (already unwrapped): one pool object (or a one-entry list). */
export function readPoolAnswer(value: unknown): PoolAnswer {
  const one = Array.isArray(value) && value.length === 1 ? value[0] : isObject(value) && isObject(value.pool) ? value.pool : value;
  const read = readPool(one);
  return 'problem' in read ? { unread: { problem: read.problem, value } } : { pool: read };
}

/** `GET /api/pools` reader for the request core: never fails (see {@link readPoolList}). */
export const PoolListSchema = z.unknown().transform(readPoolList);
/** `GET /api/pools/:id` reader for the request core: never fails (see {@link readPoolAnswer}). */
export const PoolAnswerSchema = z.unknown().transform(readPoolAnswer);

/**
 * A subscription or pledge id as the user gives it: 1–200 letters, digits, `_`, `-`, `.` or `:`
 * (UUIDs, `sub_…`, `pledge_…`). Anything else is refused before sending.
 */
export const SubscriptionIdSchema = z
  .string({ error: 'subscriptionId must be a text' })
  .trim()
  .min(1, 'subscriptionId must not be empty')
  .max(200, 'subscriptionId is too long')
  .regex(/^[A-Za-z0-9_.:-]+$/, 'subscriptionId must be letters, digits, "_", "-", "." or ":"');

/** `POST /api/keys/subscription` body (Per-Key Plans page). */
export const CreateSubscriptionKeyRequestSchema = z.strictObject({ name: KeyNameSchema, subscriptionId: SubscriptionIdSchema });

/** `POST /api/billing/cancel` body (the older billing page: "The subscription UUID from /status"). */
export const CancelSubscriptionRequestSchema = z.strictObject({ subscriptionId: SubscriptionIdSchema });

/**
 * `POST /api/keys/subscription` answer (not shown on the current pages): the created key with its
 * full `apiKey` (`sk_…`), returned only this once; `keyType`, `keyPlan`, `isActive`, `createdAt`
 * and the rest as sent, when sent.
 */
export const CreatedSubscriptionKeySchema = nullAsUnset(
  z.looseObject({
    id: z.string().min(1),
    name: z.string().optional(),
    keyType: z.string().optional(),
    keyPlan: z.string().optional(),
    apiKey: ConsumptionKeyValueSchema,
    isActive: z.boolean().optional(),
    subscriptionId: z.string().optional(),
    subscriptionExpiresAt: z.string().optional(),
    createdAt: z.string().optional(),
  }),
);
export type CreatedSubscriptionKey = z.infer<typeof CreatedSubscriptionKeySchema>;
