/**
 * The top-ups the billing status lists (§4 `GET /api/billing/status`, body not shown), as auto
 * top-up reads them (issue 47): those still in flight, and the finished ones with their time.
 * The sandbox lists `pendingTopUps` and `recentTopUps` ({ method, status, amount, createdAt |
 * completedAt, sessionId | paymentId | txHash }); the real service's shape is unknown, so any list
 * whose key says pending or finished (as src/billing/evidence.ts reads it) is looked at, bounded
 * in nodes and depth, and an item counts only when it carries an amount and a time. Pure.
 */

/** A top-up the status lists. Amounts USD; times ms since the epoch (the service's clock). */
export interface ListedTopUp {
  readonly method: string;
  readonly amount: number;
  /** When it was asked for (pending) or completed (finished). */
  readonly at: number;
  /** `paymentId`, `sessionId` or `txHash`, when given. */
  readonly reference?: string;
}

/** The status's top-ups, by kind. */
export interface ListedTopUps {
  readonly pending: readonly ListedTopUp[];
  readonly finished: readonly ListedTopUp[];
}

const PENDING_LIST = /pending|open|unpaid|awaiting|processing/i;
const FINISHED_LIST = /recent|complete|paid|succeeded|credited|history|past/i;
const PENDING_WORDS = new Set(['pending', 'open', 'unpaid', 'awaiting_payment', 'processing', 'requires_payment', 'requires_payment_method', 'created']);
const FAILED_WORDS = new Set(['failed', 'declined', 'refused', 'canceled', 'cancelled', 'expired']);
const MAX_NODES = 5_000;
const MAX_DEPTH = 5;
const MAX_ITEMS = 200;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function amountOf(item: Record<string, unknown>): number | undefined {
  const raw = item.amount;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,9}(\.\d{1,6})?$/.test(raw) ? Number(raw) : NaN;
  return Number.isFinite(n) && n > 0 && n < 1e9 ? n : undefined;
}

function timeOf(item: Record<string, unknown>, fields: readonly string[]): number | undefined {
  for (const f of fields) {
    const v = item[f];
    const t = typeof v === 'string' && v.length <= 64 ? Date.parse(v) : NaN;
    if (Number.isFinite(t)) return t;
  }
  return undefined;
}

function referenceOf(item: Record<string, unknown>): string | undefined {
  for (const f of ['paymentId', 'payment_id', 'paymentIntentId', 'sessionId', 'session_id', 'txHash', 'tx_hash']) {
    const v = item[f];
    if (typeof v === 'string' && v !== '' && v.length <= 200) return v;
  }
  return undefined;
}

/** The top-ups `status` (any JSON) lists; nothing when it lists none recognisably. */
export function listedTopUps(status: unknown): ListedTopUps {
  const pending: ListedTopUp[] = [];
  const finished: ListedTopUp[] = [];
  let nodes = 0;
  const visit = (value: unknown, key: string, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES) return;
    if (Array.isArray(value)) {
      const listPending = PENDING_LIST.test(key);
      const listFinished = !listPending && FINISHED_LIST.test(key);
      for (const item of value.slice(0, MAX_ITEMS)) {
        if (++nodes > MAX_NODES) return;
        if (!isRecord(item) || (!listPending && !listFinished)) continue;
        const amount = amountOf(item);
        const method = typeof item.method === 'string' ? item.method.slice(0, 64) : '';
        const word = typeof item.status === 'string' ? item.status.toLowerCase() : undefined;
        if (amount === undefined || (word !== undefined && FAILED_WORDS.has(word))) continue;
        const reference = referenceOf(item);
        if (listPending || (word !== undefined && PENDING_WORDS.has(word))) {
          const at = timeOf(item, ['createdAt', 'created_at', 'requestedAt']);
          if (at !== undefined) pending.push({ method, amount, at, ...(reference !== undefined && { reference }) });
        } else {
          const at = timeOf(item, ['completedAt', 'completed_at', 'paidAt', 'paid_at', 'creditedAt', 'credited_at', 'createdAt']);
          if (at !== undefined) finished.push({ method, amount, at, ...(reference !== undefined && { reference }) });
        }
      }
      return;
    }
    if (!isRecord(value)) return;
    for (const [k, v] of Object.entries(value)) visit(v, k, depth + 1);
  };
  visit(status, '', 0);
  return { pending, finished };
}
