/**
 * `keydeck billing history [--chart]`: the top-ups on this machine's record for this service
 * (src/billing/journal.ts), newest first, and the balance over a window from the history on disk
 * (src/billing/historyStore.ts) as a chart with the top-ups marked. No request is sent.
 */
import { journalOf, type BillingDeps } from './verifyReport.js';
import { hostOf } from '../api/baseUrl.js';
import { balanceChart, CHART_WINDOW_MS, parseWindow } from '../billing/chart.js';
import { topUpsIn } from '../billing/history.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { inScope, JournalError, methodLabel, stateLabel, type JournalEntry, type JournalScope } from '../billing/journal.js';
import { resolveProfile } from '../config/profile.js';
import { isRecordDamaged } from '../config/recordDamage.js';
import { acceptJournalLoss } from '../billing/journalLoss.js';
import { visible } from '../terminal/sanitize.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { printData, type JsonFlag } from './api-command.js';
import { ExitCode, fail, printFormatted, printLine, recordExit, type ExitCodeValue, type GlobalOptions } from './output.js';
import { colorEnabled, formatTable, formatTimestamp, type Cell, type TerminalText } from './table.js';
import { formatUsdCode } from '../api/money.js';
import { billingWords } from './wordingBilling.js';
import { accountWords } from './wordingAccount.js';
import { belowSentence } from '../words/index.js';

export interface HistoryFlags extends JsonFlag {
  /** Draw the balance over `window` from the balance history instead of listing top-ups. */
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
      formatUsdCode(e.credited ?? e.amount),
      methodLabel(e.method),
      stateCell(e),
      e.txHash ?? e.sessionId ?? e.paymentId ?? (e.address ? `to ${e.address}` : ''),
      e.state === 'credited'
        ? ''
        : (e.reason ?? (e.state === 'verifying' ? (e.method === 'usdc' ? 'its verify has no known outcome: run the same billing verify again' : 'its outcome is not known yet') : '')),
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
    if (error instanceof JournalError) fail(recordExit(error), error.message);
    throw error;
  }
  if (flags.json) printData(entries.map(historyItem));
  else if (entries.length === 0) printLine('No top-ups on record for this service yet. Start one with: keydeck billing topup --amount USD --method usdc');
  else printFormatted(historyTable(entries, { color: colorEnabled() }));
  return ExitCode.ok;
}

/**
 * `keydeck billing history --chart [--window 24h] [--json]`: the balance of this
 * profile at its service origin over the window, from the balance history on disk (what the
 * TUI, `keydeck monitor` and `billing watch` read; nothing is sent): a line chart as wide as the
 * terminal (80 columns in a pipe) with the top-ups marked, or with `--json` the series:
 * `{ profile, origin, window, from, to, readings: [{ t, remaining, totalTopUp, spent }], topUps: [{ t, amount }] }`
 * (times ISO 8601, amounts USD; `spent` is `totalTopUp − remaining`). Exit 2 for a bad
 * window or no base URL, 1 when the history cannot be opened.
 */
export async function billingHistoryChart(globals: GlobalOptions, flags: HistoryFlags = {}, deps: BillingDeps & { now?: () => number; columns?: number } = {}): Promise<ExitCodeValue> {
  const window = flags.window === undefined ? '24h' : parseWindow(flags.window);
  if (!window) fail(ExitCode.usage, billingWords.usageWindowMustBe);
  const env = deps.session?.env ?? process.env;
  const profile = await resolveProfile(globals, env);
  if (profile.baseUrl === undefined) fail(ExitCode.usage, accountWords.noBaseUrl, profile);
  const origin = originOf(profile.baseUrl);
  let store: BalanceHistoryStore;
  try {
    store = BalanceHistoryStore.open({ env });
  } catch (error) {
    fail(ExitCode.refused, error instanceof Error ? error.message : String(error), 'history_unavailable');
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
        topUps: topUpsIn(samples)
          .filter((m) => m.t > from)
          .map((m) => ({ t: new Date(m.t).toISOString(), amount: m.amount })),
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

/**
 * `keydeck billing history --accept-loss [--yes]`: when the top-up record cannot be trusted
 * (src/billing/journal.ts, "Fail closed"), moves it and its summary aside
 * (src/billing/journalLoss.ts) so that the next top-up starts a new record, after a y/N question
 * on a terminal (`--yes` in scripts) that repeats what it held. Sends nothing. Exit 0 when moved
 * (the files' new paths printed); 2 when the record can be read (nothing to accept) or no
 * question can be asked without `--yes`; 1 when the user says no or a file cannot be moved.
 */
export async function billingAcceptLoss(globals: GlobalOptions, flags: { readonly yes?: boolean } = {}, deps: BillingDeps = {}): Promise<ExitCodeValue> {
  const journal = journalOf(deps);
  let damage: string;
  try {
    await journal.check();
    fail(ExitCode.usage, billingWords.recordReadableNothingToAccept, { path: journal.path });
  } catch (error) {
    if (!isRecordDamaged(error)) throw error;
    damage = belowSentence(error) ?? (error as Error).message;
  } finally {
    journal.close();
  }
  const command = 'keydeck billing history --accept-loss';
  ensureCanConfirm({ ...(flags.yes !== undefined && { yes: flags.yes }), command });
  if (!flags.yes) {
    process.stderr.write(`${visible(damage)}\n`);
    await confirmDestructive({ question: 'Move it aside and start a new record? Do so only once you have checked those top-ups with the service.', command });
  }
  const done = await acceptJournalLoss(journal);
  if (done.kind === 'readable') fail(ExitCode.usage, billingWords.recordReadableNow, { path: journal.path });
  printLine(`Moved aside: ${done.aside.join(', ')}. The next top-up starts a new record; what the old one held is above, and stays in those files.`);
  return ExitCode.ok;
}
