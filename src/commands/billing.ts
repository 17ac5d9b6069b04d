/**
 * `keydeck billing credits | status | topup | verify | history | watch`: the shared USD credit
 * balance and its top-ups through the service's endpoints `GET /api/billing/credits`,
 * `GET /api/billing/status`, `POST /api/billing/topup`, `POST /api/billing/verify-topup`.
 * `topup` and `verify` write the same local top-up record as the TUI (src/billing/journal.ts,
 * through src/billing/topups.ts); `history` lists it (no request is sent).
 *
 * `--json` prints the service's data unwrapped from the billing envelope, one JSON document.
 * Amounts are checked before anything is sent (≥ 10 USD, ≤ 2 decimals, plain decimal text;
 * `--tx` is `0x` + 64 hex): exit 2. Errors and exit codes: see ./api-command.ts.
 *
 * `credits` is in ./billingCredits.ts, `history` in ./billingHistory.ts, `watch` in ./billingWatch.ts.
 */
import type { TopUpResult } from '../api/client.js';
import type { TopUpMethod } from '../api/schemas.js';
import { keylessSubscriptions } from '../billing/pledges.js';
import { summarizeBillingStatus } from '../api/reader.js';
import { instructionDiffersSentence } from '../billing/instruction.js';
import { statusSummaryLines, summaryText } from '../billing/statusSummary.js';
import { hostOf } from '../api/baseUrl.js';
import { topUpPhase, type JournalEntry } from '../billing/journal.js';
import { messageOf, openInstructions, topUpNotes } from '../billing/topups.js';
import { failpointsFrom, requestTopUp } from '../operations/index.js';
import { operationFailure } from './keyDelivery.js';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { chooseTopUp, journalOf, verifyAndReport, type BillingDeps, type VerifyFlags } from './verifyReport.js';
import type { WatchPlan } from './chainFind.js';
import { confirmTopUp } from './confirm.js';
import { parseAmount, parseDepositAddress, parseTxHash } from './input.js';
import { checkTopUpMethod } from './topUpMethod.js';
import { ExitCode, fail, openSession, printFormatted, printLine, warn, type ExitCodeValue, type GlobalOptions } from './output.js';
import { colorEnabled, flattenForDisplay, formatKeyValues } from './table.js';
import { ensureCanChange } from './changeGuard.js';
import { visible } from '../terminal/sanitize.js';
import { isRecordDamaged } from '../config/recordDamage.js';
import { formatUsdCode } from '../api/money.js';
import { billingWords } from './wordingBilling.js';
import { belowSentence } from '../words/index.js';

/** A record's error in the command line's words (a damaged record names the way past it), without a final period. */
const recordErrorText = (error: unknown): string => belowSentence(error)?.replace(/\.$/, '') ?? messageOf(error);

/**
 * `keydeck billing status [--json]`: the service's endpoints `GET /api/billing/status`, whose body the spec does not
 * show: `--json` prints it as it came (unwrapped when enveloped, key values dropped); human mode
 * shows the documentation pages' shape as a summary (subscriptions, pool pledges, credit
 * balance: src/billing/statusSummary.ts), and any other shape flattened into `path  value`
 * lines. Exit 0.
 */
export async function billingStatus(globals: GlobalOptions, flags: JsonFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const { client } = await openSession(globals, deps.session);
  const status = await client.billing.status();
  const summary = flags.json ? undefined : summarizeBillingStatus(status);
  if (flags.json) printData(status);
  else if (summary) {
    printLine(summaryText(statusSummaryLines(summary, { mintHint: (id) => `mint it: keydeck keys create --subscription ${id} NAME` })));
    const keyless = keylessSubscriptions(summary, await client.keys.list().catch(() => [])); // keys unreadable: the summary above stands, keyless ones unnamed
    if (keyless.length > 0) {
      printLine('');
      printLine(
        `${keyless.length === 1 ? 'One subscription has' : `${keyless.length} subscriptions have`} no key yet: ${keyless.map((k) => `${visible(k.what ?? k.kind)} (${visible(k.id)})`).join(', ')}. Mint each with: keydeck keys create --subscription ID NAME`,
      );
    }
  } else printFormatted(formatKeyValues(flattenForDisplay(status), { color: colorEnabled() }));
  return ExitCode.ok;
}

/** Flags of `billing topup` (commander's strings). */
export interface TopUpFlags extends JsonFlag {
  /** USD, plain decimal text (see parseAmount). */
  readonly amount: string;
  /**
   * A kind by the seed's name (`card_checkout`, `card_direct`, `usdc`: sent as the profile's
   * `topUpMethods` name), a name the profile declares, or the service's pages' (`stripe`,
   * `stripe_direct`), sent as given; any other is refused (./topUpMethod.ts).
   */
  readonly method: TopUpMethod | (string & {});
  /** `--yes`: no confirmation for a card-on-file charge or an amount above the ceiling. */
  readonly yes?: boolean;
  /** `--wait` (USDC): watch the deposit address on chain and verify what arrives. */
  readonly wait?: boolean;
  /** `--timeout SECONDS` with `--wait`: how long to watch (default 900). */
  readonly timeout?: string;
}

/**
 * Human lines for a top-up's result (the card checkout session session, the USDC payment instruction instruction, or the unshown card_direct
 * data); `program` starts the commands they name (`keydeck --sandbox` with `--sandbox`), and
 * `sandbox` adds how to pay without a wallet or a card there.
 */
export function topUpLines(result: TopUpResult, amount: number, program = 'keydeck', sandbox?: { readonly url: string }): string[] {
  switch (result.method) {
    case 'card_checkout':
      return [
        `Pay ${formatUsdCode(amount)} by card on the checkout page:`,
        '',
        `  ${visible(result.data.sessionUrl)}`,
        '',
        `The balance is credited once the payment completes (session ${visible(result.data.sessionId)}); check it with: ${program} billing credits`,
        ...(sandbox
          ? [
              '',
              `This is the sandbox, no card is charged: while a sandbox runs (${program} open), the page's Pay button pays it; so does s in ${program}'s top-up (enter on the Billing pane resumes it).`,
            ]
          : []),
      ];
    case 'usdc': {
      const { address, chain, amount: exact } = result.data;
      const network = chain.toLowerCase() === 'base' ? 'Base' : visible(chain);
      return [
        ...(result.amountDiffers ? [instructionDiffersSentence(amount, visible(String(exact))), ''] : []),
        `Send exactly ${visible(String(exact))} USDC to this address on ${network}:`,
        '',
        formatKeyValues([
          ['address', address],
          ['chain', chain],
          ['amount', `${exact} USDC`],
        ]).replace(/^/gm, '  '),
        '',
        `Warning: send USDC on ${network} only. Another token, or USDC on another network, is not credited and may be lost.`,
        `Then credit it with the transaction hash: ${program} billing verify --tx HASH --amount ${visible(String(exact))}`,
        ...(sandbox
          ? [
              '',
              `This is the sandbox, no wallet needed: open ${program}, where enter on the Billing pane resumes this top-up and s sends the transfer; or, while a sandbox runs, curl -s -X POST ${sandbox.url}/sandbox/chain/transfers -H 'content-type: application/json' -d '{"to":"${address}","amount":"${visible(String(exact))}"}' answers the txHash to verify.`,
            ]
          : []),
      ];
    }
    default:
      return [`Top-up of ${formatUsdCode(amount)} by ${visible(result.wireMethod)}; the service answered:`, formatKeyValues(flattenForDisplay(result.data)).replace(/^/gm, '  ')];
  }
}

/**
 * `keydeck billing topup --amount USD --method card_checkout|card_direct|usdc [--json]`
 * (`POST /api/billing/topup`; never retried), through the one top-up procedure the TUI uses
 * (src/operations/topUp.ts): the `totalTopUp` baseline read first; a card-on-file charge on the
 * top-up record (`verifying`) before it is sent, never sent when it cannot be recorded (exit 1);
 * an instruction on record, with its baseline, before it is printed. Exit 3 when the record
 * cannot be trusted (src/billing/journal.ts, "Fail closed": nothing asked, nothing sent). Exit 2 for a bad
 * amount or a method keydeck does not know (nothing asked, nothing sent: ./topUpMethod.ts); 1 when the checkout link is refused (src/api/baseUrl.ts: nothing is
 * printed of it; the top-up stays on record). A record that cannot be written is a warning:
 * the instruction is printed all the same.
 * A card-on-file charge (`card_direct`) and an amount above the profile's `confirmAboveUsd`
 * (default 500) are confirmed first on a terminal; scripts pass `--yes`; without either, exit 2
 * `confirmation_required` (./confirm.ts {@link confirmTopUp}).
 */
export async function billingTopUp(globals: GlobalOptions, flags: TopUpFlags, deps: BillingDeps = {}): Promise<ExitCodeValue> {
  await ensureCanChange(globals, 'top up', deps.session?.env);
  const amount = parseAmount(flags.amount);
  const { client, profile } = await openSession(globals, deps.session);
  // An unknown method is refused before anything is asked or sent (`--method card`).
  const kind = checkTopUpMethod(flags.method, profile.topUpMethods);
  // --wait: its flags and where the chain is read are settled before anything is sent.
  let plan: WatchPlan | undefined;
  if (flags.wait) {
    if (kind !== 'usdc') fail(ExitCode.usage, billingWords.usageWaitWatchesUsdc, { method: flags.method });
    plan = await (await import('./chainFind.js')).planWatch(globals, profile, flags.timeout, amount);
  }
  // The record is checked before anything is asked or sent: one that cannot be trusted (damaged,
  // emptied) may hold a charge in flight, and stops every charge (exit 3).
  const journal = journalOf(deps);
  try {
    await journal.check();
  } catch (error) {
    journal.close();
    // Another problem (a directory made read-only) stops a card charge before it is sent (it must
    // be on record first); an instruction is asked for, and said not to be on record, as before.
    if (isRecordDamaged(error)) throw error;
  }
  await confirmTopUp({
    amount,
    method: kind,
    ceilingUsd: profile.confirmAboveUsd,
    ...(flags.yes !== undefined && { yes: flags.yes }),
    command: `keydeck billing topup --amount ${flags.amount} --method ${flags.method}`,
  }).catch((error: unknown) => {
    journal.close();
    throw error;
  });
  const scope = { host: hostOf(profile.baseUrl), profile: profile.name };
  // The one top-up procedure (src/operations/topUp.ts): a charge on record before it is sent.
  const failpoints = failpointsFrom(deps.session?.env ?? process.env);
  const outcome = await requestTopUp({ journal, client, scope, failpoints }, { amount, kind, method: flags.method }).catch((error: unknown) => {
    journal.close();
    return operationFailure(error);
  });
  if (outcome.kind === 'not_requested' && outcome.step === 'record' && !isRecordDamaged(outcome.error)) {
    journal.close();
    fail(ExitCode.refused, billingWords.notSent, { error: outcome.error });
  }
  if (outcome.kind !== 'answered') {
    if (outcome.kind === 'failed' && outcome.recordError !== undefined)
      warn(`${recordErrorText(outcome.recordError)}. The charge stays on keydeck's record as verifying: check the billing status and the card statement.`);
    journal.close();
    throw outcome.error;
  }
  const { result, problems } = outcome;
  const entry: JournalEntry | undefined = outcome.entry;
  let earlier: JournalEntry[] = [];
  try {
    if (outcome.recordError !== undefined) {
      warn(
        entry
          ? `${recordErrorText(outcome.recordError)}. The charge is on keydeck's record as verifying, without its answer: keep what is printed below.`
          : `${belowSentence(outcome.recordError) ?? (outcome.recordError instanceof Error ? outcome.recordError.message : String(outcome.recordError))} This top-up is not on keydeck's record: keep what is printed below.`,
      );
    }
    // A USDC instruction no transfer was named for yet (a run killed before it printed one, say): named, so one is paid, not both.
    if (result.method === 'usdc' && entry) earlier = openInstructions(await journal.unfinished(scope)).filter((e) => e.id !== entry.id && topUpPhase(e) === 'pay');
  } catch (error) {
    warn(`${belowSentence(error) ?? (error instanceof Error ? error.message : String(error))} This top-up is not on keydeck's record: keep what is printed below.`);
  } finally {
    journal.close();
  }
  if (result.method === 'card_checkout' && problems.length > 0) {
    fail(ExitCode.refused, billingWords.checkoutRefused, { problems, sessionId: result.data.sessionId });
  }
  if (flags.json) {
    printData(result.data);
    // The instruction's amount differing from the one requested is said on stderr too.
    for (const note of topUpNotes(amount, result)) warn(note);
  } else {
    const program = globals.sandbox ? 'keydeck --sandbox' : 'keydeck';
    for (const line of topUpLines(result, amount, program, globals.sandbox ? { url: profile.baseUrl } : undefined)) printLine(line);
    if (result.method === 'card_direct' && entry?.state === 'credited') printLine('The service says this charge was credited.');
  }
  for (const problem of problems) warn(problem);
  if (earlier.length > 0) {
    const list = earlier.map((e) => `${formatUsdCode(e.amount)} to ${e.address}, requested ${e.createdAt.slice(0, 16).replace('T', ' ')} UTC`).join('; ');
    warn(`an earlier USDC top-up still awaits payment (${list}); this is another one, with its own deposit address: pay only the one you mean`);
  }
  if (plan && result.method === 'usdc' && entry !== undefined) {
    // Watch the deposit address on chain and verify what arrives: no hash to copy.
    const { watchAndVerify } = await import('./chainFind.js');
    return watchAndVerify({ globals, session: { client, profile }, journal, entry, plan, flags: { ...(flags.json && { json: true }) } });
  }
  return ExitCode.ok;
}

/**
 * `keydeck billing verify --tx HASH [--amount USD] [--to ADDRESS] [--json]` (the service's endpoints `POST
 * /api/billing/verify-topup`; the verified top-up result result), through the procedure the TUI uses
 * (src/billing/topups.ts): the record (the one verified with this hash before, else the one USDC
 * instruction open for this amount and address, else a new one: one instruction is one record) is
 * `verifying` with the `totalTopUp` baseline before the request is sent; a hash already credited
 * on record is not sent again. Without `--amount`, the amount is that record's, and said so;
 * several fit: asked on a terminal, else exit 2 (./verifyReport.ts `chooseTopUp`). Exit 0 when credited (also by keydeck's own earlier verify whose answer was
 * lost); 2 for a bad hash or amount (nothing sent; a transfer that can never be credited says so);
 * 1 for `amount_mismatch`, `tx_already_used`, `not_found`, `already_credited` and other refusals;
 * 4 when the answer was lost (the record stays `verifying`: run it again). Before anything is
 * sent, the chain is read and checked (./chainCheck.ts): a mismatch is asked about on a
 * terminal, and without one is exit 1 `chain_mismatch` unless `--yes`.
 */
export async function billingVerify(globals: GlobalOptions, flags: VerifyFlags, deps: BillingDeps = {}): Promise<ExitCodeValue> {
  await ensureCanChange(globals, 'verify a top-up', deps.session?.env);
  if (flags.find) {
    if (flags.tx !== undefined) fail(ExitCode.usage, billingWords.usageFindLooksFor);
    const { billingFind } = await import('./chainFind.js');
    return billingFind(globals, flags, deps);
  }
  if (flags.tx === undefined) fail(ExitCode.usage, billingWords.usageGiveTxHash);
  const txHash = parseTxHash(flags.tx);
  const amount = flags.amount !== undefined ? parseAmount(flags.amount, '--amount', 'transfer') : undefined;
  const to = flags.to !== undefined ? parseDepositAddress(flags.to) : undefined;
  const session = await openSession(globals, deps.session);
  const journal = journalOf(deps);
  let chosen;
  try {
    const ports = { journal, client: session.client, scope: { host: hostOf(session.profile.baseUrl), profile: session.profile.name } };
    chosen = await chooseTopUp(ports, { txHash, ...(amount !== undefined && { amount, amountText: flags.amount!.trim() }), ...(to !== undefined && { to }) }, flags.json === true);
  } catch (error) {
    journal.close();
    throw error;
  }
  return verifyAndReport(globals, session, journal, { txHash, ...chosen }, flags);
}

/** Flags of `billing history`. Another view (a chart, say) is one more flag here and one more branch in {@link billingHistory}. */
