/**
 * What auto top-up counts (docs/topups.md "Auto top-up"), from the service's own list of top-ups
 * (./serviceTopUps.ts) and this machine's record of them (./journal.ts), pure:
 *
 * - {@link chargedSince}: USD charged to the card on file since a time, for the caps. Every card
 *   charge the service lists counts, whoever made it (another machine, a person by hand, this
 *   machine); a charge on this machine's record counts too until the service lists it (in flight,
 *   or past the end of its list), never twice.
 * - {@link recordFailureStreak} and {@link listedFailureStreak}: failed charges in a row, on the
 *   service's clock: this machine's own auto charges by when they were decided (the service's
 *   time), and every card charge the service lists (declined ones included, where it lists
 *   them: the sandbox does), so that machines share one count.
 * - {@link appearedSince}: the top-ups a later reading lists that an earlier one did not (a fall
 *   already served), and {@link earlierCharge}: after a charge, another card charge for the same
 *   fall made before it (two machines acting on one fall).
 * - {@link inFlight}: what blocks a charge, in words: the top-ups in flight on record and listed.
 *
 * Times are ms since the epoch on the service's clock.
 */
import type { JournalEntry } from './journal.js';
import type { ListedTopUp, ListedTopUps } from './serviceTopUps.js';
import { formatUsd } from '../api/money.js';

/** The name of a listed top-up: its reference (case-blind), else its method, amount and time. */
function keyOf(t: ListedTopUp): string {
  return t.reference !== undefined ? `ref:${t.reference.toLowerCase()}` : `${t.method}|${Math.round(t.amount * 100)}|${t.askedAt}`;
}

/** When a record's top-up was made: an auto charge's decision (the service's clock), else when it was recorded. */
export function recordTime(e: JournalEntry): number {
  return Date.parse(e.autoTopUp?.decidedAt ?? e.createdAt);
}

/** The references a record carries (session, payment, hash, address), lower-cased. */
export function recordReferences(records: readonly JournalEntry[]): Set<string> {
  const refs = new Set<string>();
  for (const e of records) for (const ref of [e.sessionId, e.paymentId, e.txHash, e.address]) if (ref) refs.add(ref.toLowerCase());
  return refs;
}

/** The card-on-file charges `listed` shows, finished or in flight (never the failed ones). */
export function listedCardCharges(listed: ListedTopUps, cardNames: ReadonlySet<string>): ListedTopUp[] {
  return [...listed.finished, ...listed.pending].filter((t) => cardNames.has(t.method));
}

/**
 * For each card charge on record whose answer was lost (verifying, no `paymentId`): the one listed
 * card charge of the same amount from a minute before it was made on, that no record names and no
 * other such record took. Never a verdict (the record stays `verifying`: nothing names it), only
 * what keeps it from counting twice or blocking for ever. Keyed by record id.
 */
export function probableLostCharges(records: readonly JournalEntry[], charges: readonly ListedTopUp[]): Map<string, ListedTopUp> {
  const claimed = recordReferences(records);
  const found = new Map<string, ListedTopUp>();
  for (const e of records) {
    if (e.state !== 'verifying' || e.method !== 'card_direct' || e.paymentId !== undefined) continue;
    const from = recordTime(e) - 60_000;
    const candidates = charges.filter((t) => t.reference !== undefined && !claimed.has(t.reference.toLowerCase()) && Math.round(t.amount * 100) === Math.round(e.amount * 100) && t.at >= from);
    if (candidates.length === 1) {
      found.set(e.id, candidates[0]!);
      claimed.add(candidates[0]!.reference!.toLowerCase());
    }
  }
  return found;
}

/**
 * USD charged to the card on file from `from` on: every card charge `listed` shows (asked for
 * since then), and every card charge on `records` (credited, or in flight) made since then that
 * the list does not show. `listed` empty: the record alone (what a face shows between reads).
 */
export function chargedSince(records: readonly JournalEntry[], listed: ListedTopUps, cardNames: ReadonlySet<string>, from: number): number {
  const charges = listedCardCharges(listed, cardNames);
  const shown = new Set(charges.filter((t) => t.reference !== undefined).map((t) => t.reference!.toLowerCase()));
  const probable = probableLostCharges(records, charges);
  let cents = charges.filter((t) => t.askedAt >= from).reduce((sum, t) => sum + Math.round(t.amount * 100), 0);
  for (const e of records) {
    if (e.method !== 'card_direct' || (e.state !== 'credited' && e.state !== 'verifying') || recordTime(e) < from) continue;
    if ((e.paymentId !== undefined && shown.has(e.paymentId.toLowerCase())) || probable.has(e.id)) continue;
    cents += Math.round((e.credited ?? e.amount) * 100);
  }
  return cents / 100;
}

/** The auto charges of `records`, newest first (by when each was decided). */
export function autoCharges(records: readonly JournalEntry[]): JournalEntry[] {
  return records.filter((e) => e.autoTopUp !== undefined).sort((a, b) => recordTime(b) - recordTime(a));
}

/** This machine's failed auto charges in a row, newest first, decided at or after `since` (ISO 8601, the service's clock). */
export function recordFailureStreak(records: readonly JournalEntry[], since: string): number {
  const from = Date.parse(since);
  let n = 0;
  for (const e of autoCharges(records)) {
    if (recordTime(e) < from) break;
    if (e.state === 'closed') continue;
    if (e.state !== 'refused') break;
    n++;
  }
  return n;
}

/** Failed card charges in a row that `listed` shows, newest first, asked for at or after `since` (ISO 8601): 0 where the service lists no failures. */
export function listedFailureStreak(listed: ListedTopUps, cardNames: ReadonlySet<string>, since: string): number {
  const from = Date.parse(since);
  const events = [
    ...listedCardCharges(listed, cardNames).map((t) => ({ at: t.askedAt, failed: false })),
    ...listed.failed.filter((t) => cardNames.has(t.method)).map((t) => ({ at: t.askedAt, failed: true })),
  ]
    .filter((e) => e.at >= from)
    .sort((a, b) => b.at - a.at);
  let n = 0;
  for (const e of events) {
    if (!e.failed) break;
    n++;
  }
  return n;
}

/** The top-ups (any method, finished or in flight) that `after` lists and `before` did not. */
export function appearedSince(before: ListedTopUps, after: ListedTopUps): ListedTopUp[] {
  const known = new Set([...before.finished, ...before.pending].map(keyOf));
  return [...after.finished, ...after.pending].filter((t) => !known.has(keyOf(t)));
}

/** Whether `a` was asked for before `b` (by time, then by reference: every reader orders two charges alike). */
function before(a: ListedTopUp, b: ListedTopUp): boolean {
  return a.askedAt !== b.askedAt ? a.askedAt < b.askedAt : (a.reference ?? '') < (b.reference ?? '');
}

/**
 * After this machine's charge `paymentId`: the earliest other card charge that `after` lists and
 * `seen` (the reading when the fall was seen) did not, asked for before this one, and that no
 * record of this machine names (`ownReferences`): another machine's charge for the same fall,
 * which makes this one the later. Undefined when there is none, or when `after` does not list
 * this charge (then nothing orders the two).
 */
export function earlierCharge(seen: ListedTopUps, after: ListedTopUps, paymentId: string, ownReferences: ReadonlySet<string>, cardNames: ReadonlySet<string>): ListedTopUp | undefined {
  const mine = listedCardCharges(after, cardNames).find((t) => t.reference?.toLowerCase() === paymentId.toLowerCase());
  if (mine === undefined) return undefined;
  const others = appearedSince(seen, after).filter((t) => cardNames.has(t.method) && t !== mine && !(t.reference !== undefined && ownReferences.has(t.reference.toLowerCase())) && before(t, mine));
  return others.sort((a, b) => (before(a, b) ? -1 : 1))[0];
}

/** A listed top-up in words: "a card_direct top-up of $30.00 (pi_1, asked for 2026-11-28 03:12:04 UTC)". */
export function listedInWords(t: ListedTopUp): string {
  const time = new Date(t.askedAt).toISOString().slice(0, 19).replace('T', ' ');
  return `a ${t.method || 'top-up'} ${t.method ? 'top-up ' : ''}of ${formatUsd(t.amount)} (${t.reference !== undefined ? `${t.reference}, ` : ''}asked for ${time} UTC)`;
}

/**
 * The policy's `since` when it is set or resumed (ISO 8601): after every failed charge already
 * known — listed by the service, or on this machine's record — and at least now on the service's
 * clock less a second. That clock is read from its HTTP `Date`, to the second, so a later run may
 * read it up to a second behind: a failure after `since` must count whichever run saw it.
 */
export function countFrom(serviceNow: number, listed: ListedTopUps, records: readonly JournalEntry[]): string {
  const failed = listed.failed
    .map((t) => t.askedAt)
    .concat(
      autoCharges(records)
        .filter((e) => e.state === 'refused')
        .map(recordTime),
    );
  // A time further ahead than the clock's resolution is not believed (it would keep every later failure from counting).
  return new Date(Math.max(serviceNow - 1_000, ...failed.filter((t) => Number.isFinite(t) && t <= serviceNow + 2_000).map((t) => t + 1))).toISOString();
}

/** A top-up asked for less than this long ago, still unpaid, is in flight (someone is paying it now), ms. */
const IN_FLIGHT_MS = 30 * 60_000;

/**
 * A top-up in flight, as auto top-up's decision tells it: `words` (the top-up and its state), and
 * `resumeCloses` for an auto top-up charge of this machine whose outcome is unknown, which the
 * user closes by resuming auto top-up once the card statement shows it was not charged (each face
 * names its way to resume).
 */
export interface InFlightTopUp {
  readonly words: string;
  readonly resumeCloses: boolean;
}

/** What blocks a charge: records in flight, and the status's unpaid top-ups of the last {@link IN_FLIGHT_MS}. */
export function inFlight(records: readonly JournalEntry[], listed: ListedTopUps, cardNames: ReadonlySet<string>, now: number, serviceNow: number): InFlightTopUp[] {
  const pending: InFlightTopUp[] = [];
  const said = (words: string, resumeCloses = false) => pending.push({ words, resumeCloses });
  // A listed pending top-up is said once: by the record in flight that names it, else by itself
  // (a record closed on the user's word, or refused, never hides what the service still lists).
  const claimed = recordReferences(records.filter((e) => e.state === 'verifying' || e.state === 'awaiting_payment'));
  const probable = probableLostCharges(
    records,
    [...listed.finished, ...listed.pending].filter((t) => cardNames.has(t.method)),
  );
  for (const t of probable.values()) if (t.reference) claimed.add(t.reference.toLowerCase());
  const listedPending = new Set(listed.pending.filter((t) => t.reference !== undefined).map((t) => t.reference!.toLowerCase()));
  for (const e of records) {
    const age = now - Date.parse(e.createdAt);
    if (e.state === 'verifying') {
      if (probable.has(e.id) && listed.finished.includes(probable.get(e.id)!)) continue;
      const ref = e.paymentId ?? probable.get(e.id)?.reference;
      if (ref !== undefined && listedPending.has(ref.toLowerCase())) {
        said(`a card charge of ${formatUsd(e.amount)} recorded ${e.createdAt.slice(0, 16).replace('T', ' ')} UTC is charged and not credited yet: the billing status lists it as pending (${ref})`);
        continue;
      }
      said(
        `a ${e.method === 'usdc' ? 'USDC top-up' : 'card charge'} of ${formatUsd(e.amount)} recorded ${e.createdAt.slice(0, 16).replace('T', ' ')} UTC is still verifying: its outcome is unknown`,
        e.autoTopUp !== undefined,
      );
    } else if (e.state === 'awaiting_payment' && age < IN_FLIGHT_MS) {
      said(`a ${e.method === 'usdc' ? 'USDC top-up' : 'card checkout'} of ${formatUsd(e.amount)} asked for ${Math.max(1, Math.round(age / 60_000))} min ago is awaiting payment`);
    }
  }
  for (const t of listed.pending) {
    if (t.reference && claimed.has(t.reference.toLowerCase())) continue;
    if (serviceNow - t.at < IN_FLIGHT_MS) said(`the billing status lists a pending ${t.method || 'top-up'} of ${formatUsd(t.amount)}`);
  }
  return pending;
}
