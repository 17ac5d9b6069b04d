/**
 * `keydeck billing cancel SUBSCRIPTION_ID [--yes] [--json]` (issue 43, item 6): stops the renewal
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
import { summarizeBillingStatus, unwrapEnvelope, type StatusPoolPledge, type StatusSubscription } from '../api/reader.js';
import { visible } from '../terminal/sanitize.js';
import { printData, type CommandDeps, type YesFlag } from './api-command.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { parseSubscriptionId } from './input.js';
import { ExitCode, fail, openSession, printLine, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { formatTimestamp } from './table.js';

/** A subscription or pledge as the status lists it: its summary and its entry as sent. */
interface Listed {
  readonly kind: 'subscription' | 'pledge';
  readonly summary: StatusSubscription | StatusPoolPledge;
  readonly raw: unknown;
}

/** The entry with `id` in a billing status, or undefined; `readable` false when the status could not be read or summarised. */
async function find(client: Session['client'], id: string): Promise<{ readable: boolean; listed?: Listed }> {
  let status: unknown;
  try {
    status = await client.billing.status();
  } catch {
    return { readable: false };
  }
  const summary = summarizeBillingStatus(status);
  if (!summary) return { readable: false };
  const value = unwrapEnvelope(status).value as Record<string, unknown>;
  const rawOf = (list: unknown) => (Array.isArray(list) ? list.find((e) => typeof e === 'object' && e !== null && (e as { id?: unknown }).id === id) : undefined) ?? null;
  const pledge = summary.poolPledges.find((p) => p.id === id);
  if (pledge) return { readable: true, listed: { kind: 'pledge', summary: pledge, raw: rawOf(value.poolPledges) } };
  const sub = summary.subscriptions.find((s) => s.id === id);
  if (sub) return { readable: true, listed: { kind: 'subscription', summary: sub, raw: rawOf(value.subscriptions) } };
  return { readable: true };
}

/** `pool pledge kimi26 (europe)` / `subscription pro`: what it is, in words (service text made visible). */
function what(listed: Listed | undefined, id: string): string {
  if (!listed) return `subscription ${id}`;
  if (listed.kind === 'pledge') {
    const p = listed.summary as StatusPoolPledge;
    return visible(`pool pledge ${p.pool ?? id}${p.blocks && p.blocks.length > 0 ? ` (${p.blocks.join(', ')})` : ''}, id ${id}`);
  }
  const s = listed.summary as StatusSubscription;
  return visible(`subscription${s.plan ? ` ${s.plan}` : ''}, id ${id}`);
}

/** True for a status that still runs (`active`, `trialing`, `past_due`, or none said). */
function running(status: string | undefined): boolean {
  return status === undefined || ['active', 'trialing', 'past_due'].includes(status);
}

/** `keydeck billing cancel SUBSCRIPTION_ID [--yes] [--json]`: see the module comment. */
export async function billingCancel(globals: GlobalOptions, subscriptionId: string, flags: YesFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const id = parseSubscriptionId(subscriptionId, 'SUBSCRIPTION_ID');
  const command = `keydeck billing cancel ${id}`;
  ensureCanConfirm({ yes: flags.yes, command });
  const { client } = await openSession(globals, deps.session);
  try {
    const before = await find(client, id);
    const listed = before.listed;
    if (before.readable && !listed) {
      fail(ExitCode.refused, `subscription_unknown: the billing status lists no subscription or pool pledge with id ${visible(id)} (keydeck billing status shows them); nothing was sent`);
    }
    const ends = listed?.summary.currentPeriodEnd;
    if (listed && !running(listed.summary.status)) {
      fail(ExitCode.refused, `subscription_not_active: the ${what(listed, id)} is ${visible(listed.summary.status ?? '')}, so it has no renewal to cancel; nothing was sent`);
    }
    if (listed?.summary.cancelAtPeriodEnd === true) {
      if (flags.json) printData({ answer: null, subscription: listed.raw });
      else printLine(`The ${what(listed, id)} already ends at its period end${ends ? ` (${formatTimestamp(ends)})` : ''}: its renewal was cancelled before. Nothing was sent.`);
      return ExitCode.ok;
    }
    const keys = listed?.kind === 'pledge' ? 'its key stops working then (a new pledge mints a new one)' : 'its keys stop working then';
    await confirmDestructive({
      yes: flags.yes,
      question: `Cancel the renewal of the ${what(listed, id)}? It stays active until ${ends ? formatTimestamp(ends) : 'the end of its current period'} and is not renewed; ${keys}.`,
      command,
    });
    const answer = await client.billing.cancel(id);
    const after = await find(client, id);
    if (flags.json) {
      printData({ answer: answer ?? null, subscription: after.listed?.raw ?? null });
    }
    if (after.listed?.summary.cancelAtPeriodEnd === true) {
      const until = after.listed.summary.currentPeriodEnd ?? ends;
      if (!flags.json) printLine(`Cancelled the renewal of the ${what(after.listed, id)}: it stays active until ${until ? formatTimestamp(until) : 'the end of its current period'}, then ends.`);
      return ExitCode.ok;
    }
    if (after.listed?.summary.cancelAtPeriodEnd === false) {
      fail(ExitCode.refused, `not_confirmed: the service accepted the cancel, but its billing status still says the ${what(after.listed, id)} renews at its period end; check \`keydeck billing status\` (and the service's dashboard) before relying on it`);
    }
    if (!flags.json) printLine(`The service accepted the cancel of the ${what(listed, id)}; its billing status does not say it yet: \`keydeck billing status\` shows "cancel at period end: yes" once it does.`);
    return ExitCode.ok;
  } finally {
    client.close();
  }
}
