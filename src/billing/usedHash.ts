/**
 * What `tx_already_used` means for a USDC top-up whose own earlier verify of that hash has no
 * known outcome (its answer was lost: a timeout, a crash): did that verify credit it, or did
 * another top-up use the hash? Pure: ./verifyUsdc.ts reads the balance and the billing status
 * and acts on the answer.
 *
 * The evidence, in order (docs/topups.md "The record of top-ups"):
 *
 * 1. The billing status read with the verify's baseline, before it was sent
 *    (`verifyBaselineListed`), lists the hash as credited: it was used before keydeck's verify,
 *    by another top-up: **elsewhere**, whatever the total did since.
 * 2. The status now lists the hash credited, and did not then: keydeck's verify credited it
 *    (the status names it): **credited**, for the amount the status gives.
 * 3. Otherwise the rise of `totalTopUp` since the baseline: below the top-up's amount, the verify
 *    credited nothing (**elsewhere**); at least the amount beyond every top-up the status lists
 *    as finished since the baseline (a reference it did not list then), **credited**; else the
 *    rise may be another top-up's: **unknown** (the record stays `verifying`).
 *
 * Without the baseline's listing (the status could not be read then, or a record from before it
 * was kept), step 3 counts the whole rise, as keydeck did before; without a status now, a rise
 * of at least the amount is **unknown**. The status's items without a reference cannot be told
 * old from new and are not counted.
 */
import type { CreditBalance } from '../api/schemas.js';
import type { JournalEntry } from './journalEntry.js';
import { listedTopUps } from './serviceTopUps.js';
import { formatUsd } from '../api/money.js';

/** Most references kept from the baseline's status. */
export const MAX_BASELINE_LISTED = 200;

/** The references (lower case) of the finished top-ups `status` (any JSON) lists, for `verifyBaselineListed`. */
export function finishedReferences(status: unknown): string[] {
  return listedTopUps(status)
    .finished.flatMap((t) => (t.reference ? [t.reference.toLowerCase()] : []))
    .slice(0, MAX_BASELINE_LISTED);
}

/** What the hash's use means for this top-up. `reason` and `evidence` are sentences without a final period. */
export type UsedHashVerdict =
  { readonly kind: 'credited'; readonly credited: number; readonly evidence: string } | { readonly kind: 'elsewhere'; readonly reason: string } | { readonly kind: 'unknown'; readonly reason: string };

const cents = (usd: number) => Math.round(usd * 100);

/**
 * The verdict for `entry` (verifying, with its baseline) verified for `amount` USD, from the
 * balance and the billing status (`body`: any JSON) read after `tx_already_used` (each undefined
 * when it could not be read).
 */
export function usedHashVerdict(
  entry: Pick<JournalEntry, 'txHash' | 'verifyBaselineTotalTopUp' | 'verifyBaselineListed'>,
  amount: number,
  credits: CreditBalance | undefined,
  status: { readonly body: unknown } | undefined,
): UsedHashVerdict {
  const hash = entry.txHash?.toLowerCase() ?? '';
  const before = entry.verifyBaselineListed;
  if (before?.includes(hash)) {
    return { kind: 'elsewhere', reason: 'this transaction hash was credited before keydeck’s verification was sent (the billing status listed it then): another top-up used it, not this one' };
  }
  const listed = status === undefined ? undefined : listedTopUps(status.body).finished;
  const mine = listed?.find((t) => t.reference?.toLowerCase() === hash);
  if (before !== undefined && mine) {
    return {
      kind: 'credited',
      credited: mine.amount,
      evidence: 'the billing status lists this transaction hash as credited, and did not before keydeck’s earlier verification (whose answer was lost) was sent',
    };
  }
  const baseline = entry.verifyBaselineTotalTopUp;
  if (baseline === undefined || credits === undefined) {
    return { kind: 'unknown', reason: 'the hash was already used, most likely by keydeck’s earlier verification whose answer was lost; the balance could not be read to confirm it' };
  }
  const rise = cents(credits.totalTopUp) - cents(baseline);
  if (rise < cents(amount)) {
    return {
      kind: 'elsewhere',
      reason: `this transaction hash was already used, and the total of top-ups rose by only ${formatUsd(Math.max(0, rise) / 100)} since keydeck’s earlier verification: another top-up used it, not this one`,
    };
  }
  if (before !== undefined && listed === undefined) {
    return {
      kind: 'unknown',
      reason: `the hash was already used and the total of top-ups rose by ${formatUsd(rise / 100)} since keydeck’s earlier verification, but the billing status could not be read to tell whether another top-up explains it`,
    };
  }
  const others =
    before === undefined
      ? 0
      : (listed ?? []).filter((t) => t.reference !== undefined && t.reference.toLowerCase() !== hash && !before.includes(t.reference.toLowerCase())).reduce((sum, t) => sum + cents(t.amount), 0);
  if (rise - others >= cents(amount)) {
    return {
      kind: 'credited',
      credited: amount,
      evidence: `tx_already_used for this hash after keydeck’s own earlier verification, whose answer was lost, while the total of top-ups rose by ${formatUsd(rise / 100)} (at least ${formatUsd(amount)}${others > 0 ? `, beyond the ${formatUsd(others / 100)} of other top-ups listed since` : ''}) since that verification`,
    };
  }
  return {
    kind: 'unknown',
    reason: `the hash was already used and the total of top-ups rose by ${formatUsd(rise / 100)} since keydeck’s earlier verification, but other top-ups the billing status lists since explain ${formatUsd(others / 100)} of it: keydeck cannot tell whether its verification credited this one`,
  };
}
