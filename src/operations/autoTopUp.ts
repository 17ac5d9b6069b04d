/**
 * Auto top-up as an operation (issue 47): when a profile's policy (src/config/autoTopUp.ts) says
 * so, charge the card on file once for one fall of the balance — never twice for one trigger,
 * never above a cap, never silently.
 *
 * ## Steps, their states and crash points
 *
 * | step | what                                                                                   | crash here leaves                                         |
 * |------|----------------------------------------------------------------------------------------|-----------------------------------------------------------|
 * | 1    | read the policy; read the balance (its `userId` names the account)                      | nothing changed                                           |
 * | 2    | take the account's lock on this machine (`<data dir>/autotopup-<account>.lock`)         | nothing changed; the OS drops the lock with the process   |
 * | 3    | inside it, read afresh: the policy, the balance, the billing status, the top-up record; settle card charges the status names | nothing changed but records the status names credited |
 * | 4    | decide (src/billing/autoTopUp.ts): paused, not needed, pending, capped, or charge        | nothing changed                                           |
 * | 5    | record the charge, `verifying`, before it is sent (`record.written:topups`)             | a record in flight: every later run sees a pending top-up and charges nothing until the status names it or the user closes it |
 * | 6    | send `POST /api/billing/topup` once, never retried (`request:`/`answered:topUp`)          | the same: the charge's outcome is unknown, never assumed  |
 * | 7    | record the answer: credited (it says so), refused (the service refused it: a failure), still verifying (sent, its answer unclear or lost), or closed (never sent) | — |
 *
 * The lock keeps two processes of this machine from deciding at once; a second machine (or data
 * dir) is kept from charging for the same fall by what it reads afresh at step 3: the balance
 * back above the threshold once the first charge is credited, or the first charge in the billing
 * status's pending top-ups until then. A new fall after a credited top-up is a new trigger.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { CreditBalance } from '../api/schemas.js';
import { decideAutoTopUp, decisionSentence, utcDay, utcMonth, type AutoTopUpDecision } from '../billing/autoTopUp.js';
import { directChargeEvidence } from '../billing/evidence.js';
import { formatDollars } from '../billing/input.js';
import { inScope, type JournalEntry, type JournalScope, type TopUpJournal } from '../billing/journal.js';
import { listedTopUps, type ListedTopUp } from '../billing/serviceTopUps.js';
import { checkCardPayments, codeOf, messageOf, outcomeUnknown, type TopUpClient } from '../billing/topups.js';
import { PAUSE_AFTER_FAILURES, type AutoTopUpPolicy } from '../config/autoTopUp.js';
import { withLockFile } from '../config/lock.js';

/** A top-up asked for less than this long ago, still unpaid, is in flight (someone is paying it now), ms. */
const IN_FLIGHT_MS = 30 * 60_000;

/** The client calls the operation makes (a KeydeckClient, or a stand-in in tests). */
export interface AutoTopUpClient extends TopUpClient {
  readonly billing: TopUpClient['billing'] & { topUp(input: { amount: number; method: string }): Promise<{ data: unknown }> };
  /** The service's clock, ms since the epoch (`KeydeckClient.serviceNow`). */
  serviceNow(): number;
}

/** What the operation reads and writes. */
export interface AutoTopUpPorts {
  readonly client: AutoTopUpClient;
  readonly journal: TopUpJournal;
  /** The profile's records (host and profile). */
  readonly scope: JournalScope;
  /** keydeck's data dir: the account's lock lives there. */
  readonly dataDir: string;
  /** Reads the profile's policy afresh from the config file (undefined: none). */
  readPolicy(): Promise<AutoTopUpPolicy | undefined>;
  /** The wire names the card on file may go by at this service (`card_direct`, `stripe_direct`, the profile's). */
  readonly cardMethodNames: readonly string[];
}

/** What one run did. `sentence` is what the user reads (the command's line, the pane's, the log's). */
export type AutoTopUpOutcome =
  | { readonly kind: 'no_policy'; readonly sentence: string }
  | { readonly kind: 'skipped'; readonly decision: Exclude<AutoTopUpDecision, { kind: 'charge' }>; readonly sentence: string }
  | { readonly kind: 'credited'; readonly entry: JournalEntry; readonly sentence: string }
  | { readonly kind: 'unknown'; readonly entry: JournalEntry; readonly sentence: string }
  | { readonly kind: 'failed'; readonly entry: JournalEntry; readonly paused: boolean; readonly sentence: string }
  | { readonly kind: 'not_sent'; readonly entry: JournalEntry; readonly sentence: string };

/** The account's lock file: one per service and account (`userId`, else the profile). */
function autoTopUpLockPath(dataDir: string, host: string, account: string): string {
  const id = createHash('sha256').update(`${host}\n${account}`).digest('hex').slice(0, 16);
  return path.join(dataDir, `autotopup-${id}.lock`);
}

/** The auto charges of `records`, newest first. */
export function autoCharges(records: readonly JournalEntry[]): JournalEntry[] {
  return records.filter((e) => e.autoTopUp !== undefined).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Failed auto charges in a row, newest first, made at or after `since` (ISO 8601). */
export function failureStreak(records: readonly JournalEntry[], since: string): number {
  let n = 0;
  for (const e of autoCharges(records)) {
    if (e.createdAt < since) break;
    if (e.state === 'closed') continue;
    if (e.state !== 'refused') break;
    n++;
  }
  return n;
}

/**
 * The payment that is probably an auto charge whose answer was lost (no `paymentId` on record):
 * the one card-on-file charge of the same amount that the status lists as finished from a minute
 * before the decision on, not claimed by another record. Never a verdict (the record stays
 * `verifying`: nothing names it), only what keeps it from counting twice or blocking for ever.
 */
function probableLostCharge(entry: JournalEntry, finished: readonly ListedTopUp[], cardNames: ReadonlySet<string>, claimed: ReadonlySet<string>): ListedTopUp | undefined {
  if (entry.state !== 'verifying' || entry.paymentId !== undefined || entry.autoTopUp === undefined) return undefined;
  const from = Date.parse(entry.autoTopUp.decidedAt) - 60_000;
  const candidates = finished.filter((t) => cardNames.has(t.method) && t.reference !== undefined && !claimed.has(t.reference) && Math.round(t.amount * 100) === Math.round(entry.amount * 100) && t.at >= from);
  return candidates.length === 1 ? candidates[0] : undefined;
}

/** What the status lists, read against the record: what is in flight, and which listed charges records stand for. */
interface Reading {
  readonly pending: string[];
  /** Listed references that a record stands for (its own, or its probable lost charge). */
  readonly claimed: Set<string>;
}

/** What blocks a charge: records in flight, and the status's unpaid top-ups of the last {@link IN_FLIGHT_MS}. */
function readRecords(records: readonly JournalEntry[], listed: ReturnType<typeof listedTopUps>, cardNames: ReadonlySet<string>, now: number, serviceNow: number): Reading {
  const pending: string[] = [];
  const claimed = new Set<string>();
  for (const e of records) for (const ref of [e.sessionId, e.paymentId, e.txHash, e.address]) if (ref) claimed.add(ref);
  for (const e of records) {
    const age = now - Date.parse(e.createdAt);
    if (e.state === 'verifying') {
      const probable = probableLostCharge(e, listed.finished, cardNames, claimed);
      if (probable?.reference) {
        claimed.add(probable.reference);
        continue;
      }
      const yours = e.autoTopUp !== undefined ? ' (once the card statement shows it was not charged, keydeck autotopup resume closes it)' : '';
      pending.push(`a ${e.method === 'usdc' ? 'USDC top-up' : 'card charge'} of ${formatDollars(e.amount)} recorded ${e.createdAt.slice(0, 16).replace('T', ' ')} UTC is still verifying: its outcome is unknown${yours}`);
    } else if (e.state === 'awaiting_payment' && age < IN_FLIGHT_MS) {
      pending.push(`a ${e.method === 'usdc' ? 'USDC top-up' : 'card checkout'} of ${formatDollars(e.amount)} asked for ${Math.max(1, Math.round(age / 60_000))} min ago is awaiting payment`);
    }
  }
  const known = new Set([...claimed].map((r) => r.toLowerCase()));
  for (const t of listed.pending) {
    if (t.reference && known.has(t.reference.toLowerCase())) continue;
    if (serviceNow - t.at < IN_FLIGHT_MS) pending.push(`the billing status lists a pending ${t.method || 'top-up'} of ${formatDollars(t.amount)}`);
  }
  return { pending, claimed };
}

/**
 * USD charged to the card since `from` (service time): the auto charges on record (credited, or
 * in flight), and the status's card-on-file charges no record stands for (another machine's, or
 * a person's: counted too, so a cap is never passed).
 */
function chargedSince(records: readonly JournalEntry[], finished: readonly ListedTopUp[], cardNames: ReadonlySet<string>, claimed: ReadonlySet<string>, from: number): number {
  const mine = autoCharges(records).filter((e) => (e.state === 'credited' || e.state === 'verifying') && Date.parse(e.autoTopUp!.decidedAt) >= from);
  const cents =
    mine.reduce((sum, e) => sum + Math.round((e.credited ?? e.amount) * 100), 0) +
    finished.filter((t) => cardNames.has(t.method) && t.at >= from && !(t.reference && claimed.has(t.reference))).reduce((sum, t) => sum + Math.round(t.amount * 100), 0);
  return cents / 100;
}

/** The policy's state from this machine's record alone (no request): what the faces show between runs. USD. */
export interface AutoTopUpSummary {
  readonly paused: boolean;
  readonly failures: number;
  readonly chargedToday: number;
  readonly chargedThisMonth: number;
  readonly dayCapRemaining: number;
  readonly monthCapRemaining: number;
}

/** {@link AutoTopUpSummary} of `records` (the profile's) under `policy`, at `serviceNow` (ms). */
export function summarize(records: readonly JournalEntry[], policy: AutoTopUpPolicy, serviceNow: number): AutoTopUpSummary {
  const now = new Date(serviceNow);
  const none = new Set<string>();
  const chargedToday = chargedSince(records, [], new Set(), none, utcDay(now).start.getTime());
  const chargedThisMonth = chargedSince(records, [], new Set(), none, utcMonth(now).start.getTime());
  const failures = failureStreak(records, policy.since);
  return {
    paused: failures >= PAUSE_AFTER_FAILURES,
    failures,
    chargedToday,
    chargedThisMonth,
    dayCapRemaining: Math.max(0, Math.round((policy.maxPerDayUsd - chargedToday) * 100) / 100),
    monthCapRemaining: Math.max(0, Math.round((policy.maxPerMonthUsd - chargedThisMonth) * 100) / 100),
  };
}

/**
 * One run: decides under the account's lock and charges at most once (the module's table).
 * @throws KeydeckApiError when the balance or the status cannot be read (nothing was charged);
 *   JournalError when the record cannot be written before the charge (nothing was charged);
 *   Error `could not lock …` when another keydeck held the account's lock too long.
 */
export async function runAutoTopUp(ports: AutoTopUpPorts): Promise<AutoTopUpOutcome> {
  const noPolicy = { kind: 'no_policy', sentence: 'No auto top-up policy is set for this profile: keydeck autotopup set --below USD --amount USD' } as const;
  if ((await ports.readPolicy()) === undefined) return noPolicy;
  const first = await ports.client.billing.credits();
  const lock = autoTopUpLockPath(ports.dataDir, ports.scope.host, first.userId ?? `profile:${ports.scope.profile ?? ''}`);
  await mkdir(ports.dataDir, { recursive: true, mode: 0o700 });
  return withLockFile(lock, async () => {
    const policy = await ports.readPolicy();
    if (policy === undefined) return noPolicy;
    const credits = await ports.client.billing.credits();
    const status = await ports.client.billing.status();
    const listed = listedTopUps(status);
    let records = (await ports.journal.list()).filter((e) => inScope(e, ports.scope));
    // Card charges the status names paid are settled first: they are no longer in flight.
    if ((await checkCardPayments(ports, records.filter((e) => e.state !== 'credited'))).length > 0) {
      records = (await ports.journal.list()).filter((e) => inScope(e, ports.scope));
    }
    const serviceNow = ports.client.serviceNow();
    const cardNames = new Set(ports.cardMethodNames);
    const reading = readRecords(records, listed, cardNames, Date.now(), serviceNow);
    const streak = failureStreak(records, policy.since);
    const now = new Date(serviceNow);
    const decision = decideAutoTopUp({
      now,
      policy,
      remaining: credits.remaining,
      pending: reading.pending,
      chargedToday: chargedSince(records, listed.finished, cardNames, reading.claimed, utcDay(now).start.getTime()),
      chargedThisMonth: chargedSince(records, listed.finished, cardNames, reading.claimed, utcMonth(now).start.getTime()),
      failureStreak: streak,
    });
    if (decision.kind !== 'charge') return { kind: 'skipped', decision, sentence: decisionSentence(decision, new Date(serviceNow)) };
    return charge(ports, policy, decision.amount, credits, serviceNow, streak);
  });
}

/** Steps 5–7: the record first, then the one request, then its answer on record. */
async function charge(ports: AutoTopUpPorts, policy: AutoTopUpPolicy, amount: number, credits: CreditBalance, serviceNow: number, streak: number): Promise<AutoTopUpOutcome> {
  const { journal, scope } = ports;
  let entry = await journal.add({
    amount,
    method: 'card_direct',
    state: 'verifying',
    host: scope.host,
    ...(scope.profile !== undefined && { profile: scope.profile }),
    baselineTotalTopUp: credits.totalTopUp,
    autoTopUp: { decidedAt: new Date(serviceNow).toISOString(), remaining: credits.remaining, belowUsd: policy.belowUsd },
  });
  const what = `the auto top-up charge of ${formatDollars(amount)} (balance ${formatDollars(credits.remaining)}, below ${formatDollars(policy.belowUsd)})`;
  let result: { data: unknown };
  try {
    result = await ports.client.billing.topUp({ amount, method: policy.method ?? 'card_direct' });
  } catch (error) {
    const reason = messageOf(error);
    if (outcomeUnknown(error)) {
      entry = (await journal.update(entry.id, { reason, reasonCode: codeOf(error) })) ?? entry;
      return { kind: 'unknown', entry, sentence: `${capital(what)} was sent, but its outcome is unknown (${reason}). It counts as pending: no other charge is made until the billing status names it or you close it (keydeck billing history); check the card statement.` };
    }
    if ((error as { status?: unknown }).status === undefined) {
      // Never reached the service (refused connection, bad address, invalid input): not a charge.
      entry = (await journal.update(entry.id, { state: 'closed', reason: `never sent: ${reason}`, reasonCode: 'not_sent' })) ?? entry;
      return { kind: 'not_sent', entry, sentence: `${capital(what)} was not sent: ${reason}. Nothing was charged.` };
    }
    entry = (await journal.update(entry.id, { state: 'refused', reason, reasonCode: codeOf(error) })) ?? entry;
    const paused = streak + 1 >= PAUSE_AFTER_FAILURES;
    return {
      kind: 'failed',
      entry,
      paused,
      sentence: `${capital(what)} failed: ${reason}.${paused ? ` That is ${PAUSE_AFTER_FAILURES} failures in a row: auto top-up is paused until keydeck autotopup resume.` : ' The next run tries again.'}`,
    };
  }
  const said = directChargeEvidence(result.data);
  if (said.paymentId !== undefined) entry = (await journal.update(entry.id, { paymentId: said.paymentId })) ?? entry;
  if (said.credited) {
    entry = (await journal.update(entry.id, { state: 'credited', credited: said.amount ?? amount, ...(said.balance !== undefined && { balance: said.balance }), evidence: 'the answer to this card charge says it was credited' })) ?? entry;
    return { kind: 'credited', entry, sentence: `Charged ${formatDollars(entry.credited ?? amount)} to the card on file: ${what} was credited${said.balance !== undefined ? `; the balance is ${formatDollars(said.balance)}` : ''}.` };
  }
  entry = (await journal.update(entry.id, { reason: 'the answer does not say that it was credited', reasonCode: 'unconfirmed' })) ?? entry;
  return { kind: 'unknown', entry, sentence: `${capital(what)} was sent, but its answer does not say it was credited: it counts as pending until the billing status names it.` };
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
