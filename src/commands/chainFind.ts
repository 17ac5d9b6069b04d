/**
 * No hash to copy: `keydeck billing verify --find` and `keydeck billing topup
 * --method usdc --wait` watch the deposit address of a USDC top-up on keydeck's record for USDC
 * transfers (src/billing/chainWatch.ts: one `eth_getLogs` per 4 s at most), list what arrives
 * (amount, sender, hash, confirmations; a transfer already credited on record is never offered),
 * and verify the one that did through the same checks and record as `billing verify --tx`.
 */
import { hostOf } from '../api/baseUrl.js';
import { rpcHostOf } from '../api/chain/rpcUrl.js';
import type { ChainSettings } from '../billing/chainSettings.js';
import type { JournalEntry, TopUpJournal } from '../billing/journal.js';
import { foundTransferLine } from '../billing/eip681.js';
import { awaitingUsdc } from '../billing/topups.js';
import { shortDuration } from '../delivery/lastUse.js';
import { chainSettingsOf, type ChainProfile } from './chainCheck.js';
import { journalOf, verifyAndReport, type BillingDeps, type VerifyFlags, type VerifyOutputFlags, type VerifySession } from './verifyReport.js';
import { parseAmount, parseDepositAddress } from './input.js';
import { askLine, canPrompt, ExitCode, fail, openSession, warn, type ExitCodeValue, type GlobalOptions } from './output.js';
import { centsText } from '../api/money.js';
import { billingWords } from './wordingBilling.js';

/** Default of `--timeout`, seconds. */
const DEFAULT_WATCH_SECONDS = 900;

/** What a watch needs decided before anything is sent: how long, and where the chain is read. */
export interface WatchPlan {
  /** `--timeout`, seconds (default 900). */
  readonly timeoutSeconds: number;
  /** Where the chain is read (never off: a watch without a chain is refused). */
  readonly settings: Extract<ChainSettings, { enabled: true }>;
}

/**
 * Parses `--timeout` and resolves where the chain is read, before anything is sent (`billing topup
 * --wait` plans before the top-up). `amount`: USD, for the hint when the chain is off.
 * @throws CommandFailure exit 2 for a bad `--timeout`, an unusable `--chain-rpc`, or the chain off
 */
export async function planWatch(globals: GlobalOptions, profile: ChainProfile, timeout: string | undefined, amount: number | undefined): Promise<WatchPlan> {
  let timeoutSeconds = DEFAULT_WATCH_SECONDS;
  if (timeout !== undefined) {
    if (!/^\d{1,6}$/.test(timeout.trim()) || Number(timeout) < 1) fail(ExitCode.usage, billingWords.usageTimeoutWholeNumber);
    timeoutSeconds = Number(timeout);
  }
  const settings = await chainSettingsOf(globals, profile);
  if (!settings.enabled) {
    fail(ExitCode.usage, billingWords.chainOff, { why: settings.why, amount });
  }
  return { timeoutSeconds, settings };
}

/**
 * `keydeck billing verify --find [--amount USD] [--to ADDRESS] [--timeout SECONDS] [--yes] [--json]`:
 * the USDC top-up awaiting payment on record (the one of `--amount` and of the deposit address
 * `--to` when several), watched until a transfer arrives or the timeout. Exit codes as `billing
 * verify`; exit 2 when no such top-up is on record or several match; exit 1 `not_seen` when
 * nothing arrived in time (nothing was sent).
 */
export async function billingFind(globals: GlobalOptions, flags: VerifyFlags, deps: BillingDeps = {}): Promise<ExitCodeValue> {
  const amount = flags.amount !== undefined ? parseAmount(flags.amount, '--amount', 'transfer') : undefined;
  const to = flags.to !== undefined ? parseDepositAddress(flags.to) : undefined;
  const session = await openSession(globals, deps.session);
  const journal = journalOf(deps);
  let waiting: JournalEntry[];
  try {
    waiting = awaitingUsdc(await journal.unfinished({ host: hostOf(session.profile.baseUrl), profile: session.profile.name }), amount).filter(
      (e) => e.address !== undefined && (to === undefined || e.address.toLowerCase() === to.toLowerCase()),
    );
  } finally {
    // Read once; the watch reopens it when it needs it.
    journal.close();
  }
  if (waiting.length === 0) {
    const which = `${amount !== undefined ? ` of ${centsText(amount)} USD` : ''}${to !== undefined ? ` to ${to}` : ''}`;
    fail(ExitCode.usage, billingWords.noTopupAwaitingNoUsdcTop, { which });
  }
  if (waiting.length > 1) {
    const list = waiting.map((e) => `${centsText(e.amountSent ?? e.amount)} USD to ${e.address}`).join('; ');
    fail(ExitCode.usage, billingWords.severalTopupsSeveralUsdcTop, { list, amount });
  }
  const entry = waiting[0]!;
  const plan = await planWatch(globals, session.profile, flags.timeout, entry.amountSent ?? entry.amount);
  return watchAndVerify({ globals, session, journal, entry, plan, flags });
}

/** One watch of a top-up's deposit address ({@link watchAndVerify}). */
export interface WatchRequest {
  readonly globals: GlobalOptions;
  readonly session: VerifySession;
  /** The top-up record: closed however the watch ends. */
  readonly journal: TopUpJournal;
  /** The USDC top-up awaiting payment (with its deposit address). */
  readonly entry: JournalEntry;
  readonly plan: WatchPlan;
  readonly flags: VerifyOutputFlags;
}

/**
 * Watches the deposit address of `request.entry` until a USDC transfer not yet credited on record
 * arrives (or the plan's timeout), then verifies it ({@link verifyAndReport}); several at once are
 * listed and one is chosen on a terminal (without one: exit 1, each with its `billing verify --tx`
 * line). Closes the record however it ends. Ctrl-C stops the watch (nothing was sent).
 */
export function watchAndVerify(request: WatchRequest): Promise<ExitCodeValue> {
  return watchUntilFound(request).finally(() => request.journal.close());
}

async function watchUntilFound({ globals, session, journal, entry, plan, flags }: WatchRequest): Promise<ExitCodeValue> {
  const { timeoutSeconds, settings } = plan;
  const address = entry.address as `0x${string}`;
  const amount = entry.amountSent ?? entry.amount;
  const scope = { host: hostOf(session.profile.baseUrl), profile: session.profile.name };
  const { DepositWatch, WATCH_INTERVAL_MS } = await import('../billing/chainWatch.js');
  const watch = new DepositWatch(settings.rpcUrl, address, Date.parse(entry.createdAt));
  const deadline = Date.now() + timeoutSeconds * 1000;
  process.stderr.write(
    `Watching ${address} for USDC on Base through ${rpcHostOf(settings.rpcUrl)} (every ${WATCH_INTERVAL_MS / 1000} s, up to ${shortDuration(timeoutSeconds * 1000)}; ctrl-c stops, nothing is sent until a transfer arrives)\n`,
  );
  let lastProblem = '';
  // The watch paces itself: each poll comes at least WATCH_INTERVAL_MS after the one before.
  for (;;) {
    const polled = await watch.poll();
    if (polled.kind === 'unavailable') {
      if (polled.sentence !== lastProblem) warn(polled.sentence);
      lastProblem = polled.sentence;
    } else {
      lastProblem = '';
      const fresh = [];
      for (const t of polled.transfers) if (!(await journal.creditedWithHash(t.txHash, scope).catch(() => undefined))) fresh.push(t); // record unreadable: offered, and the verify reads the record again and stops there
      if (fresh.length > 0) {
        for (const [i, t] of fresh.entries()) process.stderr.write(`${fresh.length > 1 ? `${i + 1}. ` : 'Found: '}${foundTransferLine(t)}\n`);
        let chosen = fresh[0]!;
        if (fresh.length > 1) {
          if (!canPrompt()) {
            const lines = fresh.map((t) => `keydeck billing verify --tx ${t.txHash} --amount ${centsText(amount)}`).join('; ');
            fail(ExitCode.refused, billingWords.severalTransfers, { freshCount: fresh.length, address, lines });
          }
          const answer = await askLine(`Which one pays this top-up? [1-${fresh.length}] `);
          const index = Number(answer) - 1;
          if (!Number.isInteger(index) || index < 0 || index >= fresh.length) fail(ExitCode.refused, billingWords.cancelledSent);
          chosen = fresh[index]!;
        }
        // The settings found above go with it: the verify does not ask the service again where the chain is.
        const target = { txHash: chosen.txHash, amount, amountText: centsText(amount), entryId: entry.id, depositAddress: address };
        return verifyAndReport(globals, session, journal, target, { ...flags, chain: settings });
      }
    }
    if (Date.now() + WATCH_INTERVAL_MS > deadline) {
      fail(ExitCode.refused, billingWords.notSeen, { address, timeoutSeconds });
    }
  }
}
