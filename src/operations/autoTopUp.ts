/**
 * Auto top-up as an operation of the kit (./kit.ts): when a profile's policy
 * (src/config/autoTopUp.ts) says so, charge the card on file once for one fall of the balance —
 * never above a cap, never silently — and, across machines, what the service allows
 * (docs/topups.md "Auto top-up"): it has no idempotency key and credits a card charge at once, so
 * no lock on one machine makes two machines exactly once. What keydeck does instead is below.
 *
 * Its record is the top-up record (src/billing/journal.ts: one SQLite record shared by every
 * keydeck process, whose declared moves `TRANSITIONS` every update is checked against); the
 * machine `autotopup` is driven by {@link drive} under the account's lock, each step one effect.
 *
 * ## Steps, their states and crash points
 *
 * | step | what                                                                                   | crash here leaves                                         |
 * |------|----------------------------------------------------------------------------------------|-----------------------------------------------------------|
 * | 1    | read the policy, the balance and this machine's record; paused, or not below the threshold: done | nothing changed                                 |
 * | 2    | a fall seen: read the billing status (what it lists now), then the settle wait: random, bounded, drawn afresh on each machine ({@link AutoTopUpPorts.settle}) | nothing changed |
 * | 3    | take the account's lock on this machine (`<data dir>/autotopup-<account>.lock`)         | nothing changed; the OS drops the lock with the process   |
 * | 4    | the drive begins: inside the lock, read afresh the policy, the balance, the billing status, the top-up record; settle card charges the status names | nothing changed but records the status names credited |
 * | 5    | decide (src/billing/autoTopUp.ts): paused, not needed, served (a top-up appeared since step 2), pending, capped (every card charge the service lists counts, whoever made it), or charge | nothing changed |
 * | 6    | record the charge, `verifying`, before it is sent (`record.written:topups`, `autotopup.begin:recorded`) | a record in flight: every later run here sees a pending top-up and charges nothing until the status names it or the user closes it |
 * | 7    | step `charge`: send `POST /api/billing/topup` once, never retried (`request:`/`answered:topUp`, `autotopup.charge`) | the same: the charge's outcome is unknown, never assumed |
 * | 8    | its commit: the answer on record: credited, refused (a failure), still verifying (sent, its answer unclear or lost), or closed (never sent) (`autotopup.charge:recorded`) | — |
 * | 9    | sent: observe the billing status again; another card charge for the same fall asked for before this one (another machine's) makes step `pause` pause this machine's policy, naming it (`file.renamed:config.json`, `autotopup.pause`) | the charge on record; the other machine's too: the next run here charges nothing until the balance falls again |
 *
 * The lock keeps two processes of this machine from deciding at once. Two machines are kept apart
 * by what the service shows: the settle wait makes two machines that saw one fall at once read
 * again at different times, so the later one mostly sees the earlier one's charge (step 5,
 * `served`, or the balance back above the threshold); when both still charge, step 9 finds it on
 * the later one, which pauses itself, so one fall is charged twice at most once per pair of
 * machines. A cap is checked at step 5 against the service's own list of card charges, so one
 * machine never passes it and two in a race pass it by at most the one charge in flight.
 *
 * A charge is never driven again (`finish`): money is never sent twice. One left `verifying` by a
 * crash is what every later run observes as in flight (step 4) until the billing status names it.
 * What a run did is data ({@link AutoTopUpOutcome}); the faces word it through the wording table
 * (./wordingAutoTopUp.ts).
 */
import { createHash, randomInt } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CreditBalance } from '../api/schemas.js';
import { decideAutoTopUp, twoMachinesReason, utcDay, utcMonth, type AutoTopUpDecision } from '../billing/autoTopUp.js';
import { appearedSince, chargedSince, earlierCharge, inFlight, listedFailureStreak, listedInWords, recordFailureStreak, recordReferences } from '../billing/autoTopUpCount.js';
import { directChargeEvidence } from '../billing/evidence.js';
import { formatUsd } from '../api/money.js';
import { inScope, type JournalEntry, type JournalPatch, type JournalScope, type TopUpJournal } from '../billing/journal.js';
import { listedTopUps, type ListedTopUps } from '../billing/serviceTopUps.js';
import { checkCardPayments, codeOf, messageOf, outcomeUnknown, type TopUpClient } from '../billing/topups.js';
import { DEFAULT_SETTLE_SECONDS, PAUSE_AFTER_FAILURES, type AutoTopUpPolicy, type SettleBounds } from '../config/autoTopUp.js';
import { withLockFile } from '../config/lock.js';
import { DriveMemo, drive, OperationError, step, type KitContext, type Machine, type Next } from './kit.js';

export { autoCharges, recordFailureStreak as failureStreak } from '../billing/autoTopUpCount.js';
export { summarize, type AutoTopUpSummary } from './autoTopUpSummary.js';

/** The client calls the operation makes (a KeydeckClient, or a stand-in in tests). */
export interface AutoTopUpClient extends TopUpClient {
  readonly billing: TopUpClient['billing'] & { topUp(input: { amount: number; method: string }): Promise<{ data: unknown }> };
  /** The service's clock, ms since the epoch (`KeydeckClient.serviceNow`). */
  serviceNow(): number;
}

/** Why this machine paused its policy (the policy's `paused`). */
export type AutoTopUpPause = NonNullable<AutoTopUpPolicy['paused']>;

/** What the operation reads and writes. */
export interface AutoTopUpPorts extends Pick<KitContext, 'failpoints' | 'emit'> {
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

/** The charge a run decided, USD: its amount, the balance it was decided at, the policy's threshold. */
export interface AutoTopUpCharge {
  readonly amount: number;
  readonly remaining: number;
  readonly belowUsd: number;
}

/** What the check after a charge found (step 9): another machine's charge, or a check that could not be made. */
interface AfterCheck {
  /** Another machine's charge for the same fall (this machine pauses itself). */
  readonly secondCharge?: SecondCharge;
  /** Why the billing status could not be read again (the check was not made). */
  readonly checkFailed?: string;
  /** Why the pause could not be written, when it could not. */
  readonly pauseFailed?: string;
}

/**
 * What one run did: data, worded by the faces through the wording table
 * (./wordingAutoTopUp.ts `autoTopUpSentence`). `at`: the service's clock when decided, ms.
 * `reason` of an `unknown` charge: why its outcome is unknown (absent: its answer does not say it
 * was credited).
 */
export type AutoTopUpOutcome =
  | { readonly kind: 'no_policy' }
  | { readonly kind: 'skipped'; readonly decision: Exclude<AutoTopUpDecision, { kind: 'charge' }>; readonly at: number }
  | ({ readonly kind: 'credited'; readonly entry: JournalEntry; readonly charge: AutoTopUpCharge } & AfterCheck)
  | ({ readonly kind: 'unknown'; readonly entry: JournalEntry; readonly charge: AutoTopUpCharge; readonly reason?: string } & AfterCheck)
  | { readonly kind: 'failed'; readonly entry: JournalEntry; readonly charge: AutoTopUpCharge; readonly paused: boolean; readonly reason: string }
  | { readonly kind: 'not_sent'; readonly entry: JournalEntry; readonly charge: AutoTopUpCharge; readonly reason: string };

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

/** The settle wait, ms: random between the bounds, drawn afresh (so two machines draw apart). */
function settleWait(bounds: SettleBounds | undefined): number {
  const { minMs, maxMs } = bounds ?? { minMs: DEFAULT_SETTLE_SECONDS.min * 1000, maxMs: DEFAULT_SETTLE_SECONDS.max * 1000 };
  return maxMs > minMs ? minMs + randomInt(maxMs - minMs + 1) : minMs;
}

/**
 * One run: steps 1–3 (a quick look, the settle wait, the account's lock), then the machine
 * `autotopup` driven under the lock (steps 4–9: the module's table).
 * @throws OperationError `autotopup_settle` (a refused settle bound) or `crashed` (a failpoint's
 *   halt: crash walks only); KeydeckApiError when the balance or the status cannot be read
 *   (nothing was charged); JournalError when the record cannot be written before the charge
 *   (nothing was charged); Error `could not lock …` when another keydeck held the account's lock
 *   too long.
 */
export async function runAutoTopUp(ports: AutoTopUpPorts): Promise<AutoTopUpOutcome> {
  if (ports.settle !== undefined && 'problem' in ports.settle) throw new OperationError({ code: 'autotopup_settle', problem: ports.settle.problem });
  const seen = await ports.readPolicy();
  if (seen === undefined) return { kind: 'no_policy' };
  const cardNames = new Set(ports.cardMethodNames);
  const first = await ports.client.billing.credits();
  const records = async () => (await ports.journal.list()).filter((e) => inScope(e, ports.scope));
  // Step 1: a paused policy, or a balance not below the threshold, is done without waiting.
  const skip = (decision: Exclude<AutoTopUpDecision, { kind: 'charge' }>): AutoTopUpOutcome => ({ kind: 'skipped', decision, at: ports.client.serviceNow() });
  const quick = (failureStreak: number) =>
    decideAutoTopUp({
      now: new Date(ports.client.serviceNow()),
      policy: seen,
      remaining: first.remaining,
      pending: [],
      chargedToday: 0,
      chargedThisMonth: 0,
      failureStreak,
      pausedBecause: seen.paused?.reason,
    });
  const before = quick(recordFailureStreak(await records(), seen.since));
  if (before.kind === 'paused' || before.kind === 'not_needed') return skip(before);
  // Step 2: the fall is seen; what the service lists now (paused by the failures it lists?), then the settle wait.
  const fall: FallSeen = { totalTopUp: first.totalTopUp, listed: listedTopUps(await ports.client.billing.status()) };
  const known = quick(listedFailureStreak(fall.listed, cardNames, seen.since));
  if (known.kind === 'paused') return skip(known);
  await sleep(settleWait(ports.settle as SettleBounds | undefined));
  const lock = autoTopUpLockPath(ports.dataDir, ports.scope.host, first.userId ?? `profile:${ports.scope.profile ?? ''}`);
  await mkdir(ports.dataDir, { recursive: true, mode: 0o700 });
  // Step 3: the account's lock; steps 4–9: the machine, driven inside it.
  const ctx: AutoTopUpContext = { ports, failpoints: ports.failpoints, emit: ports.emit };
  return withLockFile(lock, () => drive(autoTopUpMachine, ctx, { plan: { fall } }, 'run', undefined));
}

/** The machine's context: the kit's, and the ports. */
interface AutoTopUpContext extends KitContext {
  readonly ports: AutoTopUpPorts;
}

/** What one drive of the machine knows besides its record (never recorded). */
class AutoTopUpMemo extends DriveMemo<undefined> {
  fall: FallSeen | undefined;
  policy: AutoTopUpPolicy | undefined;
  charge: AutoTopUpCharge | undefined;
  streak = 0;
  /** What the charge step's commit made of the answer. */
  outcome: AutoTopUpOutcome | undefined;
  /** What step 9 observed. */
  after: AfterCheck | undefined;
}

/** What the charge step's effect got: the answer, or the error. */
type Sent = { readonly data: unknown } | { readonly error: unknown };

/** The machine (the module's table, steps 4–9). Its record is the top-up record; its operation a card charge's entry. */
const autoTopUpMachine: Machine<JournalEntry, AutoTopUpContext, { readonly fall: FallSeen }, undefined, AutoTopUpMemo, AutoTopUpOutcome> = {
  name: 'autotopup',
  kind: 'autotopup',
  memo: (mode, input) => new AutoTopUpMemo(mode, input),
  label: () => 'auto top-up',

  // Steps 4–6: observe afresh under the lock, decide, and record the charge before it is sent.
  async begin(ctx, plan, memo) {
    const { ports } = ctx;
    memo.fall = plan.fall;
    const policy = await ports.readPolicy();
    if (policy === undefined) return { stop: { kind: 'no_policy' } };
    const cardNames = new Set(ports.cardMethodNames);
    const records = async () => (await ports.journal.list()).filter((e) => inScope(e, ports.scope));
    const credits = await ports.client.billing.credits();
    const listed = listedTopUps(await ports.client.billing.status());
    let mine = await records();
    // Card charges the status names paid are settled first: they are no longer in flight.
    if (
      (
        await checkCardPayments(
          ports,
          mine.filter((e) => e.state !== 'credited'),
        )
      ).length > 0
    )
      mine = await records();
    const serviceNow = ports.client.serviceNow();
    const streak = Math.max(recordFailureStreak(mine, policy.since), listedFailureStreak(listed, cardNames, policy.since));
    const now = new Date(serviceNow);
    const appeared = appearedSince(plan.fall.listed, listed);
    const rise = Math.round((credits.totalTopUp - plan.fall.totalTopUp) * 100) / 100;
    const decision = decideAutoTopUp({
      now,
      policy,
      remaining: credits.remaining,
      pending: inFlight(mine, listed, cardNames, Date.now(), serviceNow),
      chargedToday: chargedSince(mine, listed, cardNames, utcDay(now).start.getTime()),
      chargedThisMonth: chargedSince(mine, listed, cardNames, utcMonth(now).start.getTime()),
      failureStreak: streak,
      pausedBecause: policy.paused?.reason,
      served: appeared.length > 0 ? `the service lists ${appeared.map(listedInWords).join(' and ')}` : rise > 0 ? `the total of top-ups rose by ${formatUsd(rise)}` : undefined,
    });
    if (decision.kind !== 'charge') return { stop: { kind: 'skipped', decision, at: serviceNow } };
    memo.policy = policy;
    memo.streak = streak;
    memo.charge = { amount: decision.amount, remaining: credits.remaining, belowUsd: policy.belowUsd };
    return recordCharge(ports, memo.charge, credits, serviceNow);
  },

  async next(ctx, entry, memo): Promise<Next<JournalEntry, AutoTopUpOutcome>> {
    const { ports } = ctx;
    const policy = memo.policy!;
    const charge = memo.charge!;
    // Steps 7–8: the one request, never retried; its answer on record.
    if (!memo.done.has('charge')) {
      return {
        step: step<JournalEntry, Sent>(
          'charge',
          async () => {
            try {
              return { data: (await ports.client.billing.topUp({ amount: charge.amount, method: policy.method ?? 'card_direct' })).data };
            } catch (error) {
              return { error };
            }
          },
          async (sent) => {
            const answered = answerOf(sent, charge, memo.streak);
            const recorded = (await ports.journal.update(entry.id, answered.patch)) ?? entry;
            memo.outcome = answered.outcome(recorded);
            return recorded;
          },
        ),
      };
    }
    const outcome = memo.outcome!;
    if (outcome.kind !== 'credited' && outcome.kind !== 'unknown') return { stop: outcome };
    // Step 9: the billing status observed again; another machine's charge for the same fall pauses this one.
    memo.after ??= await secondChargeAfter(ports, memo.fall!, outcome);
    const second = memo.after.secondCharge;
    if (second === undefined || memo.after.checkFailed !== undefined) return { stop: { ...outcome, ...memo.after } };
    if (!memo.done.has('pause')) {
      return {
        step: step<JournalEntry, string | undefined>(
          'pause',
          async () => {
            try {
              await ports.pausePolicy({
                at: new Date(ports.client.serviceNow()).toISOString(),
                reason: twoMachinesReason(second.other),
                ...(second.reference !== undefined && { otherCharge: second.reference }),
              });
              return undefined;
            } catch (error) {
              // The charge is made and said: a pause that cannot be written is said beside it.
              return messageOf(error);
            }
          },
          async (failed) => {
            if (failed !== undefined) memo.after = { ...memo.after, pauseFailed: failed };
            return entry;
          },
        ),
      };
    }
    return { stop: { ...outcome, ...memo.after } };
  },
};

/** Step 6: the charge on record, `verifying`, with its baseline and the decision's facts. */
async function recordCharge(ports: AutoTopUpPorts, charge: AutoTopUpCharge, credits: CreditBalance, serviceNow: number): Promise<JournalEntry> {
  const { journal, scope } = ports;
  return journal.add({
    amount: charge.amount,
    method: 'card_direct',
    state: 'verifying',
    host: scope.host,
    ...(scope.profile !== undefined && { profile: scope.profile }),
    baselineTotalTopUp: credits.totalTopUp,
    autoTopUp: { decidedAt: new Date(serviceNow).toISOString(), remaining: credits.remaining, belowUsd: charge.belowUsd },
  });
}

/**
 * Step 8: what the answer (or the failure) puts on record, and the run's outcome with the entry as
 * recorded: outcome unknown (still `verifying`), never sent (`closed`), refused (`refused`),
 * credited when the answer says so, else still `verifying` (`unconfirmed`).
 */
function answerOf(sent: Sent, charge: AutoTopUpCharge, streak: number): { patch: JournalPatch; outcome: (entry: JournalEntry) => AutoTopUpOutcome } {
  if ('error' in sent) {
    const { error } = sent;
    const reason = messageOf(error);
    if (outcomeUnknown(error)) return { patch: { reason, reasonCode: codeOf(error) }, outcome: (entry) => ({ kind: 'unknown', entry, charge, reason }) };
    // Never reached the service (refused connection, bad address, invalid input): not a charge.
    if ((error as { status?: unknown }).status === undefined)
      return { patch: { state: 'closed', reason: `never sent: ${reason}`, reasonCode: 'not_sent' }, outcome: (entry) => ({ kind: 'not_sent', entry, charge, reason }) };
    const paused = streak + 1 >= PAUSE_AFTER_FAILURES;
    return { patch: { state: 'refused', reason, reasonCode: codeOf(error) }, outcome: (entry) => ({ kind: 'failed', entry, charge, paused, reason }) };
  }
  const said = directChargeEvidence(sent.data);
  const paymentId = said.paymentId !== undefined ? { paymentId: said.paymentId } : {};
  if (said.credited) {
    return {
      patch: {
        ...paymentId,
        state: 'credited',
        credited: said.amount ?? charge.amount,
        ...(said.balance !== undefined && { balance: said.balance }),
        evidence: 'the answer to this card charge says it was credited',
      },
      outcome: (entry) => ({ kind: 'credited', entry, charge }),
    };
  }
  return { patch: { ...paymentId, reason: 'the answer does not say that it was credited', reasonCode: 'unconfirmed' }, outcome: (entry) => ({ kind: 'unknown', entry, charge }) };
}

/**
 * Step 9: the billing status read again after a charge that was sent. Another card charge for the
 * same fall asked for before this one (listed since the fall was seen, on no record of this
 * machine) makes this machine the later. Where the service lists no top-ups, a rise of the total
 * beyond this charge's credit is that other charge, unordered: each machine that sees it pauses.
 * A check that cannot be made is said.
 */
async function secondChargeAfter(ports: AutoTopUpPorts, fall: FallSeen, outcome: Extract<AutoTopUpOutcome, { kind: 'credited' | 'unknown' }>): Promise<AfterCheck> {
  const cardNames = new Set(ports.cardMethodNames);
  try {
    const after = listedTopUps(await ports.client.billing.status());
    if (after.lists && outcome.entry.paymentId !== undefined) {
      const own = recordReferences((await ports.journal.list()).filter((e) => inScope(e, ports.scope)));
      const other = earlierCharge(fall.listed, after, outcome.entry.paymentId, own, cardNames);
      if (other) return { secondCharge: { other: listedInWords(other), ...(other.reference !== undefined && { reference: other.reference }) } };
    } else if (!after.lists && outcome.kind === 'credited') {
      const total = (await ports.client.billing.credits()).totalTopUp;
      const rise = Math.round((total - fall.totalTopUp - (outcome.entry.credited ?? outcome.entry.amount)) * 100) / 100;
      if (rise > 0) return { secondCharge: { other: `the total of top-ups rose by ${formatUsd(rise)} more than this charge, and the service does not list who made it` } };
    }
    return {};
  } catch (error) {
    return { checkFailed: messageOf(error) };
  }
}
