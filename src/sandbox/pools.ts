/**
 * The sandbox's pools and pool pledges, as the service's current pages describe them:
 * a pool runs one model and sells seats in daily 8-hour UTC blocks (`asia` 00–08, `europe` 08–16,
 * `americas` 16–24; $39, $49 and $45 a month per seat, 15 % off yearly: the Management API page,
 * https://cheapestinference-docs.pages.dev/guides/management-api/); a pledge (a pool subscription)
 * comes without a key, and `POST /api/keys/subscription` mints its one active key
 * (https://cheapestinference-docs.pages.dev/guides/per-key-plans/). A pool key is unlimited inside
 * its blocks, allows 1 concurrent request, and gets 429 outside them.
 *
 * The catalogue is fixed (two pools); pledges live in the database (`pool_pledges`). Wire shapes
 * follow the Unlimited Subscriptions page (https://docs.cheapestinference.com/api/unlimited-subscriptions/):
 * `GET /api/pools` entries and `GET /api/pools/:id` with `hourSlots` (`status` `available`, or
 * `reserved` for a seat-hour a pledge holds: the pages show only `available`).
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { returning } from './db.js';
import { BLOCK_NAMES, blockOfHour, reservedHoursAt, type BlockName } from '../api/poolBlocks.js';
import { SandboxError } from './errors.js';
import { isExpired, SUBSCRIPTION_PERIOD_MS, type ConsumptionKeyRow } from './keys.js';

/** One pool of the catalogue. Prices are monthly USD cents of one seat of each block. */
export interface SandboxPool {
  readonly id: string;
  readonly slug: string;
  readonly modelId: string;
  readonly modelName: string;
  readonly description: string;
  readonly status: 'funding' | 'activating' | 'active' | 'paused';
  readonly totalSlots: number;
  readonly monthlyCents: Readonly<Record<BlockName, number>>;
}

/** The sandbox's pools: one open for subscriptions, one still funding. */
export const SANDBOX_POOLS: readonly SandboxPool[] = [
  {
    id: '6f1c2a4e-0b7d-4c55-9a61-5e3f00000001',
    slug: 'kimi26',
    modelId: 'moonshotai/Kimi-K2.6',
    modelName: 'Kimi K2.6',
    description: 'Dedicated Kimi K2.6 with unlimited usage (sandbox).',
    status: 'active',
    totalSlots: 10,
    monthlyCents: { asia: 3900, europe: 4900, americas: 4500 },
  },
  {
    id: '6f1c2a4e-0b7d-4c55-9a61-5e3f00000002',
    slug: 'qwen3-397b-a17b',
    modelId: 'Qwen/Qwen3.5-397B-A17B',
    modelName: 'Qwen3.5-397B-A17B',
    description: 'Dedicated Qwen3.5 inference (sandbox; still funding).',
    status: 'funding',
    totalSlots: 4,
    monthlyCents: { asia: 3900, europe: 4900, americas: 4500 },
  },
];

/** Fraction off for yearly billing (all pools). */
export const ANNUAL_DISCOUNT = 0.15;

/** A pledge row (timestamps epoch ms of the sandbox clock). */
export interface PledgeRow {
  id: string;
  user_id: string;
  pool_id: string;
  blocks: string;
  period_end: number;
  created_at: number;
  /** 1 once its renewal is cancelled (`POST /api/billing/cancel`): it ends at `period_end`; 0: it renews then. */
  cancel_at_period_end: number;
}

/** The pool whose id or slug is `idOrSlug`, or undefined. */
export function findPool(idOrSlug: string): SandboxPool | undefined {
  return SANDBOX_POOLS.find((p) => p.id === idOrSlug || p.slug === idOrSlug);
}

/** USD text of cents: `39.00`. */
const usd = (cents: number): string => (cents / 100).toFixed(2);

/** One seat's monthly price of `block`, spread over its 8 hours in whole cents (summing exactly). */
function hourCents(pool: SandboxPool, hour: number): number {
  const total = pool.monthlyCents[blockOfHour(hour)];
  const index = hour % 8;
  return Math.floor(total / 8) + (index < total % 8 ? 1 : 0);
}

/**
 * True when a consumption key is a pool key whose blocks the sandbox enforces: one minted for a
 * pledge (`keyPlan` `pool`). A subscription key of the seed's model (one per payment) keeps
 * The service's limits's limits; its blocks are recorded, not enforced.
 */
export function isPoolKey(key: Pick<ConsumptionKeyRow, 'key_type' | 'key_plan' | 'blocks'>): boolean {
  return key.key_type === 'subscription' && key.key_plan === 'pool' && Boolean(key.blocks);
}

/**
 * Refuses a pool key's request outside its reserved blocks at `now` (sandbox clock): SandboxError
 * `rate_limited` (429) with `Retry-After` until its next block starts.
 */
export function checkReservedHours(key: Pick<ConsumptionKeyRow, 'blocks'>, now: number): void {
  const blocks = (key.blocks ?? '').split(',').filter(Boolean);
  const at = reservedHoursAt(blocks, now);
  if (at === undefined || at.inside) return;
  const seconds = Math.max(1, Math.ceil((at.startsAt - now) / 1000));
  throw new SandboxError('rate_limited', `this pool key works only in its reserved blocks (${blocks.join(', ')}, UTC); its next block, ${at.block}, starts at ${new Date(at.startsAt).toISOString()}`, {
    retryAfterSeconds: seconds,
  });
}

/**
 * Stores the pool pledges and answers the pools' wire shapes. A pledge is billed each period
 * (`billingCycle: "month"`, the Unlimited Subscriptions page) and renews at its period end unless
 * its renewal was cancelled ({@link PoolStore.cancel}); renewals are applied when a request
 * arrives after a period end ({@link PoolStore.renewDue}), its keys running on with it.
 */
export class PoolStore {
  readonly #insert;
  readonly #list;
  readonly #get;
  readonly #activeByPool;
  readonly #cancel;
  readonly #due;
  readonly #nextDue;
  readonly #renew;
  /** The earliest period end of a renewing pledge (epoch ms), or undefined before it is first read. */
  #nextDueAt: number | undefined;

  constructor(db: DatabaseSync) {
    this.#insert = db.prepare('INSERT INTO pool_pledges (id, user_id, pool_id, blocks, period_end, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *');
    this.#list = db.prepare('SELECT * FROM pool_pledges WHERE user_id = ? ORDER BY created_at, rowid');
    this.#get = db.prepare('SELECT * FROM pool_pledges WHERE id = ? AND user_id = ?');
    this.#activeByPool = db.prepare('SELECT blocks FROM pool_pledges WHERE pool_id = ? AND period_end > ?');
    this.#cancel = db.prepare('UPDATE pool_pledges SET cancel_at_period_end = 1 WHERE id = ? AND user_id = ? RETURNING *');
    this.#due = db.prepare('SELECT id, user_id, period_end FROM pool_pledges WHERE cancel_at_period_end = 0 AND period_end <= ?');
    this.#nextDue = db.prepare('SELECT MIN(period_end) AS t FROM pool_pledges WHERE cancel_at_period_end = 0');
    this.#renew = db.prepare('UPDATE pool_pledges SET period_end = ? WHERE id = ?');
  }

  /**
   * Renews every pledge whose period ended by `now` and whose renewal was not cancelled: its
   * period end moves on by whole periods past `now` (a simulated payment each), and its keys'
   * expiry with it (`keys.extendPledgeKeys`). Costs one comparison while nothing is due.
   */
  renewDue(now: number, keys: { extendPledgeKeys(userId: string, pledgeId: string, periodEnd: number): void }): void {
    this.#nextDueAt ??= (this.#nextDue.get() as { t: number | null }).t ?? Number.POSITIVE_INFINITY;
    if (now < this.#nextDueAt) return;
    for (const due of this.#due.all(now) as Array<{ id: string; user_id: string; period_end: number }>) {
      const periods = Math.floor((now - due.period_end) / SUBSCRIPTION_PERIOD_MS) + 1;
      const end = due.period_end + periods * SUBSCRIPTION_PERIOD_MS;
      this.#renew.run(end, due.id);
      keys.extendPledgeKeys(due.user_id, due.id, end);
    }
    this.#nextDueAt = (this.#nextDue.get() as { t: number | null }).t ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Cancels the renewal of `userId`'s pledge `id`: it stays active until its period end, then
   * ends. Idempotent (a pledge already cancelled stays so).
   * @returns the pledge, or undefined when the user has none with that id
   */
  cancel(userId: string, id: string): PledgeRow | undefined {
    const row = returning<PledgeRow>(this.#cancel, id, userId);
    this.#nextDueAt = undefined;
    return row;
  }

  /**
   * A new pledge of one seat of `pool` for `blocks` (the simulated payment), valid 30 days.
   * @throws SandboxError `invalid_request` (field `blocks`) when a block has no free seat, or the
   *   pool is not open (`funding` pools take pledges too; `paused` ones do not)
   */
  pledge(userId: string, pool: SandboxPool, blocks: readonly BlockName[], now: number): PledgeRow {
    if (pool.status === 'paused') throw new SandboxError('invalid_request', `pool: ${pool.slug} is paused`, { field: 'pool' });
    const taken = this.takenSeats(pool.id, now);
    const full = blocks.filter((b) => taken[b] >= pool.totalSlots);
    if (full.length > 0) throw new SandboxError('invalid_request', `blocks: no free seat in ${full.join(', ')} of ${pool.slug}`, { field: 'blocks' });
    const row = returning<PledgeRow>(this.#insert, randomUUID(), userId, pool.id, blocks.join(','), now + SUBSCRIPTION_PERIOD_MS, now)!;
    if (this.#nextDueAt !== undefined) this.#nextDueAt = Math.min(this.#nextDueAt, row.period_end);
    return row;
  }

  /** The user's pledges, oldest first (ended ones included). */
  list(userId: string): PledgeRow[] {
    return this.#list.all(userId) as unknown as PledgeRow[];
  }

  /** One of the user's pledges, or undefined. */
  get(userId: string, id: string): PledgeRow | undefined {
    return this.#get.get(id, userId) as PledgeRow | undefined;
  }

  /** Seats of each block held by pledges still in their period at `now`. */
  takenSeats(poolId: string, now: number): Record<BlockName, number> {
    const taken: Record<BlockName, number> = { asia: 0, europe: 0, americas: 0 };
    for (const { blocks } of this.#activeByPool.all(poolId, now) as Array<{ blocks: string }>) {
      for (const b of blocks.split(',')) if (b in taken) taken[b as BlockName]++;
    }
    return taken;
  }

  /** A pool as `GET /api/pools` lists it (`pledgedSlots`: seats held in its fullest block). */
  listed(pool: SandboxPool, now: number): Record<string, unknown> {
    const taken = this.takenSeats(pool.id, now);
    const min = Math.min(...BLOCK_NAMES.map((b) => pool.monthlyCents[b]));
    return {
      id: pool.id,
      slug: pool.slug,
      modelId: pool.modelId,
      modelName: pool.modelName,
      description: pool.description,
      status: pool.status,
      totalSlots: pool.totalSlots,
      pledgedSlots: Math.max(...BLOCK_NAMES.map((b) => taken[b])),
      minPricePerDay: usd(min),
      manualProvisioning: false,
      annualDiscount: ANNUAL_DISCOUNT,
    };
  }

  /** A pool as `GET /api/pools/:id` answers it: with its 24 × seats hour slots. */
  detail(pool: SandboxPool, now: number): Record<string, unknown> {
    const taken = this.takenSeats(pool.id, now);
    const hourSlots: Array<Record<string, unknown>> = [];
    for (let seat = 0; seat < pool.totalSlots; seat++) {
      for (let hour = 0; hour < 24; hour++) {
        hourSlots.push({
          id: `${pool.id.slice(0, 8)}-${String(hour).padStart(2, '0')}-${seat}`,
          hour,
          slotIndex: seat,
          pricePerDay: usd(hourCents(pool, hour)),
          status: seat < taken[blockOfHour(hour)] ? 'reserved' : 'available',
        });
      }
    }
    return { ...this.listed(pool, now), hourSlots };
  }

  /**
   * A pledge as the billing status lists it (the newer billing page's `poolPledges[]`, plus
   * `blocks` and `keys`): `hasKey` when an active key of it exists.
   */
  pledgeWire(pledge: PledgeRow, keys: readonly ConsumptionKeyRow[], now: number): Record<string, unknown> {
    const pool = findPool(pledge.pool_id);
    const mine = keys.filter((k) => k.subscription_id === pledge.id);
    return {
      id: pledge.id,
      poolId: pledge.pool_id,
      poolSlug: pool?.slug ?? pledge.pool_id,
      status: now >= pledge.period_end ? 'expired' : 'active',
      currentPeriodEnd: new Date(pledge.period_end).toISOString(),
      cancelAtPeriodEnd: pledge.cancel_at_period_end === 1,
      hasKey: mine.some((k) => k.is_active === 1 && !isExpired(k, now)),
      blocks: pledge.blocks.split(','),
      keys: mine.map((k) => ({ id: k.id, name: k.name })),
    };
  }

  /** The key of `pledge` that is active at `now` (other than `exceptId`), or undefined. */
  activeKeyOf(pledgeId: string, keys: readonly ConsumptionKeyRow[], now: number, exceptId?: string): ConsumptionKeyRow | undefined {
    return keys.find((k) => k.subscription_id === pledgeId && k.id !== exceptId && k.is_active === 1 && !isExpired(k, now));
  }
}
