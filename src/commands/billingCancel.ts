/**
 * `keydeck billing cancel SUBSCRIPTION_ID [--yes] [--json]`: stops the renewal
 * of a subscription or pool pledge, `POST /api/billing/cancel` `{ subscriptionId }` (the older
 * billing page, https://docs.cheapestinference.com/api/billing: "Cancels a specific subscription.
 * It stays active until the current billing period ends"). What money it touches is the next
 * period's, so it is a confirmed action, as `keys delete` is:
 *
 * 1. The billing status is read first (its summary, src/api/reader.ts). When it lists no such
 *    subscription or pledge: exit 1 `subscription_unknown`, nothing sent. Already cancelled
 *    (`cancelAtPeriodEnd: true`): said, exit 0, nothing sent. Ended (`expired`, `canceled`):
 *    exit 1 `subscription_not_active`, nothing sent. A status that cannot be read (or has another
 *    shape) does not stop it: the service then decides.
 * 2. It asks on a terminal (what ends when, which keys stop then); without one it needs `--yes`
 *    (exit 2 `confirmation_required`, before anything is sent).
 * 3. The cancel is sent once (never retried: a state-changing call).
 * 4. The status is read again: `cancelAtPeriodEnd: true` → "it stays active until …, then ends";
 *    still renewing → exit 1 `not_confirmed` (the service answered, its status disagrees: check
 *    it); unreadable → what the service answered, and where to check.
 *
 * `--json`: `{ "answer": <the service's answer, or null when nothing was sent>, "subscription":
 * <the entry as the billing status lists it afterwards, or null> }`.
 */
import { summarizeBillingStatus, unwrapEnvelope } from '../api/reader.js';
import { cancelOutcome, cancelQuestion, cancelRefusal, findRenewal, renewalWords, type Renewal } from '../billing/renewals.js';
import { printData, type CommandDeps, type YesFlag } from './api-command.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { parseSubscriptionId } from './input.js';
import { ExitCode, fail, openSession, printLine, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { ensureCanChange } from './changeGuard.js';
import { formatTimestamp } from './table.js';
import { billingWords } from './wordingBilling.js';

/** A subscription or pledge as the status lists it: its summary and its entry as sent. */
interface Listed extends Renewal {
  readonly raw: unknown;
}

/** The entry with `id` in a billing status, or undefined; `readable` false when the status could not be read or summarised. */
async function find(client: Session['client'], id: string): Promise<{ readable: boolean; listed?: Listed }> {
  let status: unknown;
  try {
    status = await client.billing.status();
  } catch {
    // status unreadable: said so by the caller, nothing sent
    return { readable: false };
  }
  const summary = summarizeBillingStatus(status);
  if (!summary) return { readable: false };
  const value = unwrapEnvelope(status).value as Record<string, unknown>;
  const rawOf = (list: unknown) => (Array.isArray(list) ? list.find((e) => typeof e === 'object' && e !== null && (e as { id?: unknown }).id === id) : undefined) ?? null;
  const found = findRenewal(summary, id);
  if (!found) return { readable: true };
  return { readable: true, listed: { ...found, raw: rawOf(found.kind === 'pledge' ? value.poolPledges : value.subscriptions) } };
}

/** `keydeck billing cancel SUBSCRIPTION_ID [--yes] [--json]`: see the module comment. */
export async function billingCancel(globals: GlobalOptions, subscriptionId: string, flags: YesFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const id = parseSubscriptionId(subscriptionId, 'SUBSCRIPTION_ID');
  const command = `keydeck billing cancel ${id}`;
  await ensureCanChange(globals, 'cancel a renewal', deps.session?.env);
  ensureCanConfirm({ yes: flags.yes, command });
  const { client } = await openSession(globals, deps.session);
  try {
    const before = await find(client, id);
    const listed = before.listed;
    const ends = listed?.summary.currentPeriodEnd;
    const refusal = cancelRefusal(listed, id, before.readable);
    if (refusal?.code === 'already') {
      if (flags.json) printData({ answer: null, subscription: listed!.raw });
      else printLine(`The ${renewalWords(listed, id)} already ends at its period end${ends ? ` (${formatTimestamp(ends)})` : ''}: its renewal was cancelled before. Nothing was sent.`);
      return ExitCode.ok;
    }
    if (refusal?.code === 'subscription_unknown') fail(ExitCode.refused, billingWords.subscriptionUnknown, { id });
    if (refusal !== undefined) fail(ExitCode.refused, `${refusal.code}: ${refusal.sentence}`);
    await confirmDestructive({ yes: flags.yes, question: cancelQuestion(listed, id, formatTimestamp), command });
    const answer = await client.billing.cancel(id);
    const after = await find(client, id);
    if (flags.json) {
      printData({ answer: answer ?? null, subscription: after.listed?.raw ?? null });
    }
    const outcome = cancelOutcome(after.listed);
    if (outcome === 'confirmed') {
      const until = after.listed!.summary.currentPeriodEnd ?? ends;
      if (!flags.json)
        printLine(`Cancelled the renewal of the ${renewalWords(after.listed, id)}: it stays active until ${until ? formatTimestamp(until) : 'the end of its current period'}, then ends.`);
      return ExitCode.ok;
    }
    if (outcome === 'disagrees') {
      fail(ExitCode.refused, billingWords.notConfirmed, { renewal: after.listed, id });
    }
    if (!flags.json)
      printLine(
        `The service accepted the cancel of the ${renewalWords(listed, id)}; its billing status does not say it yet: \`keydeck billing status\` shows "cancel at period end: yes" once it does.`,
      );
    return ExitCode.ok;
  } finally {
    client.close();
  }
}
