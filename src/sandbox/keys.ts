/**
 * Consumption keys and management keys: creation, listing, update, deletion,
 * lookup by presented value, and their wire form.
 *
 * Only SHA-256 hashes of key values are stored (plus the `mk_` display prefix); a presented
 * value is looked up by hash (unique index) and confirmed with `timingSafeEqual`.
 * Consumption keys are soft-deleted: a deleted credit key's spend still counts in the account's
 * spend (docs/sandbox-service.md budget model), but the key is gone from every list and refused at once.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { returning } from './db.js';
import { keyPrefixOf } from '../api/errors.js';
import type { ConsumptionKey, ManagementKey } from '../api/schemas.js';
import { hashesEqual, hashSecret, newConsumptionKeyValue, newManagementKeyValue } from './secrets.js';

/** Subscription plans the sandbox sells (`keyPlan` of a subscription key). */
export type SubscriptionPlan = 'standard' | 'pro';
/** Daily 8-hour UTC blocks of a pool subscription. */
export type SubscriptionBlock = 'asia' | 'europe' | 'americas';

/** Length of a subscription period, ms (30 days). */
export const SUBSCRIPTION_PERIOD_MS = 30 * 24 * 60 * 60 * 1000;

/** A consumption key row (timestamps epoch ms of the sandbox clock, money µUSD). */
export interface ConsumptionKeyRow {
  id: string;
  user_id: string;
  name: string;
  key_plan: string;
  key_type: 'subscription' | 'credit';
  is_active: number;
  spend_micros: number;
  blocks: string | null;
  subscription_expires_at: number | null;
  created_at: number;
  /** The pool pledge a pool key was minted for (`POST /api/keys/subscription`), else null. */
  subscription_id: string | null;
  /** When the key was last presented (an inference request or `/v1/usage`), else null (never). */
  last_used_at: number | null;
}

/** A management key row. */
export interface ManagementKeyRow {
  id: string;
  user_id: string;
  name: string;
  key_prefix: string;
  last_used_at: number | null;
  created_at: number;
}

const CONSUMPTION_COLUMNS = 'id, user_id, name, key_plan, key_type, is_active, spend_micros, blocks, subscription_expires_at, created_at, subscription_id, last_used_at';
const MANAGEMENT_COLUMNS = 'id, user_id, name, key_prefix, last_used_at, created_at';

/** True when a subscription key's 30-day period has ended at time `now` (ms). */
export function isExpired(row: ConsumptionKeyRow, now: number): boolean {
  return row.key_type === 'subscription' && row.subscription_expires_at !== null && now >= row.subscription_expires_at;
}

/**
 * The consumption key's fields wire object of a key at time `now`. An expired subscription key shows
 * `isActive: false` and `subscriptionStatus: 'expired'`; never carries `apiKey`.
 */
export function consumptionKeyToWire(row: ConsumptionKeyRow, now: number): ConsumptionKey {
  const base = {
    id: row.id,
    name: row.name,
    keyPlan: row.key_plan,
    keyType: row.key_type,
    createdAt: new Date(row.created_at).toISOString(),
    // The newer keys page's `lastUsedAt` (null: never used); the docs-v1 dialect leaves it out.
    lastUsedAt: row.last_used_at === null || row.last_used_at === undefined ? null : new Date(row.last_used_at).toISOString(),
  };
  if (row.key_type !== 'subscription') return { ...base, isActive: row.is_active === 1 };
  const expired = isExpired(row, now);
  return {
    ...base,
    // A pool key names its pledge (the newer keys page's `subscriptionId`).
    ...(row.subscription_id !== null && row.subscription_id !== undefined && { subscriptionId: row.subscription_id }),
    isActive: row.is_active === 1 && !expired,
    subscriptionStatus: expired ? 'expired' : 'active',
    subscriptionExpiresAt: new Date(row.subscription_expires_at ?? row.created_at).toISOString(),
  };
}

/** The management key's fields wire object of a management key (`lastUsedAt` null until first use). */
export function managementKeyToWire(row: ManagementKeyRow): ManagementKey {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.key_prefix,
    isActive: true,
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** Stores and finds keys of both kinds. Prepared statements are made once per database. */
export class KeyStore {
  readonly #insertConsumption;
  readonly #listConsumption;
  readonly #getConsumption;
  readonly #consumptionByHash;
  readonly #setName;
  readonly #setActive;
  readonly #softDelete;
  readonly #insertManagement;
  readonly #listManagement;
  readonly #managementByHash;
  readonly #deleteManagement;
  readonly #touchManagement;
  readonly #touchConsumption;
  readonly #creditKeyCounts;
  readonly #extendPledgeKeys;
  /** Per-user credit key counts, computed on first read and dropped on every change of that user's keys. */
  readonly #countCache = new Map<string, { total: number; active: number }>();
  /** Per-user change counter of consumption keys (see {@link KeyStore.version}). */
  readonly #versions = new Map<string, number>();

  constructor(db: DatabaseSync) {
    this.#insertConsumption = db.prepare(
      `INSERT INTO consumption_keys (id, user_id, name, key_plan, key_type, key_hash, is_active, blocks, subscription_expires_at, created_at, subscription_id)
       VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?) RETURNING ${CONSUMPTION_COLUMNS}`,
    );
    this.#listConsumption = db.prepare(`SELECT ${CONSUMPTION_COLUMNS} FROM consumption_keys WHERE user_id = ? AND deleted_at IS NULL ORDER BY rowid`);
    this.#getConsumption = db.prepare(`SELECT ${CONSUMPTION_COLUMNS} FROM consumption_keys WHERE id = ? AND user_id = ? AND deleted_at IS NULL`);
    this.#consumptionByHash = db.prepare(`SELECT key_hash, ${CONSUMPTION_COLUMNS} FROM consumption_keys WHERE key_hash = ? AND deleted_at IS NULL`);
    this.#setName = db.prepare('UPDATE consumption_keys SET name = ? WHERE id = ? AND user_id = ? AND deleted_at IS NULL');
    this.#setActive = db.prepare('UPDATE consumption_keys SET is_active = ? WHERE id = ? AND user_id = ? AND deleted_at IS NULL');
    this.#softDelete = db.prepare('UPDATE consumption_keys SET deleted_at = ?, is_active = 0 WHERE id = ? AND user_id = ? AND deleted_at IS NULL');
    this.#insertManagement = db.prepare(
      `INSERT INTO management_keys (id, user_id, name, key_prefix, key_hash, created_at)
       VALUES (?, ?, ?, ?, ?, ?) RETURNING ${MANAGEMENT_COLUMNS}`,
    );
    this.#listManagement = db.prepare(`SELECT ${MANAGEMENT_COLUMNS} FROM management_keys WHERE user_id = ? ORDER BY rowid`);
    this.#managementByHash = db.prepare('SELECT key_hash, id, user_id FROM management_keys WHERE key_hash = ?');
    this.#deleteManagement = db.prepare('DELETE FROM management_keys WHERE id = ? AND user_id = ?');
    this.#touchManagement = db.prepare('UPDATE management_keys SET last_used_at = ? WHERE id = ?');
    this.#touchConsumption = db.prepare('UPDATE consumption_keys SET last_used_at = ? WHERE id = ?');
    this.#extendPledgeKeys = db.prepare('UPDATE consumption_keys SET subscription_expires_at = ? WHERE subscription_id = ? AND user_id = ? AND deleted_at IS NULL');
    this.#creditKeyCounts = db.prepare(
      `SELECT COUNT(*) AS total, COALESCE(SUM(is_active), 0) AS active FROM consumption_keys
       WHERE user_id = ? AND key_type = 'credit' AND deleted_at IS NULL`,
    );
  }

  /** Called before every write of a user's consumption keys: drops cached figures. */
  #changed(userId: string): void {
    this.#countCache.delete(userId);
    this.#versions.set(userId, (this.#versions.get(userId) ?? 0) + 1);
  }

  /**
   * A number that changes whenever the user's consumption keys change (create, update, delete)
   * in this process; lets callers cache what they derive from {@link listConsumption}.
   */
  version(userId: string): number {
    return this.#versions.get(userId) ?? 0;
  }

  /**
   * The user's credit keys that are not deleted (`total`) and of those the active ones
   * (`active`, the credit balance record creditKeyCount). Cached in memory: only this store writes keys, and every
   * write of a user's keys drops that user's entry.
   */
  creditKeyCounts(userId: string): { total: number; active: number } {
    let counts = this.#countCache.get(userId);
    if (!counts) {
      const row = this.#creditKeyCounts.get(userId) as { total: number; active: number };
      counts = { total: row.total, active: row.active };
      this.#countCache.set(userId, counts);
    }
    return counts;
  }

  /** Creates an active credit key (`keyPlan` `credits`); returns the row and the full value (once). */
  createCredit(userId: string, name: string, now: number): { row: ConsumptionKeyRow; apiKey: string } {
    const apiKey = newConsumptionKeyValue();
    this.#changed(userId);
    const row = returning<ConsumptionKeyRow>(this.#insertConsumption, randomUUID(), userId, name, 'credits', 'credit', hashSecret(apiKey), null, null, now, null)!;
    return { row, apiKey };
  }

  /**
   * Creates an active subscription key of `plan` for `blocks`, valid 30 days from `now` (the service's states and transitions
   * first row); returns the row and the full value (once).
   */
  createSubscription(userId: string, plan: SubscriptionPlan, blocks: readonly SubscriptionBlock[], name: string, now: number): { row: ConsumptionKeyRow; apiKey: string } {
    const apiKey = newConsumptionKeyValue();
    this.#changed(userId);
    const row = returning<ConsumptionKeyRow>(this.#insertConsumption, randomUUID(), userId, name, plan, 'subscription', hashSecret(apiKey), blocks.join(','), now + SUBSCRIPTION_PERIOD_MS, now, null)!;
    return { row, apiKey };
  }

  /**
   * Mints the key of a pool pledge (`keyPlan` `pool`): its blocks, valid until the pledge's period
   * ends; returns the row and the full value (once). The caller checks that the pledge has no
   * active key (one per subscription).
   */
  createPoolKey(userId: string, pledge: { id: string; blocks: string; period_end: number }, name: string, now: number): { row: ConsumptionKeyRow; apiKey: string } {
    const apiKey = newConsumptionKeyValue();
    this.#changed(userId);
    const row = returning<ConsumptionKeyRow>(this.#insertConsumption, randomUUID(), userId, name, 'pool', 'subscription', hashSecret(apiKey), pledge.blocks, pledge.period_end, now, pledge.id)!;
    return { row, apiKey };
  }

  /**
   * A pledge renewed: its keys (not deleted) run to its new period end `periodEnd`
   * (epoch ms), as its first key was minted to run to the first.
   */
  extendPledgeKeys(userId: string, pledgeId: string, periodEnd: number): void {
    this.#changed(userId);
    this.#extendPledgeKeys.run(periodEnd, pledgeId, userId);
  }

  /** The user's keys that are not deleted, in creation order. */
  listConsumption(userId: string): ConsumptionKeyRow[] {
    return this.#listConsumption.all(userId) as unknown as ConsumptionKeyRow[];
  }

  /** One of the user's keys, or undefined (unknown, deleted, or another user's). */
  getConsumption(userId: string, id: string): ConsumptionKeyRow | undefined {
    return this.#getConsumption.get(id, userId) as ConsumptionKeyRow | undefined;
  }

  /** The live (not deleted) key whose value is `apiKey`, or undefined. */
  findConsumptionByValue(apiKey: string): ConsumptionKeyRow | undefined {
    const hash = hashSecret(apiKey);
    const row = this.#consumptionByHash.get(hash) as (ConsumptionKeyRow & { key_hash: Uint8Array }) | undefined;
    if (!row || !hashesEqual(row.key_hash, hash)) return undefined;
    const { key_hash: _hash, ...rest } = row;
    return rest;
  }

  /** Renames and/or (de)activates one of the user's keys (nothing happens when it is not theirs or gone). */
  updateConsumption(userId: string, id: string, change: { name?: string; isActive?: boolean }): void {
    this.#changed(userId);
    if (change.name !== undefined) this.#setName.run(change.name, id, userId);
    if (change.isActive !== undefined) this.#setActive.run(change.isActive ? 1 : 0, id, userId);
  }

  /** Deletes one of the user's keys for good; false when it is not theirs or already gone. */
  deleteConsumption(userId: string, id: string, now: number): boolean {
    this.#changed(userId);
    return Number(this.#softDelete.run(now, id, userId).changes) > 0;
  }

  /** Creates a management key; returns the row and the full value (once). */
  createManagement(userId: string, name: string, now: number): { row: ManagementKeyRow; apiKey: string } {
    const apiKey = newManagementKeyValue();
    const row = returning<ManagementKeyRow>(this.#insertManagement, randomUUID(), userId, name, keyPrefixOf(apiKey), hashSecret(apiKey), now)!;
    return { row, apiKey };
  }

  /** The user's management keys, in creation order. */
  listManagement(userId: string): ManagementKeyRow[] {
    return this.#listManagement.all(userId) as unknown as ManagementKeyRow[];
  }

  /** Deletes one of the user's management keys (it stops working at once); false when not theirs. */
  deleteManagement(userId: string, id: string): boolean {
    return Number(this.#deleteManagement.run(id, userId).changes) > 0;
  }

  /** The management key whose value is `apiKey` (`{ id, userId }`), or undefined. */
  findManagementByValue(apiKey: string): { id: string; userId: string } | undefined {
    const hash = hashSecret(apiKey);
    const row = this.#managementByHash.get(hash) as { key_hash: Uint8Array; id: string; user_id: string } | undefined;
    return row && hashesEqual(row.key_hash, hash) ? { id: row.id, userId: row.user_id } : undefined;
  }

  /** Records a use of a management key at `now` (ms): its `lastUsedAt`. */
  touchManagement(id: string, now: number): void {
    this.#touchManagement.run(now, id);
  }

  /**
   * Records a use of `row` (a consumption key as read at authentication) at `now` (ms): its
   * `lastUsedAt`, to the second: written (and the user's lists re-read) at most once a second
   * per key, so a busy key costs no write per request.
   */
  touchConsumption(row: ConsumptionKeyRow, now: number): void {
    if (row.last_used_at !== null && row.last_used_at !== undefined && Math.floor(row.last_used_at / 1000) === Math.floor(now / 1000)) return;
    this.#changed(row.user_id);
    this.#touchConsumption.run(now, row.id);
  }
}
