/**
 * The wording table of the operations (./wording.ts), its rows for auto top-up: what a run did
 * (./autoTopUp.ts, data only) in the words every face says (`keydeck autotopup run`'s line, the
 * exporter's log, the TUI's and the monitor's line and notification), and the line a face on a
 * terminal shows between runs. Amounts come as numbers, USD; the sentences name the command that
 * does the next step, as the CLI and the TUI both say it.
 */
import { twoMachinesReason, type AutoTopUpDecision } from '../billing/autoTopUp.js';
import type { InFlightTopUp } from '../billing/autoTopUpCount.js';
import { formatUsd } from '../api/money.js';
import { PAUSE_AFTER_FAILURES, type AutoTopUpPolicy } from '../config/autoTopUp.js';
import type { AutoTopUpSummary } from './autoTopUpSummary.js';
import type { AutoTopUpOutcome } from './autoTopUp.js';

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The charge of a run, in words: `the auto top-up charge of $30.00 (balance $4.00, below $20.00)`. */
function chargeWords(c: { readonly amount: number; readonly remaining: number; readonly belowUsd: number }): string {
  return `the auto top-up charge of ${formatUsd(c.amount)} (balance ${formatUsd(c.remaining)}, below ${formatUsd(c.belowUsd)})`;
}

/** "in 5 h 12 min", "in 3 d" from `now` to `then`. */
function inWords(now: Date, then: Date): string {
  const minutes = Math.max(1, Math.round((then.getTime() - now.getTime()) / 60_000));
  if (minutes < 60) return `in ${minutes} min`;
  if (minutes < 48 * 60) return `in ${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `in ${Math.round(minutes / 1440)} d`;
}

/** A top-up in flight in the command line's words: an auto top-up charge of unknown outcome says how to close it. */
function inFlightWords(p: InFlightTopUp): string {
  return `${p.words}${p.resumeCloses ? ' (once the card statement shows it was not charged, keydeck autotopup resume closes it)' : ''}`;
}

/** One sentence for a decision that charges nothing (what the run says, the log). */
function decisionSentence(decision: Exclude<AutoTopUpDecision, { kind: 'charge' }>, now: Date): string {
  switch (decision.kind) {
    case 'paused':
      if (decision.because !== undefined)
        return `Auto top-up is paused on this machine: ${decision.because} Nothing was charged; once one machine alone runs auto top-up for this account, run there: keydeck autotopup resume`;
      return `Auto top-up is paused: the last ${decision.failures} charges failed. Nothing was charged; check the card, then run: keydeck autotopup resume`;
    case 'not_needed':
      return `Nothing to do: the balance ${formatUsd(decision.remaining)} is not below ${formatUsd(decision.belowUsd)}.`;
    case 'served':
      return `Nothing charged: since the balance was seen below the threshold, ${decision.what}: it serves this fall (another machine's or a person's top-up). The next run decides again.`;
    case 'pending':
      return `Nothing charged: a top-up is still in flight (${decision.pending.map(inFlightWords).join('; ')}); auto top-up charges again only once it is credited or refused.`;
    case 'capped':
      return (
        `Nothing charged: ${formatUsd(decision.amount)} would pass the ${decision.cap === 'day' ? 'day' : 'month'}'s cap ` +
        `(${formatUsd(decision.used)} of ${formatUsd(decision.limit)} charged this ${decision.cap === 'day' ? 'UTC day' : 'UTC month'}); ` +
        `it resets at ${decision.resetsAt.toISOString().replace(/\.000Z$/, 'Z')} (${inWords(now, decision.resetsAt)}).`
      );
  }
}

/** What one run of auto top-up did, as the sentence every face says. */
export function autoTopUpSentence(o: AutoTopUpOutcome): string {
  switch (o.kind) {
    case 'no_policy':
      return 'No auto top-up policy is set for this profile: keydeck autotopup set --below USD --amount USD';
    case 'skipped':
      return decisionSentence(o.decision, new Date(o.at));
    case 'not_sent':
      return `${capital(chargeWords(o.charge))} was not sent: ${o.reason}. Nothing was charged.`;
    case 'failed':
      return `${capital(chargeWords(o.charge))} failed: ${o.reason}.${o.paused ? ` That is ${PAUSE_AFTER_FAILURES} failures in a row: auto top-up is paused until keydeck autotopup resume.` : ' The next run tries again.'}`;
    case 'credited':
    case 'unknown': {
      const what = chargeWords(o.charge);
      const said =
        o.kind === 'credited'
          ? `Charged ${formatUsd(o.entry.credited ?? o.charge.amount)} to the card on file: ${what} was credited${o.entry.balance !== undefined ? `; the balance is ${formatUsd(o.entry.balance)}` : ''}.`
          : o.reason !== undefined
            ? `${capital(what)} was sent, but its outcome is unknown (${o.reason}). It counts as pending: no other charge is made until the billing status names it or you close it (keydeck billing history); check the card statement.`
            : `${capital(what)} was sent, but its answer does not say it was credited: it counts as pending until the billing status names it.`;
      if (o.checkFailed !== undefined) return `${said} (keydeck could not read the billing status again to check that no other machine charged for the same fall: ${o.checkFailed}.)`;
      if (o.secondCharge === undefined) return said;
      const reason = twoMachinesReason(o.secondCharge.other);
      if (o.pauseFailed !== undefined) return `${said} ${reason} keydeck could not pause auto top-up on this machine (${o.pauseFailed}): turn it off here (keydeck autotopup off).`;
      return `${said} ${reason} Auto top-up is paused on this machine until keydeck autotopup resume.`;
    }
  }
}

/** "HH:MM" (UTC) of epoch ms `t`. */
function hhmm(t: number): string {
  return new Date(t).toISOString().slice(11, 16);
}

/** What a face on a terminal shows of auto top-up: one line and its tone. */
export interface AutoTopUpLine {
  readonly line: string;
  readonly tone: 'muted' | 'success' | 'warning' | 'danger';
}

/**
 * The one line a face shows (the TUI's Billing pane, `keydeck monitor`): the policy in short, then
 * its state or what it last did (`last`, at epoch ms): "auto top-up: below $20.00 → $30.00 · 03:56
 * UTC charged $30.00", "auto top-up PAUSED: the last 3 charges failed · keydeck autotopup resume".
 */
export function autoTopUpLine(policy: AutoTopUpPolicy, summary: AutoTopUpSummary | undefined, last: { outcome: AutoTopUpOutcome; at: number } | undefined): AutoTopUpLine {
  const usd = formatUsd;
  const head = `auto top-up: below ${usd(policy.belowUsd)} → ${policy.amountUsd !== undefined ? usd(policy.amountUsd) : `up to ${usd(policy.toUsd ?? 0)}`}`;
  if (summary?.twoMachines !== undefined) return { line: 'auto top-up PAUSED: two machines run it · keep one · keydeck autotopup status', tone: 'danger' };
  if (summary?.paused) return { line: `auto top-up PAUSED: the last ${summary.failures} charges failed · keydeck autotopup resume`, tone: 'danger' };
  if (last) {
    const o = last.outcome;
    const at = `${hhmm(last.at)} UTC`;
    switch (o.kind) {
      case 'credited':
        return { line: `${head} · ${at} charged ${usd(o.entry.credited ?? o.entry.amount)}`, tone: 'success' };
      case 'failed':
        return { line: `${head} · ${at} the charge of ${usd(o.entry.amount)} failed${o.entry.reason ? `: ${o.entry.reason}` : ''}`, tone: 'danger' };
      case 'unknown':
        return { line: `${head} · ${at} a charge of ${usd(o.entry.amount)} was sent; its outcome is unknown (keydeck autotopup status)`, tone: 'warning' };
      case 'not_sent':
        return { line: `${head} · ${at} the charge was not sent${o.entry.reason ? `: ${o.entry.reason}` : ''}`, tone: 'warning' };
      case 'skipped':
        if (o.decision.kind === 'pending') return { line: `${head} · ${at} nothing charged: a top-up is in flight`, tone: 'warning' };
        if (o.decision.kind === 'served') return { line: `${head} · ${at} nothing charged: another top-up served the fall`, tone: 'warning' };
        if (o.decision.kind === 'capped') return { line: `${head} · ${at} nothing charged: the ${o.decision.cap}'s cap is reached`, tone: 'warning' };
        break;
      case 'no_policy':
        break;
    }
  }
  return { line: `${head} · ${summary ? `${usd(summary.dayCapRemaining)} of today's cap left` : 'on'}`, tone: 'muted' };
}

/** Why a run of auto top-up could not be made (nothing was charged), as the line a face shows. */
export function autoTopUpFailedLine(message: string): string {
  return `auto top-up could not run: ${message}`;
}
