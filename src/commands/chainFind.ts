/**
 * No hash to copy (issue 25, item 3): `keydeck billing verify --find` and `keydeck billing topup
 * --method usdc --wait` watch the deposit address of a USDC top-up on keydeck's record for USDC
 * transfers (src/billing/chainWatch.ts: one `eth_getLogs` per 4 s at most), list what arrives
 * (amount, sender, hash, confirmations; a transfer already credited on record is never offered),
 * and verify the one that did through the same checks and record as `billing verify --tx`.
 */
import { hostOf } from '../api/baseUrl.js';
import { rpcHostOf } from '../api/chain/rpcUrl.js';
import type { JournalEntry, TopUpJournal } from '../billing/journal.js';
import { cents } from '../billing/topups.js';
import { visible } from '../terminal/sanitize.js';
import { chainSettingsOf } from './chainCheck.js';
import { journalOf, verifyAndReport, type BillingDeps, type VerifyFlags } from './verifyReport.js';
import { parseAmount } from './input.js';
import { askLine, canPrompt, ExitCode, fail, openSession, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';

/** Default of `--timeout`, seconds. */
export const DEFAULT_WATCH_SECONDS = 900;

function parseTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_WATCH_SECONDS;
  if (!/^\d{1,6}$/.test(text.trim()) || Number(text) < 1) fail(ExitCode.usage, '--timeout: a whole number of seconds, at least 1; nothing was sent.');
  return Number(text);
}

/**
 * `keydeck billing verify --find [--amount USD] [--timeout SECONDS] [--yes] [--json]`: the USDC
 * top-up awaiting payment on record (the one of `--amount` when several), watched until a transfer
 * arrives or the timeout. Exit codes as `billing verify`; exit 2 when no such top-up is on record
 * or several match; exit 1 `not_seen` when nothing arrived in time (nothing was sent).
 */
export async function billingFind(globals: GlobalOptions, flags: VerifyFlags, deps: BillingDeps = {}): Promise<ExitCodeValue> {
  const amount = flags.amount !== undefined ? parseAmount(flags.amount, '--amount', 'transfer') : undefined;
  parseTimeout(flags.timeout);
  const session = await openSession(globals, deps.session);
  const journal = journalOf(deps);
  let waiting: JournalEntry[];
  try {
    waiting = (await journal.unfinished({ host: hostOf(session.profile.baseUrl), profile: session.profile.name })).filter(
      (e) => e.method === 'usdc' && e.state === 'awaiting_payment' && e.address !== undefined && (amount === undefined || cents(e.amountSent ?? e.amount) === cents(amount)),
    );
  } finally {
    // Read once; watchAndVerify opens it again when it needs it.
    journal.close();
  }
  if (waiting.length === 0) {
    fail(ExitCode.usage, `no USDC top-up${amount !== undefined ? ` of ${amount.toFixed(2)} USD` : ''} awaits payment on keydeck's record for this profile: start one with keydeck billing topup --method usdc --amount USD --wait, or verify a transfer by its hash with --tx.`);
  }
  if (waiting.length > 1) {
    const list = waiting.map((e) => `${(e.amountSent ?? e.amount).toFixed(2)} USD to ${e.address}`).join('; ');
    fail(ExitCode.usage, `several USDC top-ups await payment (${visible(list)}): say which with --amount.`);
  }
  return watchAndVerify(globals, session, journal, waiting[0]!, flags);
}

/**
 * Watches `entry`'s deposit address until a USDC transfer not yet credited on record arrives (or
 * `--timeout`), then verifies it ({@link verifyAndReport}); several at once are listed and one is
 * chosen on a terminal (without one: exit 1, each with its `billing verify --tx` line). Closes
 * `journal`. Ctrl-C stops the watch (nothing was sent).
 */
export async function watchAndVerify(
  globals: GlobalOptions,
  session: Pick<Session, 'client' | 'profile'>,
  journal: TopUpJournal,
  entry: JournalEntry,
  flags: { readonly yes?: boolean; readonly json?: boolean; readonly timeout?: string },
): Promise<ExitCodeValue> {
  try {
    return await watchUntilFound(globals, session, journal, entry, flags);
  } catch (error) {
    // Every way out but the verify (which closes it) leaves the record open: close it here.
    journal.close();
    throw error;
  }
}

async function watchUntilFound(
  globals: GlobalOptions,
  session: Pick<Session, 'client' | 'profile'>,
  journal: TopUpJournal,
  entry: JournalEntry,
  flags: { readonly yes?: boolean; readonly json?: boolean; readonly timeout?: string },
): Promise<ExitCodeValue> {
  const timeoutSeconds = parseTimeout(flags.timeout);
  const address = entry.address as `0x${string}`;
  const amount = entry.amountSent ?? entry.amount;
  const scope = { host: hostOf(session.profile.baseUrl), profile: session.profile.name };
  const settings = await chainSettingsOf(globals, session.profile);
  if (!settings.enabled) {
    fail(ExitCode.usage, `the chain is not read (${settings.why}), so the transfer cannot be found: verify it by its hash with keydeck billing verify --tx HASH --amount ${amount.toFixed(2)}.`);
  }
  const { DepositWatch, WATCH_INTERVAL_MS } = await import('../billing/chainWatch.js');
  const { foundTransferLine } = await import('../billing/chainChecks.js');
  const watch = new DepositWatch(settings.rpcUrl, address, Date.parse(entry.createdAt));
  const deadline = Date.now() + timeoutSeconds * 1000;
  process.stderr.write(`Watching ${address} for USDC on Base through ${rpcHostOf(settings.rpcUrl)} (every ${WATCH_INTERVAL_MS / 1000} s, up to ${timeoutSeconds < 120 ? `${timeoutSeconds} s` : `${Math.round(timeoutSeconds / 60)} min`}; ctrl-c stops, nothing is sent until a transfer arrives)\n`);
  let lastProblem = '';
  // The watch paces itself: each poll comes at least WATCH_INTERVAL_MS after the one before.
  for (;;) {
    const polled = await watch.poll();
    if (polled.kind === 'unavailable') {
      if (polled.sentence !== lastProblem) process.stderr.write(`warning: ${visible(polled.sentence)}\n`);
      lastProblem = polled.sentence;
    } else {
      lastProblem = '';
      const fresh = [];
      for (const t of polled.transfers) if (!(await journal.creditedWithHash(t.txHash, scope).catch(() => undefined))) fresh.push(t);
      if (fresh.length > 0) {
        for (const [i, t] of fresh.entries()) process.stderr.write(`${fresh.length > 1 ? `${i + 1}. ` : 'Found: '}${foundTransferLine(t)}\n`);
        let chosen = fresh[0]!;
        if (fresh.length > 1) {
          if (!canPrompt()) {
            const lines = fresh.map((t) => `keydeck billing verify --tx ${t.txHash} --amount ${amount.toFixed(2)}`).join('; ');
            fail(ExitCode.refused, `several_transfers: ${fresh.length} USDC transfers reached ${address}; nothing was sent. Verify the one that pays this top-up: ${lines}`);
          }
          const answer = await askLine(`Which one pays this top-up? [1-${fresh.length}] `);
          const index = Number(answer) - 1;
          if (!Number.isInteger(index) || index < 0 || index >= fresh.length) fail(ExitCode.refused, 'cancelled: nothing was sent');
          chosen = fresh[index]!;
        }
        // The settings found above go with it: the verify does not ask the service again where the chain is.
        const target = { txHash: chosen.txHash, amount, amountText: amount.toFixed(2), entryId: entry.id, depositAddress: address };
        return verifyAndReport(globals, session, journal, target, { ...flags, chain: settings });
      }
    }
    if (Date.now() + WATCH_INTERVAL_MS > deadline) {
      fail(ExitCode.refused, `not_seen: no USDC transfer to ${address} seen in ${timeoutSeconds} s; nothing was sent. Run keydeck billing verify --find again later, or verify by hash with --tx.`);
    }
  }
}
