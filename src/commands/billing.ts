/**
 * `keydeck billing credits | status | topup | verify | history | watch`: the shared USD credit
 * balance (§2.3) and its top-ups (§2.4–§2.6) through §4 `GET /api/billing/credits`,
 * `GET /api/billing/status`, `POST /api/billing/topup`, `POST /api/billing/verify-topup`.
 * `topup` and `verify` write the same local top-up record as the TUI (src/billing/journal.ts,
 * through src/billing/topups.ts); `history` lists it (no request is sent).
 *
 * `--json` prints the service's data unwrapped from the billing envelope, one JSON document.
 * Amounts are checked before anything is sent (≥ 10 USD, ≤ 2 decimals, plain decimal text;
 * `--tx` is `0x` + 64 hex): exit 2. Errors and exit codes: see ./api-command.ts.
 *
 * `watch` polls the balance and prints one line per change (`<ISO time> remaining … totalTopUp …`);
 * it runs until ctrl-c (SIGINT: exit 130) or SIGTERM (exit 0), or exits 3 as soon as `remaining` is below
 * `--alert-below` (or the profile's `alertBelowUsd`). A failing first read ends it (exit 4 for
 * network trouble, 1 for a refusal): a watch that never worked is a setup error. Later, network
 * trouble (`network_error`, `timeout`, `server_error`), `rate_limited` and `invalid_response`
 * print one line on stderr (once per distinct problem) and the watch keeps polling; any other
 * refusal (the key was deleted: `unauthorized`) ends it with exit 1, since polling cannot recover.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { topUpKindOf, type TopUpResult } from '../api/client.js';
import { isAbortError, KeydeckApiError, type ApiErrorCode } from '../api/errors.js';
import { clampTimerMs } from '../api/retry.js';
import { TopUpMethodNameSchema, type CreditBalance, type TopUpMethod } from '../api/schemas.js';
import { summarizeBillingStatus } from '../api/reader.js';
import { instructionDiffersSentence } from '../billing/instruction.js';
import { statusSummaryLines, summaryText } from '../billing/statusSummary.js';
import { hostOf } from '../api/baseUrl.js';
import { LowBalanceAlarm } from '../billing/alert.js';
import { balanceChart, CHART_WINDOW_MS, CHART_WINDOWS, parseWindow } from '../billing/chart.js';
import { topUpsIn } from '../billing/history.js';
import { HistoryRecorder } from '../billing/historyRecorder.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { inScope, JournalError, methodLabel, stateLabel, TopUpJournal, type JournalEntry, type JournalScope } from '../billing/journal.js';
import { recordTopUp, topUpNotes, verifyOutcomeLines, verifyUsdc, type VerifyOutcome } from '../billing/topups.js';
import { resolveProfile } from '../config/profile.js';
import { parseWatchFlags } from '../billing/settings.js';
import { apiErrorSentence, NETWORK_ERROR_CODES, printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { confirmTopUp } from './confirm.js';
import { parseAmount, parseTxHash } from './input.js';
import { ExitCode, fail, noBaseUrlSentence, openSession, printFormatted, printLine, warn, type ExitCodeValue, type GlobalOptions } from './output.js';
import { colorEnabled, flattenForDisplay, formatKeyValues, formatTable, formatTimestamp, formatUsd, isoSeconds, type Cell, type TerminalText } from './table.js';
import { visible } from '../terminal/sanitize.js';

/** The §2.3 record as `label  value` lines, with the spec's field names. */
export function creditsBlock(credits: CreditBalance, options: { color?: boolean } = {}): TerminalText {
  return formatKeyValues(
    [
      ['remaining', formatUsd(credits.remaining)],
      ['totalTopUp', formatUsd(credits.totalTopUp)],
      ['hasCreditKey', credits.hasCreditKey ? 'yes' : 'no'],
      ['creditKeyCount', String(credits.creditKeyCount)],
      ['userId', credits.userId ?? '(none until the first top-up)'],
    ],
    options,
  );
}

/** `keydeck billing credits [--json]`: the balance record (§2.3). Exit 0. */
export async function billingCredits(globals: GlobalOptions, flags: JsonFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const { client } = await openSession(globals, deps.session);
  const credits = await client.billing.credits();
  if (flags.json) printData(credits);
  else printFormatted(creditsBlock(credits, { color: colorEnabled() }));
  return ExitCode.ok;
}

/**
 * `keydeck billing status [--json]`: §4 `GET /api/billing/status`, whose body the spec does not
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
  else if (summary) printLine(summaryText(statusSummaryLines(summary)));
  else printFormatted(formatKeyValues(flattenForDisplay(status), { color: colorEnabled() }));
  return ExitCode.ok;
}

/** Flags of `billing topup` (commander's strings). */
export interface TopUpFlags extends JsonFlag {
  /** USD, plain decimal text (see parseAmount). */
  readonly amount: string;
  /**
   * A kind by the seed's name (`card_checkout`, `card_direct`, `usdc`: sent as the profile's
   * `topUpMethods` name) or any other method name, sent as given.
   */
  readonly method: TopUpMethod | (string & {});
  /** `--yes`: no confirmation for a card-on-file charge or an amount above the ceiling. */
  readonly yes?: boolean;
}

/** Human lines for a top-up's result (§2.4 session, §2.5 instruction, or the unshown card_direct data). */
export function topUpLines(result: TopUpResult, amount: number): string[] {
  switch (result.method) {
    case 'card_checkout':
      return [
        `Pay ${formatUsd(amount)} by card on the checkout page:`,
        '',
        `  ${visible(result.data.sessionUrl)}`,
        '',
        `The balance is credited once the payment completes (session ${visible(result.data.sessionId)}); check it with: keydeck billing credits`,
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
        `Then credit it with the transaction hash: keydeck billing verify --tx HASH --amount ${visible(String(exact))}`,
      ];
    }
    default:
      return [`Top-up of ${formatUsd(amount)} by ${visible(result.wireMethod)}; the service answered:`, formatKeyValues(flattenForDisplay(result.data)).replace(/^/gm, '  ')];
  }
}

/** Dependencies of the top-up commands: the record (default: the data dir's, as the TUI's). */
export interface BillingDeps extends CommandDeps {
  readonly journal?: TopUpJournal;
}

function journalOf(deps: BillingDeps): TopUpJournal {
  return deps.journal ?? new TopUpJournal({ env: deps.session?.env ?? process.env });
}

/**
 * `keydeck billing topup --amount USD --method card_checkout|card_direct|usdc [--json]`
 * (§4 `POST /api/billing/topup`; never retried), put on the top-up record. Exit 2 for a bad
 * amount (nothing sent); 1 when the checkout link is refused (src/api/baseUrl.ts: nothing is
 * printed of it; the top-up stays on record). A record that cannot be written is a warning:
 * the instruction is printed all the same.
 * A card-on-file charge (`card_direct`) and an amount above the profile's `confirmAboveUsd`
 * (default 500) are confirmed first on a terminal; scripts pass `--yes`; without either, exit 2
 * `confirmation_required` (./confirm.ts {@link confirmTopUp}).
 */
export async function billingTopUp(globals: GlobalOptions, flags: TopUpFlags, deps: BillingDeps = {}): Promise<ExitCodeValue> {
  const amount = parseAmount(flags.amount);
  const named = TopUpMethodNameSchema.safeParse(flags.method);
  if (!named.success) fail(ExitCode.usage, `--method: ${named.error.issues[0]?.message ?? 'invalid method name'}; nothing was sent.`);
  const { client, profile } = await openSession(globals, deps.session);
  await confirmTopUp({
    amount,
    // A name keydeck does not know may charge at once: it is confirmed like a card on file.
    method: topUpKindOf(flags.method, profile.topUpMethods) ?? 'card_direct',
    ceilingUsd: profile.confirmAboveUsd,
    ...(flags.yes !== undefined && { yes: flags.yes }),
    command: `keydeck billing topup --amount ${flags.amount} --method ${flags.method}`,
  });
  const result = await client.billing.topUp({ amount, method: flags.method });
  const journal = journalOf(deps);
  let problems: readonly string[] = [];
  let entry: JournalEntry | undefined;
  try {
    ({ entry, problems } = await recordTopUp(journal, { host: hostOf(profile.baseUrl), profile: profile.name }, amount, result));
  } catch (error) {
    warn(`${error instanceof Error ? error.message : String(error)} This top-up is not on keydeck's record: keep what is printed below.`);
  } finally {
    journal.close();
  }
  if (result.method === 'card_checkout' && problems.length > 0) {
    fail(ExitCode.refused, `${problems.join(' ')} (session ${visible(result.data.sessionId)} is on record as awaiting payment.)`);
  }
  if (flags.json) {
    printData(result.data);
    // The instruction's amount differing from the one requested is said on stderr too.
    for (const note of topUpNotes(amount, result)) warn(note);
  } else {
    for (const line of topUpLines(result, amount)) printLine(line);
    if (result.method === 'card_direct' && entry?.state === 'credited') printLine('The service says this charge was credited.');
  }
  for (const problem of problems) warn(problem);
  return ExitCode.ok;
}

/** Flags of `billing verify`. */
export interface VerifyFlags extends JsonFlag {
  /** `0x` + 64 hex. */
  readonly tx: string;
  /** USD, plain decimal text; must match the amount sent. */
  readonly amount: string;
}

/** Next steps of a verify, in command lines. */
const VERIFY_HINTS = {
  amountSent: 'run keydeck billing verify again with --amount set to what the transfer sent',
  again: 'run the same keydeck billing verify again',
};

/**
 * `keydeck billing verify --tx HASH --amount USD [--json]` (§4 `POST /api/billing/verify-topup`;
 * §2.6 result), through the procedure the TUI uses (src/billing/topups.ts): the record (the one
 * with this hash, else the one USDC top-up awaiting this amount, else a new one) is `verifying`
 * with the `totalTopUp` baseline before the request is sent; a hash already credited on record is
 * not sent again. Exit 0 when credited (also by keydeck's own earlier verify whose answer was
 * lost); 2 for a bad hash or amount (nothing sent; a transfer that can never be credited says so);
 * 1 for `amount_mismatch`, `tx_already_used`, `not_found`, `already_credited` and other refusals;
 * 4 when the answer was lost (the record stays `verifying`: run it again).
 */
export async function billingVerify(globals: GlobalOptions, flags: VerifyFlags, deps: BillingDeps = {}): Promise<ExitCodeValue> {
  const txHash = parseTxHash(flags.tx);
  const amount = parseAmount(flags.amount, '--amount', 'transfer');
  const { client, profile } = await openSession(globals, deps.session);
  const journal = journalOf(deps);
  let outcome: VerifyOutcome;
  try {
    outcome = await verifyUsdc({ journal, client, scope: { host: hostOf(profile.baseUrl), profile: profile.name } }, { txHash, amount });
  } finally {
    journal.close();
  }
  const lines = verifyOutcomeLines(outcome, amount, VERIFY_HINTS);
  switch (outcome.kind) {
    case 'credited':
      if (flags.json) printData({ credited: outcome.credited, ...(outcome.balance !== undefined && { balance: outcome.balance }) });
      else if (outcome.byEarlierVerify) printLine(`${lines[0]}${outcome.balance !== undefined ? ` The balance is now ${formatUsd(outcome.balance)}.` : ''}`);
      else printLine(`Credited ${formatUsd(outcome.credited)}${outcome.balance !== undefined ? `; the balance is now ${formatUsd(outcome.balance)}` : ''}.`);
      return ExitCode.ok;
    case 'already_credited':
      return fail(ExitCode.refused, `already_credited: ${lines[0]}`);
    case 'used_unconfirmed':
      return fail(ExitCode.refused, `outcome_unknown: ${lines.join(' ')}`);
    case 'not_sent':
      if (outcome.error instanceof JournalError || !(outcome.error instanceof KeydeckApiError)) return fail(ExitCode.refused, lines.join(' '));
      warn('nothing was sent: keydeck reads the total of top-ups before verifying, to recognise its own verification later.');
      throw outcome.error;
    case 'unknown':
      warn('the top-up stays "verifying" on keydeck\'s record: run the same keydeck billing verify again; keydeck recognises its own earlier verification.');
      throw outcome.error;
    default:
      throw outcome.error;
  }
}

/** Flags of `billing history`. Another view (a chart, say) is one more flag here and one more branch in {@link billingHistory}. */
export interface HistoryFlags extends JsonFlag {
  /** Draw the balance over `window` from the balance history instead of listing top-ups (issue 16). */
  readonly chart?: boolean;
  /** `1h`, `6h`, `24h` (default), `7d`, `30d`: the chart's window. */
  readonly window?: string;
}

/** One record in the `billing history --json` array (amounts USD). */
export interface HistoryItem {
  readonly method: JournalEntry['method'];
  /** USD requested. */
  readonly amount: number;
  readonly state: JournalEntry['state'];
  /** ISO 8601. */
  readonly createdAt: string;
  readonly txHash?: string;
  readonly sessionId?: string;
  /** USD the service credited, once known. */
  readonly credited?: number;
  /** USDC deposit address (EIP-55). */
  readonly address?: string;
}

/** The `--json` form of a record. */
export function historyItem(entry: JournalEntry): HistoryItem {
  return {
    method: entry.method,
    amount: entry.amount,
    state: entry.state,
    createdAt: entry.createdAt,
    ...(entry.txHash !== undefined && { txHash: entry.txHash }),
    ...(entry.sessionId !== undefined && { sessionId: entry.sessionId }),
    ...(entry.credited !== undefined && { credited: entry.credited }),
    ...(entry.address !== undefined && { address: entry.address }),
  };
}

function stateCell(entry: JournalEntry): Cell {
  const style = entry.state === 'credited' ? 'green' : entry.state === 'refused' ? 'red' : entry.state === 'closed' ? 'dim' : 'yellow';
  return { text: stateLabel(entry.state), style };
}

/** The human table of records, newest first: created, amount (credited once known), method, state, reference, note. */
export function historyTable(entries: readonly JournalEntry[], options: { color?: boolean } = {}): TerminalText {
  return formatTable(
    ['CREATED', 'AMOUNT', 'METHOD', 'STATE', 'REFERENCE', 'NOTE'],
    entries.map((e) => [
      formatTimestamp(e.createdAt),
      formatUsd(e.credited ?? e.amount),
      methodLabel(e.method),
      stateCell(e),
      e.txHash ?? e.sessionId ?? e.paymentId ?? (e.address ? `to ${e.address}` : ''),
      e.state === 'credited' ? '' : (e.reason ?? ''),
    ]),
    options,
  );
}

/** The records of the current profile's service (all records when no base URL is set), newest first. */
export async function historyEntries(globals: GlobalOptions, deps: BillingDeps = {}): Promise<JournalEntry[]> {
  const env = deps.session?.env ?? process.env;
  const profile = await resolveProfile(globals, env);
  const scope: JournalScope | undefined = profile.baseUrl !== undefined ? { host: hostOf(profile.baseUrl), profile: profile.name } : undefined;
  const journal = journalOf(deps);
  try {
    const all = await journal.list();
    return scope ? all.filter((e) => inScope(e, scope)) : all;
  } finally {
    journal.close();
  }
}

/**
 * `keydeck billing history [--json]`: the local top-up record of this profile's service, newest
 * first; with `--json` an array of {@link HistoryItem}. Sends no request and needs no key. Exit 0;
 * 1 when the record cannot be read.
 */
export async function billingHistory(globals: GlobalOptions, flags: HistoryFlags = {}, deps: BillingDeps = {}): Promise<ExitCodeValue> {
  let entries: JournalEntry[];
  try {
    entries = await historyEntries(globals, deps);
  } catch (error) {
    if (error instanceof JournalError) fail(ExitCode.refused, error.message);
    throw error;
  }
  if (flags.json) printData(entries.map(historyItem));
  else if (entries.length === 0) printLine('No top-ups on record for this service yet. Start one with: keydeck billing topup --amount USD --method usdc');
  else printFormatted(historyTable(entries, { color: colorEnabled() }));
  return ExitCode.ok;
}

/**
 * `keydeck billing history --chart [--window 24h] [--json]` (issue 16): the balance of this
 * profile at its service origin over the window, from the balance history on disk (what the
 * TUI, `keydeck monitor` and `billing watch` read; nothing is sent): a line chart as wide as the
 * terminal (80 columns in a pipe) with the top-ups marked, or with `--json` the series:
 * `{ profile, origin, window, from, to, readings: [{ t, remaining, totalTopUp, spent }], topUps: [{ t, amount }] }`
 * (times ISO 8601, amounts USD; `spent` is `totalTopUp − remaining`, §3). Exit 2 for a bad
 * window or no base URL, 1 when the history cannot be opened.
 */
export async function billingHistoryChart(globals: GlobalOptions, flags: HistoryFlags = {}, deps: BillingDeps & { now?: () => number; columns?: number } = {}): Promise<ExitCodeValue> {
  const window = flags.window === undefined ? '24h' : parseWindow(flags.window);
  if (!window) fail(ExitCode.usage, `--window must be one of ${CHART_WINDOWS.join(', ')}`);
  const env = deps.session?.env ?? process.env;
  const profile = await resolveProfile(globals, env);
  if (profile.baseUrl === undefined) fail(ExitCode.usage, noBaseUrlSentence(profile.name));
  const origin = originOf(profile.baseUrl);
  let store: BalanceHistoryStore;
  try {
    store = BalanceHistoryStore.open({ env });
  } catch (error) {
    fail(ExitCode.refused, error instanceof Error ? error.message : String(error));
  }
  try {
    const now = (deps.now ?? Date.now)();
    const from = now - CHART_WINDOW_MS[window];
    // Readings from a little before the window give the line its start.
    const samples = store.series(profile.name, origin).load(now - CHART_WINDOW_MS[window] * 1.25, now);
    const inWindow = samples.filter((s) => s.t > from);
    if (flags.json) {
      printData({
        profile: profile.name,
        origin,
        window,
        from: new Date(from).toISOString(),
        to: new Date(now).toISOString(),
        readings: inWindow.map((s) => ({
          t: new Date(s.t).toISOString(),
          remaining: s.remaining,
          ...(s.totalTopUp !== undefined && { totalTopUp: s.totalTopUp, spent: Math.round((s.totalTopUp - s.remaining) * 1e6) / 1e6 }),
        })),
        topUps: topUpsIn(samples).filter((m) => m.t > from).map((m) => ({ t: new Date(m.t).toISOString(), amount: m.amount })),
      });
      return ExitCode.ok;
    }
    const columns = deps.columns ?? (process.stdout.isTTY ? process.stdout.columns : undefined) ?? 80;
    const rows = process.stdout.isTTY ? (process.stdout.rows ?? 24) : 24;
    const chart = balanceChart(samples, { window, now, width: Math.max(40, columns - 1), height: Math.max(6, Math.min(20, rows - 6)) });
    if (chart.lines.length === 0) {
      printLine(`No balance readings for profile ${profile.name} at ${origin} in the last ${window}: keydeck, keydeck monitor and keydeck billing watch keep them.`);
      return ExitCode.ok;
    }
    printLine(`balance of profile ${profile.name} at ${origin}, last ${window}${chart.legend ? ` · ${chart.legend}` : ''}`);
    for (const line of chart.lines) printLine(line);
    return ExitCode.ok;
  } finally {
    store.close();
  }
}

/** Flags of `billing watch` (commander's strings). */
export interface WatchFlags {
  /** Seconds between reads (≥ 2; default the profile's pollIntervalSeconds, 15). */
  readonly interval?: string;
  /** USD threshold (default the profile's alertBelowUsd; none: never exits 3). */
  readonly alertBelow?: string;
}

/** Dependencies of {@link billingWatch}. */
export interface WatchDeps extends CommandDeps {
  /** Ends the watch (exit 0) when aborted. Default: SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
  /** Default `Date.now`. */
  readonly now?: () => number;
}

/** Codes that do not end a watch after its first read: the next poll may work. */
const TRANSIENT_CODES: ReadonlySet<ApiErrorCode> = new Set<ApiErrorCode>([...NETWORK_ERROR_CODES, 'rate_limited', 'invalid_response']);

/** One `billing watch` line: `<ISO time> remaining 25.00 USD totalTopUp 50.00 USD`. */
export function watchLine(t: number, credits: Pick<CreditBalance, 'remaining' | 'totalTopUp'>): string {
  return `${isoSeconds(t)} remaining ${formatUsd(credits.remaining)} totalTopUp ${formatUsd(credits.totalTopUp)}`;
}

/** A signal aborted on the first SIGINT or SIGTERM (the handlers are removed by `dispose`); `interrupted` after SIGINT. */
function signalOnInterrupt(): { signal: AbortSignal; readonly interrupted: boolean; dispose: () => void } {
  const controller = new AbortController();
  let interrupted = false;
  const stop = (): void => controller.abort();
  const onInt = (): void => {
    interrupted = true;
    controller.abort();
  };
  process.once('SIGINT', onInt);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    get interrupted() {
      return interrupted;
    },
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', stop);
    },
  };
}

/**
 * `keydeck billing watch [--interval S] [--alert-below USD]`: see the module docstring for what
 * it prints and when it ends. Flags are checked before anything is read (exit 2).
 * @returns 130 after ctrl-c (SIGINT), 0 after SIGTERM or `deps.signal`, 3 when the balance is below the threshold
 * @throws CommandFailure / KeydeckApiError as described (exit 1 or 4)
 */
export async function billingWatch(globals: GlobalOptions, flags: WatchFlags = {}, deps: WatchDeps = {}): Promise<ExitCodeValue | 130> {
  const parsed = parseWatchFlags(flags);
  if (!parsed.ok) fail(ExitCode.usage, `invalid_request: ${parsed.reason}`);
  const { client, profile } = await openSession(globals, deps.session);
  const intervalMs = (parsed.value.intervalSeconds ?? profile.pollIntervalSeconds) * 1000;
  const threshold = parsed.value.alertBelowUsd ?? profile.alertBelowUsd;
  const alarm = new LowBalanceAlarm(threshold);
  const now = deps.now ?? Date.now;
  // Every reading joins the balance history on disk (issue 16), as the TUI's and the monitor's do.
  let store: BalanceHistoryStore | undefined;
  try {
    store = BalanceHistoryStore.open({ env: deps.session?.env ?? process.env });
  } catch (error) {
    process.stderr.write(`keydeck: the balance history is not kept: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  const recorder = new HistoryRecorder({
    series: store?.series(profile.name, originOf(profile.baseUrl)),
    now: now(),
    seed: false,
    onError: (sentence) => process.stderr.write(`keydeck: ${sentence}.\n`),
  });
  const interrupt = deps.signal ? undefined : signalOnInterrupt();
  const signal = deps.signal ?? interrupt!.signal;
  let last: string | undefined;
  let lastProblem: string | undefined;
  let first = true;
  try {
    while (!signal.aborted) {
      let credits: CreditBalance | undefined;
      try {
        credits = await client.billing.credits({ signal });
      } catch (error) {
        if (isAbortError(error)) break;
        if (first || !(error instanceof KeydeckApiError) || !TRANSIENT_CODES.has(error.code)) throw error;
        const sentence = apiErrorSentence(error);
        if (sentence !== lastProblem) process.stderr.write(`${isoSeconds(now())} keydeck: ${visible(sentence)} Still watching.\n`);
        lastProblem = sentence;
      }
      first = false;
      if (credits) {
        lastProblem = undefined;
        recorder.record(now(), credits.remaining, credits.totalTopUp);
        const key = `${credits.remaining}|${credits.totalTopUp}`;
        if (key !== last) printLine(watchLine(now(), credits));
        last = key;
        if (alarm.observe(credits.remaining)) {
          process.stderr.write(
            `keydeck: below_threshold: the remaining balance ${formatUsd(credits.remaining)} is below ${formatUsd(threshold!)}.\n`,
          );
          return ExitCode.belowThreshold;
        }
      }
      try {
        await sleep(clampTimerMs(intervalMs), undefined, { signal });
      } catch {
        break;
      }
    }
    // ctrl-c ends the watch as shells expect (128 + SIGINT); SIGTERM is a normal stop.
    return interrupt?.interrupted ? 130 : ExitCode.ok;
  } finally {
    interrupt?.dispose();
    store?.close();
    client.close();
  }
}
