/**
 * The verify of one USDC transfer as the commands run it (`billing verify --tx`, `--find`, `billing
 * topup --wait`): the chain checks (./chainCheck.ts), then `POST
 * /api/billing/verify-topup` through the record's procedure (src/billing/verifyUsdc.ts), then the
 * outcome printed with its exit code. Shared by ./billing.ts and ./chainFind.ts.
 */
import { hostOf } from '../api/baseUrl.js';
import { KeydeckApiError } from '../api/errors.js';
import type { ChainSettings } from '../billing/chainSettings.js';
import { JournalError, TopUpJournal, type JournalEntry } from '../billing/journal.js';
import { openInstructions, recordForVerify, verifyOnRecord, verifyOutcomeLines, type VerifyOutcome } from '../billing/topups.js';
import { failpointsFrom, verifyUsdc } from '../operations/index.js';
import { operationFailure } from './keyDelivery.js';
import { centsText, formatUsdCode } from '../api/money.js';
import { visible } from '../terminal/sanitize.js';
import { say } from './keyDelivery.js';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { askLine, canPrompt, ExitCode, fail, printLine, recordExit, warn, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { billingWords, choiceText } from './wordingBilling.js';

/** Dependencies of the top-up commands: the record (default: the data dir's, as the TUI's). */
export interface BillingDeps extends CommandDeps {
  readonly journal?: TopUpJournal;
}

/** The top-up record the command writes: the one in `deps` (tests), else the data dir's for this environment. */
export function journalOf(deps: BillingDeps): TopUpJournal {
  return deps.journal ?? new TopUpJournal({ env: deps.session?.env ?? process.env });
}

/** Next steps of a verify, in command lines. */
const VERIFY_HINTS = {
  amountSent: 'run keydeck billing verify again with --amount set to what the transfer sent',
  again: 'run the same keydeck billing verify again',
};

/** One transfer to verify: the hash, the USD amount, and the record and deposit address when known. */
export interface VerifyTarget {
  readonly txHash: string;
  readonly amount: number;
  /** The amount as the user wrote it, for the command lines keydeck suggests. */
  readonly amountText: string;
  /** The record it pays (found by hash or amount when absent). */
  readonly entryId?: string;
  readonly depositAddress?: string;
}

/** What a verify needs of the open session. */
export type VerifySession = Pick<Session, 'client' | 'profile'>;

/** The flags the verify itself reads (`--yes`, `--json`). */
export type VerifyOutputFlags = Pick<VerifyFlags, 'yes' | 'json'>;

/**
 * The body of {@link billingVerify}, shared with `billing verify --find` and `billing topup --wait`
 * (./chainFind.ts): the chain checks, then the verify, then its outcome printed; closes `journal`.
 * `chain`: the settings the caller resolved already (else resolved here). Exit codes and failures
 * as {@link billingVerify} says.
 */
export async function verifyAndReport(
  globals: GlobalOptions,
  session: VerifySession,
  journal: TopUpJournal,
  target: VerifyTarget,
  flags: VerifyOutputFlags & { readonly chain?: ChainSettings },
): Promise<ExitCodeValue> {
  const { client, profile } = session;
  const { txHash, amount } = target;
  let outcome: VerifyOutcome;
  try {
    const ports = { journal, client, scope: { host: hostOf(profile.baseUrl), profile: profile.name }, failpoints: failpointsFrom(process.env) };
    // What the record says first: the record's deposit address, and whether a verify would be
    // sent at all (a hash credited on record is not: then the chain is not read, nothing is asked).
    const onRecord = await verifyOnRecord(ports, { txHash, amount, ...(target.entryId !== undefined && { entryId: target.entryId }) }).catch(() => undefined);
    const entryId = target.entryId ?? onRecord?.entry?.id;
    const depositAddress = target.depositAddress ?? onRecord?.entry?.address;
    // The chain's word. The settings are resolved in any case: an unusable --chain-rpc
    // is said whatever the record holds.
    const { chainSettingsOf, checkBeforeVerify } = await import('./chainCheck.js');
    const settings = flags.chain ?? (await chainSettingsOf(globals, profile));
    let chainEvidence: JournalEntry['chainEvidence'];
    if (!onRecord?.credited) {
      chainEvidence = await checkBeforeVerify(
        settings,
        { txHash, amount, ...(depositAddress !== undefined && { depositAddress }) },
        { ...(flags.yes && { yes: true }), command: `keydeck billing verify --tx ${txHash} --amount ${target.amountText}` },
      );
    }
    outcome = await verifyUsdc(ports, { txHash, amount, ...(entryId !== undefined && { entryId }), ...(chainEvidence && { chainEvidence }) }).catch(operationFailure);
  } finally {
    journal.close();
  }
  const lines = verifyOutcomeLines(outcome, amount, VERIFY_HINTS);
  switch (outcome.kind) {
    case 'credited':
      if (flags.json) printData({ credited: outcome.credited, ...(outcome.balance !== undefined && { balance: outcome.balance }) });
      else if (outcome.byEarlierVerify) printLine(`${lines[0]}${outcome.balance !== undefined ? ` The balance is now ${formatUsdCode(outcome.balance)}.` : ''}`);
      else printLine(`Credited ${formatUsdCode(outcome.credited)}${outcome.balance !== undefined ? `; the balance is now ${formatUsdCode(outcome.balance)}` : ''}.`);
      return ExitCode.ok;
    case 'already_credited':
      return fail(ExitCode.refused, billingWords.alreadyCredited, { lines });
    case 'used_unconfirmed':
      return fail(ExitCode.refused, billingWords.outcomeUnknown, { lines });
    case 'not_sent':
      if (outcome.error instanceof JournalError || !(outcome.error instanceof KeydeckApiError)) return fail(recordExit(outcome.error), lines.join(' '));
      warn('nothing was sent: keydeck reads the total of top-ups before verifying, to recognise its own verification later.');
      throw outcome.error;
    case 'unknown':
      warn('the top-up stays "verifying" on keydeck\'s record: run the same keydeck billing verify again; keydeck recognises its own earlier verification.');
      throw outcome.error;
    case 'refused':
      // What keydeck's record makes of it (which top-up, and whether it still awaits its payment), then the service's refusal.
      warn(lines.join(' '));
      throw outcome.error;
    default:
      throw outcome.error;
  }
}

/** Flags of `billing verify`. */
export interface VerifyFlags extends JsonFlag {
  /** `0x` + 64 hex (required without `--find`). */
  readonly tx?: string;
  /** USD, plain decimal text; must match the amount sent (with `--tx`, default the amount of the one USDC top-up awaiting payment; with `--find` it picks the top-up). */
  readonly amount?: string;
  /** The deposit address the transfer paid: picks the top-up when several await the same amount. */
  readonly to?: string;
  /** Send the verify even when the chain shows a mismatch, without asking. */
  readonly yes?: boolean;
  /** `--find`: watch the awaiting top-up's deposit address on chain instead of a hash. */
  readonly find?: boolean;
  /** `--timeout SECONDS` with `--find` (default 900). */
  readonly timeout?: string;
}

/** What {@link chooseTopUp} settled: the record (when one fits) and the amount to verify. */
export interface ChosenTopUp {
  readonly entryId?: string;
  /** USD. */
  readonly amount: number;
  /** The amount as the command lines keydeck suggests write it. */
  readonly amountText: string;
  readonly depositAddress?: string;
}

/**
 * The record and the amount of `billing verify --tx` : the record
 * verified with this hash before, else the one USDC instruction still open for `amount` (any
 * amount when not given) and `to`. Without `--amount` the amount is that record's, and said so.
 * Several fit: asked on a terminal; else exit 2 naming them and the flag that picks one.
 * @throws CommandFailure exit 2 (no amount can be known, several fit without a terminal), 1 (cancelled)
 */
export async function chooseTopUp(
  ports: Parameters<typeof recordForVerify>[0],
  request: { readonly txHash: string; readonly amount?: number; readonly amountText?: string; readonly to?: string },
  json: boolean,
): Promise<ChosenTopUp> {
  const match = await recordForVerify(ports, request.txHash, request.amount, request.to);
  let entry = match.entry;
  if (match.ambiguous) {
    const list = match.ambiguous;
    if (!canPrompt()) {
      fail(ExitCode.usage, billingWords.severalTopupsUsdcTopUps, { list, amountGiven: request.amount !== undefined });
    }
    process.stderr.write(`${list.length} USDC top-ups await payment:\n${list.map((e, i) => `  ${i + 1}  ${visible(choiceText(e))}\n`).join('')}`);
    const answer = await askLine(`Which one did this transfer pay? [1-${list.length}] `);
    const i = /^\d+$/.test(answer) ? Number(answer) : 0;
    if (i < 1 || i > list.length) fail(ExitCode.refused, billingWords.cancelledSent);
    entry = list[i - 1]!;
  }
  if (request.amount !== undefined) {
    if (!entry) {
      const others = openInstructions(await ports.journal.unfinished(ports.scope));
      if (others.length > 0) {
        warn(
          `no USDC top-up of ${formatUsdCode(request.amount)}${request.to !== undefined ? ` to ${request.to}` : ''} awaits payment on keydeck's record (${visible(others.map(choiceText).join('; '))}): the transfer is verified on its own record`,
        );
      }
    }
    if (entry && Math.round((entry.amountSent ?? entry.amount) * 100) !== Math.round(request.amount * 100)) {
      // One instruction is one record whatever amount is tried: said, so the user knows which.
      say(
        visible(
          `The transfer is verified for ${match.ambiguous ? 'the top-up chosen' : 'the one USDC top-up awaiting payment'}, ${choiceText(entry)}, with ${formatUsdCode(request.amount)} as the amount sent.`,
        ),
        json,
      );
    }
    return {
      amount: request.amount,
      amountText: request.amountText ?? centsText(request.amount),
      ...(entry && { entryId: entry.id }),
      ...(entry?.address !== undefined && { depositAddress: entry.address }),
    };
  }
  if (!entry) fail(ExitCode.usage, billingWords.noTopupAwaitingGiveAmountUsd);
  const amount = entry.amountSent ?? entry.amount;
  const hash = request.txHash.toLowerCase();
  const before = match.entry?.txHash?.toLowerCase() === hash || match.entry?.triedHashes?.includes(hash) === true;
  const why = match.ambiguous ? 'the top-up chosen' : before ? 'the top-up this transaction was verified for before' : 'the one USDC top-up awaiting payment';
  say(visible(`No --amount given: ${why} is ${choiceText(entry)}; verifying the transfer for ${formatUsdCode(amount)}.`), json);
  return { entryId: entry.id, amount, amountText: centsText(amount), ...(entry.address !== undefined && { depositAddress: entry.address }) };
}
