import { formatUsd } from '../api/money.js';
/**
 * What the service's answers say about one top-up, read only when recognisable (
 * req. 1). Pure.
 *
 * - {@link paymentEvidence}: `GET /api/billing/status` ("response body: not shown"). The
 *   sandbox lists `pendingTopUps` and `recentTopUps` whose items name a checkout `sessionId` (or
 *   a card `paymentId`) with a `status`; the real service's shape is unknown, so the body is
 *   searched (bounded) for an object naming the top-up, and its words are read: `paid` only from
 *   an explicit paid status (`paid`, `succeeded`, `complete(d)`, `credited`), or from a list of
 *   finished top-ups whose item carries a completion time. Anything else says nothing.
 * - {@link directChargeEvidence}: the answer to a card-on-file charge (data not shown in the service's endpoints),
 *   credited only when it says so for this charge (`status` paid, or a numeric `credited`).
 *
 * A rise of `totalTopUp` is never evidence: {@link unexplainedRise} only words it.
 */

/** What a status says about one top-up. */
export type PaymentEvidence =
  /** A record names it paid; `amount` (USD) when the record gives one; `where` says which record, in words. */
  | { readonly kind: 'paid'; readonly amount?: number; readonly where: string }
  /** A record names it still unpaid. */
  | { readonly kind: 'pending'; readonly where: string }
  /** Nothing recognisable names it. */
  | { readonly kind: 'unknown' };

/** What names a card top-up at the service. */
export interface PaymentReference {
  /** The card checkout session checkout session id. */
  readonly sessionId?: string | undefined;
  /** A card-on-file payment's id, when its answer gave one. */
  readonly paymentId?: string | undefined;
}

const PAID = new Set(['paid', 'succeeded', 'success', 'successful', 'complete', 'completed', 'credited']);
const PENDING = new Set(['pending', 'open', 'unpaid', 'awaiting_payment', 'requires_payment', 'requires_payment_method', 'processing', 'created']);
const FINISHED_LIST = /recent|complete|paid|succeeded|credited|history|past/i;
const PENDING_LIST = /pending|open|unpaid|awaiting/i;
const SESSION_FIELDS = ['sessionId', 'session_id', 'checkoutSessionId', 'checkout_session_id'];
const PAYMENT_FIELDS = ['paymentId', 'payment_id', 'paymentIntentId', 'payment_intent_id'];
const STATUS_FIELDS = ['status', 'state', 'paymentStatus', 'payment_status'];
const COMPLETED_FIELDS = ['completedAt', 'completed_at', 'paidAt', 'paid_at', 'creditedAt', 'credited_at'];
/** Most nodes looked at, and deepest level: a hostile body cannot make this slow. */
const MAX_NODES = 5_000;
const MAX_DEPTH = 6;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstString(item: Record<string, unknown>, fields: readonly string[]): string | undefined {
  for (const f of fields) {
    const v = item[f];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/**
 * What `status` (any JSON) says about the top-up named by `ref`. `paid` and `pending` both
 * found: `unknown` (the service contradicts itself: nothing is claimed).
 */
export function paymentEvidence(status: unknown, ref: PaymentReference): PaymentEvidence {
  if (!ref.sessionId && !ref.paymentId) return { kind: 'unknown' };
  let nodes = 0;
  let paid: Extract<PaymentEvidence, { kind: 'paid' }> | undefined;
  let pending: Extract<PaymentEvidence, { kind: 'pending' }> | undefined;
  const names = (item: Record<string, unknown>): string | undefined => {
    const session = firstString(item, SESSION_FIELDS);
    if (ref.sessionId && session === ref.sessionId) return `checkout session ${ref.sessionId}`;
    const payment = firstString(item, PAYMENT_FIELDS);
    if (ref.paymentId && payment === ref.paymentId) return `payment ${ref.paymentId}`;
    return undefined;
  };
  const classify = (item: Record<string, unknown>, listKey: string, what: string): void => {
    const word = firstString(item, STATUS_FIELDS)?.toLowerCase();
    // A sentence a user reads: "the billing status lists checkout session cs_1 as succeeded (in recentTopUps)".
    const where = (state: string) => `the billing status lists ${what} as ${state}${listKey ? ` (in ${listKey})` : ''}`;
    const amount = typeof item.amount === 'number' && Number.isFinite(item.amount) && item.amount > 0 ? item.amount : undefined;
    if (word !== undefined && PAID.has(word)) paid = { kind: 'paid', where: where(word), ...(amount !== undefined && { amount }) };
    else if (word !== undefined && PENDING.has(word)) pending = { kind: 'pending', where: where(word) };
    else if (word === undefined && PENDING_LIST.test(listKey)) pending = { kind: 'pending', where: where('pending') };
    else if (word === undefined && FINISHED_LIST.test(listKey) && firstString(item, COMPLETED_FIELDS) !== undefined) {
      paid = { kind: 'paid', where: where('completed'), ...(amount !== undefined && { amount }) };
    }
  };
  const walk = (value: unknown, key: string, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, key, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    const what = names(value);
    if (what) classify(value, key, what);
    for (const [k, v] of Object.entries(value)) if (typeof v === 'object' && v !== null) walk(v, k, depth + 1);
  };
  walk(status, '', 0);
  if (paid && pending) return { kind: 'unknown' };
  return paid ?? pending ?? { kind: 'unknown' };
}

/** What a card-on-file charge's answer says about that charge. */
export interface DirectChargeEvidence {
  /** The answer says it was credited (`status` paid, or a numeric `credited`). */
  readonly credited: boolean;
  /** USD credited, when the answer gives it. */
  readonly amount?: number;
  /** USD balance after it, when the answer gives it. */
  readonly balance?: number;
  /** The payment's id, when the answer gives one (to find it in the billing status later). */
  readonly paymentId?: string;
}

/** Reads the answer of a `card_direct` top-up (any JSON). */
export function directChargeEvidence(data: unknown): DirectChargeEvidence {
  if (!isRecord(data)) return { credited: false };
  const word = firstString(data, STATUS_FIELDS)?.toLowerCase();
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const credited = num(data.credited);
  const balance = num(data.balance);
  const paymentId = firstString(data, [...PAYMENT_FIELDS, 'id']);
  const failed = word !== undefined && !PAID.has(word);
  return {
    credited: !failed && ((word !== undefined && PAID.has(word)) || (credited !== undefined && credited > 0)),
    ...(credited !== undefined && credited > 0 && { amount: credited }),
    ...(balance !== undefined && { balance }),
    ...(paymentId !== undefined && paymentId.length <= 200 && { paymentId }),
  };
}

/**
 * The sentence for a rise of `totalTopUp` since a card top-up started that nothing names
 * (undefined when it did not rise): "The total of top-ups rose by $15.00 since this checkout
 * started: this checkout or another payment; confirm on the checkout page."
 */
export function unexplainedRise(method: 'card_checkout' | 'card_direct', baselineTotalTopUp: number | undefined, totalTopUp: number | undefined): string | undefined {
  if (baselineTotalTopUp === undefined || totalTopUp === undefined) return undefined;
  const rise = Math.round(totalTopUp * 100) - Math.round(baselineTotalTopUp * 100);
  if (rise <= 0) return undefined;
  const what = method === 'card_checkout' ? 'this checkout' : 'this card charge';
  const check = method === 'card_checkout' ? 'confirm on the checkout page' : 'confirm with the card statement or the service';
  return `The total of top-ups rose by ${formatUsd(rise / 100)} since ${what} started: ${what} or another payment; ${check}. It is not marked credited until the service names it.`;
}
