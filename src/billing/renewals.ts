/**
 * Cancelling a renewal, in words both faces share (`keydeck billing cancel` and the Billing pane's
 * `c`): which subscriptions and pool pledges of a billing status (src/api/reader.ts
 * `summarizeBillingStatus`) still renew, what each is called, why one cannot be cancelled (nothing
 * is then sent), the question asked first, and what the status read afterwards says. `POST
 * /api/billing/cancel` stops the renewal only: the entry stays active until its period ends.
 * Pure; the texts hold the service's words made visible (src/terminal/sanitize.ts).
 */
import type { BillingStatusSummary, StatusPoolPledge, StatusSubscription } from '../api/reader.js';
import { visible } from '../terminal/sanitize.js';

/** A subscription or pool pledge as the billing status lists it. */
export interface Renewal {
  readonly kind: 'subscription' | 'pledge';
  readonly id: string;
  readonly summary: StatusSubscription | StatusPoolPledge;
}

/** True for a status that still runs (`active`, `trialing`, `past_due`, or none said). */
export function isRunning(status: string | undefined): boolean {
  return status === undefined || ['active', 'trialing', 'past_due'].includes(status);
}

/** The entry of `summary` with `id` (a pledge first, as the service's ids may overlap), or undefined. */
export function findRenewal(summary: BillingStatusSummary, id: string): Renewal | undefined {
  const pledge = summary.poolPledges.find((p) => p.id === id);
  if (pledge) return { kind: 'pledge', id, summary: pledge };
  const sub = summary.subscriptions.find((s) => s.id === id);
  return sub ? { kind: 'subscription', id, summary: sub } : undefined;
}

/**
 * The entries whose renewal can be cancelled now (running, not already ending, with an id), pool
 * pledges last; with `pool` (a pool's slug or id), only that pool's pledges.
 */
export function cancellableRenewals(summary: BillingStatusSummary, pool?: string): Renewal[] {
  const open = (s: { id?: string; status?: string; cancelAtPeriodEnd?: boolean }) => s.id !== undefined && isRunning(s.status) && s.cancelAtPeriodEnd !== true;
  const pledges = summary.poolPledges.filter((p) => open(p) && (pool === undefined || p.pool === pool || p.poolId === pool)).map((p): Renewal => ({ kind: 'pledge', id: p.id!, summary: p }));
  if (pool !== undefined) return pledges;
  return [...summary.subscriptions.filter(open).map((s): Renewal => ({ kind: 'subscription', id: s.id!, summary: s })), ...pledges];
}

/** `pool pledge kimi26 (europe), id X` / `subscription pro, id X`: what it is, in words (visible). */
export function renewalWords(renewal: Pick<Renewal, 'kind' | 'summary'> | undefined, id: string): string {
  if (!renewal) return visible(`subscription ${id}`);
  if (renewal.kind === 'pledge') {
    const p = renewal.summary as StatusPoolPledge;
    return visible(`pool pledge ${p.pool ?? id}${p.blocks && p.blocks.length > 0 ? ` (${p.blocks.join(', ')})` : ''}, id ${id}`);
  }
  const s = renewal.summary as StatusSubscription;
  return visible(`subscription${s.plan ? ` ${s.plan}` : ''}, id ${id}`);
}

/**
 * Why `renewal` cannot be cancelled, with its code (`subscription_unknown`, `subscription_not_active`),
 * or undefined when it can; `already` when its renewal was cancelled before (nothing to send).
 * `listed` false: the status could not be read, so the service decides.
 */
export function cancelRefusal(
  renewal: Renewal | undefined,
  id: string,
  listed: boolean,
): { readonly code: 'subscription_unknown' | 'subscription_not_active' | 'already'; readonly sentence: string } | undefined {
  if (listed && !renewal) {
    return { code: 'subscription_unknown', sentence: `the billing status lists no subscription or pool pledge with id ${visible(id)}; nothing was sent` };
  }
  if (!renewal) return undefined;
  if (!isRunning(renewal.summary.status)) {
    return { code: 'subscription_not_active', sentence: `the ${renewalWords(renewal, id)} is ${visible(renewal.summary.status ?? '')}, so it has no renewal to cancel; nothing was sent` };
  }
  if (renewal.summary.cancelAtPeriodEnd === true)
    return { code: 'already', sentence: `the ${renewalWords(renewal, id)} already ends at its period end: its renewal was cancelled before; nothing was sent` };
  return undefined;
}

/**
 * The question asked before the cancel is sent: `Cancel the renewal of the subscription pro, id X?
 * It stays active until WHEN and is not renewed; its keys stop working then.` (`when`: how the face
 * writes a time).
 */
export function cancelQuestion(renewal: Renewal | undefined, id: string, when: (iso: string) => string): string {
  const ends = renewal?.summary.currentPeriodEnd;
  const keys = renewal?.kind === 'pledge' ? 'its key stops working then (a new pledge mints a new one)' : 'its keys stop working then';
  return `Cancel the renewal of the ${renewalWords(renewal, id)}? It stays active until ${ends ? when(ends) : 'the end of its current period'} and is not renewed; ${keys}.`;
}

/**
 * What the billing status read after the cancel says: `confirmed` (it ends at its period end),
 * `disagrees` (it still renews: the service accepted the cancel, its status says otherwise),
 * `unknown` (not listed, or the status could not be read).
 */
export function cancelOutcome(after: Renewal | undefined): 'confirmed' | 'disagrees' | 'unknown' {
  if (after?.summary.cancelAtPeriodEnd === true) return 'confirmed';
  if (after?.summary.cancelAtPeriodEnd === false) return 'disagrees';
  return 'unknown';
}
