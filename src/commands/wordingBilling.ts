/**
 * The wording table of the billing commands (billing, autotopup, monitor): every way one of them fails, a row naming its
 * stable code and wording its facts (docs/architecture.md, "The error type"). A command fails with
 * `fail(ExitCode…, billingWords.row, facts)` (./failure.ts), never with a sentence of its own.
 */
import { errorText, row } from './failure.js';
import { centsText, formatUsdCode } from '../api/money.js';
import type { JournalEntry } from '../billing/journal.js';
import { renewalWords, type Renewal } from '../billing/renewals.js';
import { visible } from '../terminal/sanitize.js';
import { messageOf } from '../billing/topUpPorts.js';
import { CHART_WINDOWS } from '../billing/chart.js';

/** A top-up in a list of choices: `$25.00 to 0x5aAe…, requested 2026-11-28 03:12 UTC`. */
export function choiceText(e: JournalEntry): string {
  return `${formatUsdCode(e.amountSent ?? e.amount)} to ${e.address ?? '?'}, requested ${e.createdAt.slice(0, 16).replace('T', ' ')} UTC`;
}

/** Each failure of the billing commands (billing, autotopup, monitor): its code and its sentence from the facts. */
export const billingWords = {
  invalidRequestUsdAmountSuch: row(
    'invalid_request',
    (f: { flag: string; text: string }) => `invalid_request: ${f.flag} is a USD amount such as 20 or 12.50 (at most two decimals, no $), not "${f.text.trim().slice(0, 40)}"`,
  ),
  invalidRequestMethodNotCard: row(
    'invalid_request',
    (f: { method: string; names: string[] }) =>
      `invalid_request: --method ${f.method.slice(0, 64)} is not a card-on-file method here: auto top-up charges the card on file (${f.names.join(', ')}); nothing was stored`,
  ),
  invalidPolicyNothingStored: row('invalid_request', (f: { problem: string }) => `invalid_request: ${f.problem}; nothing was stored`),
  noPolicy: row('no_policy', (f: { name: string }) => `no auto top-up policy is set for profile "${f.name}": keydeck autotopup set --below USD --amount USD`),
  invalidPolicyNothingCharged: row('invalid_request', (f: { problem: string }) => `invalid_request: ${f.problem}; nothing was charged`),
  invalidChainRpc: row('invalid_chain_rpc', (f: { error: unknown }) => `invalid_chain_rpc: ${errorText(f.error)}`),
  chainMismatch: row('chain_mismatch', (f: { sentence: string; command: string }) => `chain_mismatch: ${f.sentence}. Nothing was sent; to ask the service anyway run \`${f.command} --yes\``),
  cancelledSent: row('cancelled', () => 'cancelled: nothing was sent'),
  alreadyCredited: row('already_credited', (f: { lines: string[] }) => `already_credited: ${f.lines[0]}`),
  outcomeUnknown: row('outcome_unknown', (f: { lines: string[] }) => `outcome_unknown: ${f.lines.join(' ')}`),
  severalTopupsUsdcTopUps: row(
    'several_topups',
    (f: { list: readonly JournalEntry[]; amountGiven: boolean }) =>
      `${f.list.length} USDC top-ups await payment (${visible(f.list.map(choiceText).join('; '))}): say which ${
        f.amountGiven ? 'with --to ADDRESS, the deposit address the transfer paid' : 'with --amount (and --to ADDRESS, the deposit address the transfer paid, when two have the same amount)'
      }; nothing was sent.`,
  ),
  noTopupAwaitingGiveAmountUsd: row(
    'no_topup_awaiting',
    () => "give --amount USD, the amount the transfer sent: no USDC top-up awaits payment on keydeck's record for this service; nothing was sent.",
  ),
  usageTimeoutWholeNumber: row('usage', () => '--timeout: a whole number of seconds, at least 1; nothing was sent.'),
  chainOff: row(
    'chain_off',
    (f: { why: string; amount: number | undefined }) =>
      `the chain is not read (${f.why}), so the transfer cannot be found: verify it by its hash with keydeck billing verify --tx HASH --amount ${f.amount !== undefined ? centsText(f.amount) : 'USD'}; nothing was sent.`,
  ),
  noTopupAwaitingNoUsdcTop: row(
    'no_topup_awaiting',
    (f: { which: string }) =>
      `no USDC top-up${f.which} awaits payment on keydeck's record for this profile: start one with keydeck billing topup --method usdc --amount USD --wait, or verify a transfer by its hash with --tx.`,
  ),
  severalTopupsSeveralUsdcTop: row(
    'several_topups',
    (f: { list: string; amount: number | undefined }) => `several USDC top-ups await payment (${visible(f.list)}): say which with ${f.amount === undefined ? '--amount or ' : ''}--to ADDRESS.`,
  ),
  severalTransfers: row(
    'several_transfers',
    (f: { freshCount: number; address: `0x${string}`; lines: string }) =>
      `several_transfers: ${f.freshCount} USDC transfers reached ${f.address}; nothing was sent. Verify the one that pays this top-up: ${f.lines}`,
  ),
  notSeen: row(
    'not_seen',
    (f: { address: `0x${string}`; timeoutSeconds: number }) =>
      `not_seen: no USDC transfer to ${f.address} seen in ${f.timeoutSeconds} s; nothing was sent. Run keydeck billing verify --find again later, or verify by hash with --tx.`,
  ),
  usageMethodSent: row('usage', (f: { problem: string }) => `--method: ${f.problem}; nothing was sent.`),
  unknownMethod: row(
    'unknown_method',
    (f: { method: string; guess: string; list: string }) => `--method ${f.method}: keydeck knows no such top-up method.${f.guess} The methods are ${f.list}. Nothing was asked or sent`,
  ),
  usageWaitWatchesUsdc: row('usage', (f: { method: unknown }) => `--wait watches USDC transfers on chain, and ${f.method} is not USDC; nothing was sent.`),
  notSent: row('not_sent', (f: { error: unknown }) => `${messageOf(f.error)}; nothing was charged: a card charge is put on keydeck's record before it is sent`),
  checkoutRefused: row('checkout_refused', (f: { problems: readonly string[]; sessionId: string }) => `${f.problems.join(' ')} (session ${visible(f.sessionId)} is on record as awaiting payment.)`),
  usageFindLooksFor: row('usage', () => '--find looks for the transfer on chain: give it without --tx; nothing was sent.'),
  usageGiveTxHash: row('usage', () => 'give --tx HASH (and --amount USD), or --find to look for the transfer on chain; nothing was sent.'),
  subscriptionUnknown: row(
    'subscription_unknown',
    (f: { id: string }) => `subscription_unknown: the billing status lists no subscription or pool pledge with id ${visible(f.id)} (keydeck billing status shows them); nothing was sent`,
  ),
  notConfirmed: row(
    'not_confirmed',
    (f: { renewal: Renewal | undefined; id: string }) =>
      `not_confirmed: the service accepted the cancel, but its billing status still says the ${renewalWords(f.renewal, f.id)} renews at its period end; check \`keydeck billing status\` (and the service's dashboard) before relying on it`,
  ),
  usageWindowMustBe: row('usage', () => `--window must be one of ${CHART_WINDOWS.join(', ')}`),
  recordReadableNothingToAccept: row('record_readable', (f: { path: string }) => `the top-up record ${f.path} can be read: nothing to accept, nothing was changed.`),
  recordReadableNow: row('record_readable', (f: { path: string }) => `the top-up record ${f.path} can be read now: nothing was changed.`),
  invalidWindow: row('invalid_request', (f: { reason: string }) => `invalid_request: ${f.reason}`),
  usageMetricsMustBe: row('usage', () => '--metrics must be PORT, :PORT or HOST:PORT, such as 127.0.0.1:9464'),
  needsTerminalMonitorDrawsLive: row('needs_terminal', () => 'keydeck monitor draws live lines and needs a terminal; in a script use `keydeck billing` commands with --json'),
  needsTerminalMonitorRedrawsIts: row('needs_terminal', () => 'keydeck monitor redraws its lines and needs a capable terminal (TERM=dumb cannot move the cursor); use `keydeck billing watch` instead'),
  metricsUnavailable: row('metrics_unavailable', (f: { metrics: string | undefined; error: unknown }) => `cannot serve metrics on ${f.metrics}: ${errorText(f.error)}`),
  usageAllProfilesOnly: row('usage', (f: { flag: string }) => `--all-profiles only reads every account; ${f.flag} is for one account (keydeck monitor) or for keydeck exporter --all-profiles`),
  needsTerminalMonitorAllProfiles: row(
    'needs_terminal',
    () => 'keydeck monitor --all-profiles redraws its table and needs a capable terminal; in a script use `keydeck billing credits --json` per profile',
  ),
};
