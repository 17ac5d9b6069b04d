/**
 * The top-ups the billing status lists (the service's endpoints `GET /api/billing/status`, body not shown), as auto
 * top-up reads them: those still in flight, the finished ones and the failed ones
 * (a declined card), each with its time. The sandbox lists `pendingTopUps`, `recentTopUps` and
 * `failedTopUps` ({ method, status, amount, createdAt, completedAt, sessionId | paymentId |
 * txHash }); the real service's pages show no such list (docs/real-service.md), so any list whose
 * key says pending, finished or failed (as src/billing/evidence.ts reads it) is looked at, bounded
 * in nodes and depth, and an item counts only when it carries an amount and a time. Pure.
 */

/** A top-up the status lists. Amounts USD; times ms since the epoch (the service's clock). */
export interface ListedTopUp {
  readonly method: string;
  readonly amount: number;
  /** When it was asked for (pending, failed) or completed (finished). */
  readonly at: number;
  /** When it was asked for, when the service says (a finished item's `createdAt`); else {@link at}. */
  readonly askedAt: number;
  /** `paymentId`, `sessionId` or `txHash`, when given. */
  readonly reference?: string;
}

/** The status's top-ups, by kind. */
export interface ListedTopUps {
  readonly pending: readonly ListedTopUp[];
  readonly finished: readonly ListedTopUp[];
  /** Charges that failed (declined, refused): never money, but the service's count of failures. */
  readonly failed: readonly ListedTopUp[];
  /** True when the status has any list of top-ups at all (even empty): the service lists them. */
  readonly lists: boolean;
}

const PENDING_LIST = /pending|open|unpaid|awaiting|processing/i;
const FINISHED_LIST = /recent|complete|paid|succeeded|credited|history|past/i;
const FAILED_LIST = /fail|declin|refus/i;
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
  const failed: ListedTopUp[] = [];
  let lists = false;
  let nodes = 0;
  const visit = (value: unknown, key: string, depth: number): void => {
    if (depth > MAX_DEPTH || ++nodes > MAX_NODES) return;
    if (Array.isArray(value)) {
      const listFailed = FAILED_LIST.test(key);
      const listPending = !listFailed && PENDING_LIST.test(key);
      const listFinished = !listFailed && !listPending && FINISHED_LIST.test(key);
      if (listFailed || listPending || listFinished) lists = true;
      for (const item of value.slice(0, MAX_ITEMS)) {
        if (++nodes > MAX_NODES) return;
        if (!isRecord(item) || (!listPending && !listFinished && !listFailed)) continue;
        const amount = amountOf(item);
        if (amount === undefined) continue;
        const method = typeof item.method === 'string' ? item.method.slice(0, 64) : '';
        const word = typeof item.status === 'string' ? item.status.toLowerCase() : undefined;
        const reference = referenceOf(item);
        const asked = timeOf(item, ['createdAt', 'created_at', 'requestedAt']);
        const of = (at: number): ListedTopUp => ({ method, amount, at, askedAt: asked ?? at, ...(reference !== undefined && { reference }) });
        if (listFailed || (word !== undefined && FAILED_WORDS.has(word))) {
          const at = asked ?? timeOf(item, ['failedAt', 'failed_at', 'completedAt', 'completed_at']);
          if (at !== undefined) failed.push(of(at));
        } else if (listPending || (word !== undefined && PENDING_WORDS.has(word))) {
          if (asked !== undefined) pending.push(of(asked));
        } else {
          const at = timeOf(item, ['completedAt', 'completed_at', 'paidAt', 'paid_at', 'creditedAt', 'credited_at', 'createdAt']);
          if (at !== undefined) finished.push(of(at));
        }
      }
      return;
    }
    if (!isRecord(value)) return;
    for (const [k, v] of Object.entries(value)) visit(v, k, depth + 1);
  };
  visit(status, '', 0);
  return { pending, finished, failed, lists };
}
