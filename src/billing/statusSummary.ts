/**
 * `GET /api/billing/status` as the documentation pages show it, in words: subscriptions (plan,
 * status, period end, cancel at period end, keys), pool pledges (pool, status, period end,
 * cancel at period end, key) and the credit balance. Shared by `keydeck billing status` and the
 * Billing pane; both fall back to the key/value tree of the raw answer when
 * `summarizeBillingStatus` (src/api/reader.ts) does not recognise it. Pure; the lines hold the
 * service's texts as they came (the Billing pane makes each visible), {@link summaryText} makes
 * each key and value visible (src/terminal/sanitize.ts): a newline in a plan's name is shown as
 * `\u000a`, never the start of another line.
 */
import { formatUsdCode } from '../api/money.js';
import type { BillingStatusSummary } from '../api/reader.js';
import { visible } from '../terminal/sanitize.js';

/** One line: indented by `depth`, `key` alone (a heading) or `key: value`. */
export interface SummaryLine {
  readonly depth: number;
  readonly key: string;
  readonly value?: string;
}

/** `2026-03-05T10:00:00.000Z` → `2026-03-05 10:00 UTC`; the text as it came when it does not parse. */
function when(iso: string | undefined): string {
  if (iso === undefined) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const yesNo = (v: boolean | undefined): string => (v === undefined ? '—' : v ? 'yes' : 'no');

/** Options of {@link statusSummaryLines}. */
export interface SummaryOptions {
  /** What to say after `has a key: no` for a pledge with that id (how to mint it here). */
  readonly mintHint?: (id: string) => string;
}

/**
 * The summary as lines: `subscriptions (N)` with one block per subscription (its plan as the
 * heading), `pool pledges (N)` likewise (the pool's slug; its id, blocks and whether it has its
 * key, with `mintHint` when it has none), then `credit balance: 25.00 USD` (to the
 * cent, never rounded up) when the service sent one.
 */
export function statusSummaryLines(summary: BillingStatusSummary, options: SummaryOptions = {}): SummaryLine[] {
  const out: SummaryLine[] = [];
  out.push(summary.subscriptions.length === 0 ? { depth: 0, key: 'subscriptions', value: 'none' } : { depth: 0, key: `subscriptions (${summary.subscriptions.length})` });
  for (const s of summary.subscriptions) {
    out.push({ depth: 1, key: s.plan ?? s.id ?? 'subscription' });
    out.push({ depth: 2, key: 'status', value: s.status ?? '—' });
    out.push({ depth: 2, key: 'period ends', value: when(s.currentPeriodEnd) });
    out.push({ depth: 2, key: 'cancel at period end', value: yesNo(s.cancelAtPeriodEnd) });
    const names = s.keys.map((k) => k.name ?? k.id ?? '?');
    const count = s.keyCount ?? names.length;
    out.push({ depth: 2, key: 'keys', value: names.length > 0 ? `${names.join(', ')}${count !== names.length ? ` (${count} in all)` : ''}` : String(count) });
  }
  out.push(summary.poolPledges.length === 0 ? { depth: 0, key: 'pool pledges', value: 'none' } : { depth: 0, key: `pool pledges (${summary.poolPledges.length})` });
  for (const p of summary.poolPledges) {
    out.push({ depth: 1, key: p.pool ?? p.id ?? 'pool' });
    if (p.id !== undefined) out.push({ depth: 2, key: 'id', value: p.id });
    out.push({ depth: 2, key: 'status', value: p.status ?? '—' });
    if (p.blocks !== undefined) out.push({ depth: 2, key: 'blocks', value: p.blocks.join(', ') });
    out.push({ depth: 2, key: 'period ends', value: when(p.currentPeriodEnd) });
    out.push({ depth: 2, key: 'cancel at period end', value: yesNo(p.cancelAtPeriodEnd) });
    const hint = p.hasKey === false && p.id !== undefined && options.mintHint ? ` — ${options.mintHint(p.id)}` : '';
    out.push({ depth: 2, key: 'has a key', value: `${yesNo(p.hasKey)}${hint}` });
  }
  if (summary.creditBalance !== undefined) out.push({ depth: 0, key: 'credit balance', value: formatUsdCode(summary.creditBalance) });
  return out;
}

/**
 * The lines as text for a terminal, two spaces per level (`  status: active`), each key and value
 * made visible on its own (no control character, newline included, reaches the terminal from them).
 */
export function summaryText(lines: readonly SummaryLine[]): string {
  return lines.map((l) => `${'  '.repeat(l.depth)}${visible(l.key)}${l.value !== undefined ? `: ${visible(l.value)}` : ''}`).join('\n');
}
