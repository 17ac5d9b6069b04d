/**
 * Subscriptions and pool pledges without their key, and whether a key may be minted for one
 *: shared by `keydeck keys create --subscription`, `billing status` and the Keys pane.
 * Pure functions over what the service said: the billing status as summarised by
 * `summarizeBillingStatus` (src/api/reader.ts) and the key list (with the newer pages'
 * `subscriptionId`). The rule is the Per-Key Plans page's "one active key per subscription"
 * (https://cheapestinference-docs.pages.dev/guides/per-key-plans/). Texts are the service's and are
 * sanitised by whoever writes them to a terminal.
 */
import type { BillingStatusSummary } from '../api/reader.js';
import { reservedHoursAt } from '../api/poolBlocks.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { NotifyEvent } from '../terminal/notify.js';

/** A subscription or pool pledge that has no key (yet). */
export interface KeylessSubscription {
  /** The id to pass as `subscriptionId`. */
  readonly id: string;
  /** `pledge`: a pool pledge (`poolPledges[]`); `subscription`: a legacy flat-plan subscription. */
  readonly kind: 'pledge' | 'subscription';
  /** The pool's slug (or id) of a pledge, the plan of a subscription. */
  readonly what?: string;
  /** The reserved blocks, when the service says them. */
  readonly blocks?: readonly string[];
  readonly status?: string;
  /** ISO 8601. */
  readonly currentPeriodEnd?: string;
}

/** A key's `subscriptionId`, when the service sends it (the newer keys page). */
export function subscriptionIdOf(key: ConsumptionKey): string | undefined {
  const v = (key as Record<string, unknown>).subscriptionId;
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** True for a status that still entitles a key (`active`, or none said). */
function entitles(status: string | undefined): boolean {
  return status === undefined || status === 'active' || status === 'trialing';
}

/** The active listed key of subscription `id`, if any. */
function activeKeyOf(id: string, keys: readonly ConsumptionKey[]): ConsumptionKey | undefined {
  return keys.find((k) => k.isActive && subscriptionIdOf(k) === id);
}

/**
 * The subscriptions and pledges of `summary` that are still running and have no key: pledges with
 * `hasKey: false`, subscriptions with `keyCount: 0`, and no active key in `keys` naming them.
 */
export function keylessSubscriptions(summary: BillingStatusSummary | undefined, keys: readonly ConsumptionKey[] = []): KeylessSubscription[] {
  if (!summary) return [];
  const out: KeylessSubscription[] = [];
  for (const p of summary.poolPledges) {
    if (p.id === undefined || p.hasKey !== false || !entitles(p.status) || activeKeyOf(p.id, keys)) continue;
    out.push({
      id: p.id,
      kind: 'pledge',
      ...(p.pool !== undefined && { what: p.pool }),
      ...(p.blocks && { blocks: p.blocks }),
      ...(p.status !== undefined && { status: p.status }),
      ...(p.currentPeriodEnd !== undefined && { currentPeriodEnd: p.currentPeriodEnd }),
    });
  }
  for (const s of summary.subscriptions) {
    if (s.id === undefined || s.keyCount !== 0 || !entitles(s.status) || activeKeyOf(s.id, keys)) continue;
    out.push({
      id: s.id,
      kind: 'subscription',
      ...(s.plan !== undefined && { what: s.plan }),
      ...(s.status !== undefined && { status: s.status }),
      ...(s.currentPeriodEnd !== undefined && { currentPeriodEnd: s.currentPeriodEnd }),
    });
  }
  return out;
}

/**
 * Why a key must not be minted for subscription `id` now, in one phrase, or undefined when
 * nothing known stands against it: an active key of it is listed; the status says the pledge
 * has its key, or that it is no longer active; or the status (when readable) lists no
 * subscription or pledge with that id. `summary` undefined (the status could not be read or has
 * another shape): only the key list is checked, and the service decides.
 */
export function mintRefusal(id: string, summary: BillingStatusSummary | undefined, keys: readonly ConsumptionKey[] = []): string | undefined {
  return mintRefusalOf(id, summary, keys)?.sentence;
}

/** Why a mint is refused, as {@link mintRefusalOf} gives it: a stable code and src/billing's sentence. */
export interface MintRefusalWords {
  /** `pledge_has_key`: only the billing status's `hasKey: true` says so (no active key is listed). */
  readonly code: 'subscription_has_key' | 'pledge_has_key' | 'subscription_not_active' | 'subscription_unknown';
  readonly sentence: string;
}

/** {@link mintRefusal} with its code. */
export function mintRefusalOf(id: string, summary: BillingStatusSummary | undefined, keys: readonly ConsumptionKey[] = []): MintRefusalWords | undefined {
  const active = activeKeyOf(id, keys);
  if (active)
    return {
      code: 'subscription_has_key',
      sentence: `subscription ${id} already has an active key, "${active.name}" (id ${active.id}): one active key per subscription; deactivate or delete it first`,
    };
  if (!summary) return undefined;
  const pledge = summary.poolPledges.find((p) => p.id === id);
  if (pledge) {
    if (!entitles(pledge.status)) return { code: 'subscription_not_active', sentence: `the pool pledge ${id} is ${pledge.status}, not active` };
    if (pledge.hasKey === true)
      return { code: 'pledge_has_key', sentence: `the pool pledge ${id} already has its key (the billing status says hasKey: true): one active key per subscription; deactivate or delete it first` };
    return undefined;
  }
  const sub = summary.subscriptions.find((s) => s.id === id);
  if (sub) return entitles(sub.status) ? undefined : { code: 'subscription_not_active', sentence: `the subscription ${id} is ${sub.status}, not active` };
  return { code: 'subscription_unknown', sentence: `the billing status lists no subscription or pool pledge with id ${id}` };
}

/**
 * The reserved blocks of a subscription key, as the service says them: the key's own `blocks`
 * (when sent), else those of the pledge its `subscriptionId` names; undefined when unknown.
 */
export function blocksOfKey(key: ConsumptionKey, summary: BillingStatusSummary | undefined): readonly string[] | undefined {
  const own = (key as Record<string, unknown>).blocks;
  if (Array.isArray(own) && own.length > 0 && own.every((b) => typeof b === 'string')) return own as string[];
  const id = subscriptionIdOf(key);
  if (id === undefined || !summary) return undefined;
  return summary.poolPledges.find((p) => p.id === id)?.blocks;
}

/** How long before its block ends a pool key's `block_ending` goes out, ms (15 min). */
export const BLOCK_END_NOTICE_MS = 15 * 60_000;

/**
 * The `block_ending` events due at `now` for the active pool keys whose blocks `blocksOf` knows,
 * leaving out the key-and-end pairs in `already` (which it then adds to). Pure.
 */
export function dueBlockEvents(keys: readonly ConsumptionKey[] | undefined, blocksOf: (key: ConsumptionKey) => readonly string[] | undefined, now: number, already: Set<string>): NotifyEvent[] {
  const events: NotifyEvent[] = [];
  for (const key of keys ?? []) {
    if (!key.isActive) continue;
    const blocks = blocksOf(key);
    const at = blocks ? reservedHoursAt(blocks, now) : undefined;
    if (!at?.inside || !Number.isFinite(at.endsAt) || at.endsAt - now > BLOCK_END_NOTICE_MS) continue;
    const id = `${key.id}@${at.endsAt}`;
    if (already.has(id)) continue;
    already.add(id);
    const next = reservedHoursAt(blocks!, at.endsAt);
    events.push({ kind: 'block_ending', keyName: key.name, block: at.block, minutesLeft: (at.endsAt - now) / 60_000, ...(next && !next.inside && { nextBlock: next.block }) });
  }
  return events;
}
