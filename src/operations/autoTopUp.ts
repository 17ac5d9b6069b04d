/**
 * Auto top-up as an operation: when a profile's policy (src/config/autoTopUp.ts) says
 * so, charge the card on file once for one fall of the balance — never above a cap, never
 * silently — and, across machines, what the service allows (docs/topups.md "Auto top-up"): it has
 * no idempotency key and credits a card charge at once, so no lock on one machine makes two
 * machines exactly once. What keydeck does instead is below.
 *
 * ## Steps, their states and crash points
 *
 * | step | what                                                                                   | crash here leaves                                         |
 * |------|----------------------------------------------------------------------------------------|-----------------------------------------------------------|
 * | 1    | read the policy, the balance and this machine's record; paused, or not below the threshold: done | nothing changed                                 |
 * | 2    | a fall seen: read the billing status (what it lists now), then the settle wait: random, bounded, drawn afresh on each machine ({@link AutoTopUpPorts.settle}) | nothing changed |
 * | 3    | take the account's lock on this machine (`<data dir>/autotopup-<account>.lock`)         | nothing changed; the OS drops the lock with the process   |
 * | 4    | inside it, read afresh: the policy, the balance, the billing status, the top-up record; settle card charges the status names | nothing changed but records the status names credited |
 * | 5    | decide (src/billing/autoTopUp.ts): paused, not needed, served (a top-up appeared since step 2), pending, capped (every card charge the service lists counts, whoever made it), or charge | nothing changed |
 * | 6    | record the charge, `verifying`, before it is sent (`record.written:topups`)             | a record in flight: every later run here sees a pending top-up and charges nothing until the status names it or the user closes it |
 * | 7    | send `POST /api/billing/topup` once, never retried (`request:`/`answered:topUp`)          | the same: the charge's outcome is unknown, never assumed  |
 * | 8    | record the answer: credited, refused (a failure), still verifying (sent, its answer unclear or lost), or closed (never sent) | — |
 * | 9    | sent: read the billing status again; another card charge for the same fall asked for before this one (another machine's) pauses this machine's policy, naming it (`file.renamed:config.json`) | the charge on record; the other machine's too: the next run here charges nothing until the balance falls again |
 *
 * The lock keeps two processes of this machine from deciding at once. Two machines are kept apart
 * by what the service shows: the settle wait makes two machines that saw one fall at once read
 * again at different times, so the later one mostly sees the earlier one's charge (step 5,
 * `served`, or the balance back above the threshold); when both still charge, step 9 finds it on
 * the later one, which pauses itself, so one fall is charged twice at most once per pair of
 * machines. A cap is checked at step 5 against the service's own list of card charges, so one
 * machine never passes it and two in a race pass it by at most the one charge in flight.
 */
import { createHash, randomInt } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CreditBalance } from '../api/schemas.js';
import { decideAutoTopUp, decisionSentence, utcDay, utcMonth, type AutoTopUpDecision } from '../billing/autoTopUp.js';
import { appearedSince, chargedSince, earlierCharge, listedFailureStreak, listedInWords, probableLostCharges, recordFailureStreak, recordReferences } from '../billing/autoTopUpCount.js';
import { directChargeEvidence } from '../billing/evidence.js';
import { formatDollars } from '../billing/input.js';
import { inScope, type JournalEntry, type JournalScope, type TopUpJournal } from '../billing/journal.js';
import { listedTopUps, type ListedTopUps } from '../billing/serviceTopUps.js';
import { checkCardPayments, codeOf, messageOf, outcomeUnknown, type TopUpClient } from '../billing/topups.js';
import { DEFAULT_SETTLE_SECONDS, PAUSE_AFTER_FAILURES, type AutoTopUpPolicy, type SettleBounds } from '../config/autoTopUp.js';
import { withLockFile } from '../config/lock.js';

export { autoCharges, recordFailureStreak as failureStreak } from '../billing/autoTopUpCount.js';
export { summarize, type AutoTopUpSummary } from './autoTopUpSummary.js';

/** A top-up asked for less than this long ago, still unpaid, is in flight (someone is paying it now), ms. */
const IN_FLIGHT_MS = 30 * 60_000;

/** The client calls the operation makes (a KeydeckClient, or a stand-in in tests). */
export interface AutoTopUpClient extends TopUpClient {
  readonly billing: TopUpClient['billing'] & { topUp(input: { amount: number; method: string }): Promise<{ data: unknown }> };
  /** The service's clock, ms since the epoch (`KeydeckClient.serviceNow`). */
  serviceNow(): number;
}

/** Why this machine paused its policy (the policy's `paused`). */
export type AutoTopUpPause = NonNullable<AutoTopUpPolicy['paused']>;

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
  /** Pauses the profile's policy on this machine (the config file's `paused`, until `autotopup resume`). */
  pausePolicy(pause: AutoTopUpPause): Promise<void>;
  /** The wire names the card on file may go by at this service (`card_direct`, `stripe_direct`, the profile's). */
  readonly cardMethodNames: readonly string[];
  /**
   * The settle wait's bounds (default {@link DEFAULT_SETTLE_SECONDS}), as `settleBounds` reads
   * `KEYDECK_AUTOTOPUP_SETTLE_SECONDS`: a value it refused fails every run (nothing is charged).
   */
  readonly settle?: SettleBounds | { readonly problem: string };
}

/** Another machine's charge for the same fall, found after this one's (step 9). */
export interface SecondCharge {
  /** The other charge, in words. */
  readonly other: string;
  /** Its reference at the service, when it has one. */
  readonly reference?: string;
}

/** What one run did. `sentence` is what the user reads (the command's line, the pane's, the log's). */
export type AutoTopUpOutcome =
  | { readonly kind: 'no_policy'; readonly sentence: string }
  | { readonly kind: 'skipped'; readonly decision: Exclude<AutoTopUpDecision, { kind: 'charge' }>; readonly sentence: string }
  | { readonly kind: 'credited'; readonly entry: JournalEntry; readonly sentence: string; readonly secondCharge?: SecondCharge }
  | { readonly kind: 'unknown'; readonly entry: JournalEntry; readonly sentence: string; readonly secondCharge?: SecondCharge }
  | { readonly kind: 'failed'; readonly entry: JournalEntry; readonly paused: boolean; readonly sentence: string }
  | { readonly kind: 'not_sent'; readonly entry: JournalEntry; readonly sentence: string };

/** What was read when the fall was seen (step 2). */
interface FallSeen {
  readonly totalTopUp: number;
  readonly listed: ListedTopUps;
}

/** The account's lock file: one per service and account (`userId`, else the profile). */
function autoTopUpLockPath(dataDir: string, host: string, account: string): string {
  const id = createHash('sha256').update(`${host}\n${account}`).digest('hex').slice(0, 16);
  return path.join(dataDir, `autotopup-${id}.lock`);
}

/** What blocks a charge, in words: records in flight, and the status's unpaid top-ups of the last {@link IN_FLIGHT_MS}. */
function inFlight(records: readonly JournalEntry[], listed: ListedTopUps, cardNames: ReadonlySet<string>, now: number, serviceNow: number): string[] {
  const pending: string[] = [];
  // A listed pending top-up is said once: by the record in flight that names it, else by itself
  // (a record closed on the user's word, or refused, never hides what the service still lists).
  const claimed = recordReferences(records.filter((e) => e.state === 'verifying' || e.state === 'awaiting_payment'));
  const probable = probableLostCharges(records, [...listed.finished, ...listed.pending].filter((t) => cardNames.has(t.method)));
  for (const t of probable.values()) if (t.reference) claimed.add(t.reference.toLowerCase());
  const listedPending = new Set(listed.pending.filter((t) => t.reference !== undefined).map((t) => t.reference!.toLowerCase()));
  for (const e of records) {
    const age = now - Date.parse(e.createdAt);
    if (e.state === 'verifying') {
      if (probable.has(e.id) && listed.finished.includes(probable.get(e.id)!)) continue;
      const ref = e.paymentId ?? probable.get(e.id)?.reference;
      if (ref !== undefined && listedPending.has(ref.toLowerCase())) {
        pending.push(`a card charge of ${formatDollars(e.amount)} recorded ${e.createdAt.slice(0, 16).replace('T', ' ')} UTC is charged and not credited yet: the billing status lists it as pending (${ref})`);
        continue;
      }
      const yours = e.autoTopUp !== undefined ? ' (once the card statement shows it was not charged, keydeck autotopup resume closes it)' : '';
      pending.push(`a ${e.method === 'usdc' ? 'USDC top-up' : 'card charge'} of ${formatDollars(e.amount)} recorded ${e.createdAt.slice(0, 16).replace('T', ' ')} UTC is still verifying: its outcome is unknown${yours}`);
    } else if (e.state === 'awaiting_payment' && age < IN_FLIGHT_MS) {
      pending.push(`a ${e.method === 'usdc' ? 'USDC top-up' : 'card checkout'} of ${formatDollars(e.amount)} asked for ${Math.max(1, Math.round(age / 60_000))} min ago is awaiting payment`);
    }
  }
  for (const t of listed.pending) {
    if (t.reference && claimed.has(t.reference.toLowerCase())) continue;
    if (serviceNow - t.at < IN_FLIGHT_MS) pending.push(`the billing status lists a pending ${t.method || 'top-up'} of ${formatDollars(t.amount)}`);
  }
  return pending;
}

/** The settle wait, ms: random between the bounds, drawn afresh (so two machines draw apart). */
function settleWait(bounds: SettleBounds | undefined): number {
  const { minMs, maxMs } = bounds ?? { minMs: DEFAULT_SETTLE_SECONDS.min * 1000, maxMs: DEFAULT_SETTLE_SECONDS.max * 1000 };
  return maxMs > minMs ? minMs + randomInt(maxMs - minMs + 1) : minMs;
}

/**
 * One run: settles, decides under the account's lock, charges at most once and checks afterwards
 * (the module's table).
 * @throws KeydeckApiError when the balance or the status cannot be read (nothing was charged);
 *   JournalError when the record cannot be written before the charge (nothing was charged);
 *   Error `could not lock …` when another keydeck held the account's lock too long.
 */
export async function runAutoTopUp(ports: AutoTopUpPorts): Promise<AutoTopUpOutcome> {
  const noPolicy = { kind: 'no_policy', sentence: 'No auto top-up policy is set for this profile: keydeck autotopup set --below USD --amount USD' } as const;
  if (ports.settle !== undefined && 'problem' in ports.settle) throw new Error(`${ports.settle.problem}; nothing was charged`);
  const seen = await ports.readPolicy();
  if (seen === undefined) return noPolicy;
  const cardNames = new Set(ports.cardMethodNames);
  const first = await ports.client.billing.credits();
  const records = async () => (await ports.journal.list()).filter((e) => inScope(e, ports.scope));
  // Step 1: a paused policy, or a balance not below the threshold, is done without waiting.
  const skip = (decision: Exclude<AutoTopUpDecision, { kind: 'charge' }>): AutoTopUpOutcome => ({ kind: 'skipped', decision, sentence: decisionSentence(decision, new Date(ports.client.serviceNow())) });
  const quick = (failureStreak: number) =>
    decideAutoTopUp({ now: new Date(ports.client.serviceNow()), policy: seen, remaining: first.remaining, pending: [], chargedToday: 0, chargedThisMonth: 0, failureStreak, pausedBecause: seen.paused?.reason });
  const before = quick(recordFailureStreak(await records(), seen.since));
  if (before.kind === 'paused' || before.kind === 'not_needed') return skip(before);
  // Step 2: the fall is seen; what the service lists now (paused by the failures it lists?), then the settle wait.
  const fall: FallSeen = { totalTopUp: first.totalTopUp, listed: listedTopUps(await ports.client.billing.status()) };
  const known = quick(listedFailureStreak(fall.listed, cardNames, seen.since));
  if (known.kind === 'paused') return skip(known);
  await sleep(settleWait(ports.settle as SettleBounds | undefined));
  const lock = autoTopUpLockPath(ports.dataDir, ports.scope.host, first.userId ?? `profile:${ports.scope.profile ?? ''}`);
  await mkdir(ports.dataDir, { recursive: true, mode: 0o700 });
  return withLockFile(lock, async () => {
    const policy = await ports.readPolicy();
    if (policy === undefined) return noPolicy;
    const credits = await ports.client.billing.credits();
    const listed = listedTopUps(await ports.client.billing.status());
    let mine = await records();
    // Card charges the status names paid are settled first: they are no longer in flight.
    if ((await checkCardPayments(ports, mine.filter((e) => e.state !== 'credited'))).length > 0) mine = await records();
    const serviceNow = ports.client.serviceNow();
    const streak = Math.max(recordFailureStreak(mine, policy.since), listedFailureStreak(listed, cardNames, policy.since));
    const now = new Date(serviceNow);
    const appeared = appearedSince(fall.listed, listed);
    const rise = Math.round((credits.totalTopUp - fall.totalTopUp) * 100) / 100;
    const decision = decideAutoTopUp({
      now,
      policy,
      remaining: credits.remaining,
      pending: inFlight(mine, listed, cardNames, Date.now(), serviceNow),
      chargedToday: chargedSince(mine, listed, cardNames, utcDay(now).start.getTime()),
      chargedThisMonth: chargedSince(mine, listed, cardNames, utcMonth(now).start.getTime()),
      failureStreak: streak,
      pausedBecause: policy.paused?.reason,
      served: appeared.length > 0 ? `the service lists ${appeared.map(listedInWords).join(' and ')}` : rise > 0 ? `the total of top-ups rose by ${formatDollars(rise)}` : undefined,
    });
    if (decision.kind !== 'charge') return skip(decision);
    const outcome = await charge(ports, policy, decision.amount, credits, serviceNow, streak);
    return outcome.kind === 'credited' || outcome.kind === 'unknown' ? afterCharge(ports, fall, outcome) : outcome;
  });
}

/** Steps 6–8: the record first, then the one request, then its answer on record. */
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

/** The sentence of a pause for a second charge: it names the other charge. */
function twoMachinesSentence(other: string): string {
  return `another card charge for the same fall of the balance was made before this one (${other}): two machines run auto top-up for this account: keep one.`;
}

/**
 * Step 9: the billing status read again after a charge that was sent. Another card charge for the
 * same fall asked for before this one (listed since the fall was seen, on no record of this
 * machine) makes this machine the later: it pauses its own policy, naming the other charge. Where
 * the service lists no top-ups, a rise of the total beyond this charge's credit is that other
 * charge, unordered: each machine that sees it pauses. A check that cannot be made is said.
 */
async function afterCharge(ports: AutoTopUpPorts, fall: FallSeen, outcome: Extract<AutoTopUpOutcome, { kind: 'credited' | 'unknown' }>): Promise<AutoTopUpOutcome> {
  const cardNames = new Set(ports.cardMethodNames);
  let second: SecondCharge | undefined;
  try {
    const after = listedTopUps(await ports.client.billing.status());
    if (after.lists && outcome.entry.paymentId !== undefined) {
      const own = recordReferences((await ports.journal.list()).filter((e) => inScope(e, ports.scope)));
      const other = earlierCharge(fall.listed, after, outcome.entry.paymentId, own, cardNames);
      if (other) second = { other: listedInWords(other), ...(other.reference !== undefined && { reference: other.reference }) };
    } else if (!after.lists && outcome.kind === 'credited') {
      const total = (await ports.client.billing.credits()).totalTopUp;
      const rise = Math.round((total - fall.totalTopUp - (outcome.entry.credited ?? outcome.entry.amount)) * 100) / 100;
      if (rise > 0) second = { other: `the total of top-ups rose by ${formatDollars(rise)} more than this charge, and the service does not list who made it` };
    }
  } catch (error) {
    return { ...outcome, sentence: `${outcome.sentence} (keydeck could not read the billing status again to check that no other machine charged for the same fall: ${messageOf(error)}.)` };
  }
  if (second === undefined) return outcome;
  const reason = capital(twoMachinesSentence(second.other));
  try {
    await ports.pausePolicy({ at: new Date(ports.client.serviceNow()).toISOString(), reason, ...(second.reference !== undefined && { otherCharge: second.reference }) });
  } catch (error) {
    // The charge is made and said: a pause that cannot be written is said beside it.
    return { ...outcome, secondCharge: second, sentence: `${outcome.sentence} ${reason} keydeck could not pause auto top-up on this machine (${messageOf(error)}): turn it off here (keydeck autotopup off).` };
  }
  return { ...outcome, secondCharge: second, sentence: `${outcome.sentence} ${reason} Auto top-up is paused on this machine until keydeck autotopup resume.` };
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
