/**
 * A pledge's key: `keys create --subscription ID` (and the TUI's mint from the Keys pane) mints
 * the one active key of a subscription or pool pledge (`POST /api/keys/subscription`), then
 * delivers or shows it like any new key: the machine of ./createKey.ts with the record kind
 * `pledge`; what differs is here.
 *
 * The service allows one active key per subscription, so a key whose value was lost (keydeck
 * killed after the service minted it, an answer it could not read without the value in it) would
 * block minting its replacement: the lost key is deactivated first (reversible: the subscription
 * stays entitled to a key), and deleted once the replacement is delivered. Before minting, the
 * usual refusal (src/billing/pledges.ts `mintRefusalOf`: an active key exists, the pledge ended)
 * leaves out this operation's own keys.
 *
 * | state       | what is true                                               | finish, rerun, the TUI's next start | undo |
 * |-------------|------------------------------------------------------------|-------------------------------------|------|
 * | `creating`  | the mint may have been sent; its key's id and value unknown | keys of the pledge (or of the name) made since are lost: deactivated, a new key minted, the lost ones deleted once it is delivered | keys made since deleted: the pledge has no key again |
 * | `created`   | the key exists (id, fingerprint); `targets` say how far each destination got | the value read back from a file holding it, delivered to the rest; none does: lost, as above | files put back; the key deleted unless a command took it |
 * | `showing`   | no destination: the key is on the screen                   | named, with how to delete it if its value was not kept | deleted |
 */
import { summarizeBillingStatus } from '../api/reader.js';
import type { ConsumptionKey } from '../api/schemas.js';
import { mintRefusalOf, subscriptionIdOf } from '../billing/pledges.js';
import { OperationError, step, type Step } from './kit.js';
import type { KeyOperation } from './keyOperationRecord.js';
import { listedKeys, type MintContext, type MintMemo } from './mint.js';

/** What the pledge's steps read besides the keys: the billing status. */
type PledgeContext = MintContext & { readonly client: MintContext['client'] & { readonly billing?: { status(): Promise<unknown> } } };

/** True for a listed key the operation may have made: of its subscription when the list says it, else of its name. */
export function pledgeMine(op: Pick<KeyOperation, 'name' | 'subscriptionId'>, key: ConsumptionKey): boolean {
  const sub = subscriptionIdOf(key);
  return sub !== undefined ? sub === op.subscriptionId : key.name === op.name;
}

/**
 * Refuses the mint of `subscriptionId`'s key when src/billing/pledges.ts finds a reason, leaving
 * out the keys `own` (this operation's, whose value was lost: they are deactivated first). A
 * status or list that cannot be read does not stop it: the service then decides.
 * @throws OperationError `mint_refused` (nothing was sent)
 */
export async function pledgeMintCheck(ctx: PledgeContext, subscriptionId: string, own: readonly string[]): Promise<void> {
  // Unreadable, each is left out of the check: the service then decides (its refusal is a failure of its own).
  const [status, keys] = await Promise.all([ctx.client.billing?.status().catch(() => undefined), ctx.client.keys.list().catch(() => [])]);
  const refusal = mintRefusalOf(
    subscriptionId,
    summarizeBillingStatus(status),
    keys.filter((k) => !own.includes(k.id)),
  );
  // The status's `hasKey: true` may count a key of this operation that is being replaced.
  if (refusal === undefined || (refusal.code === 'pledge_has_key' && own.length > 0)) return;
  throw new OperationError({ code: 'mint_refused', refusal });
}

/**
 * Before a pledge's mint: taken up, the refusal checked again (its own lost keys left out); then
 * each lost key still active deactivated, one step each.
 */
export async function pledgeBeforeMint(ctx: PledgeContext, op: KeyOperation, memo: MintMemo): Promise<Step<KeyOperation> | undefined> {
  if (memo.mode !== 'run' && !memo.done.has('mint-check') && op.subscriptionId !== undefined) {
    memo.done.add('mint-check');
    await pledgeMintCheck(ctx, op.subscriptionId, op.lost);
  }
  if (op.lost.length === 0) return undefined;
  const active = (await listedKeys(ctx, memo)).find((k) => op.lost.includes(k.id) && k.isActive && !memo.done.has(`deactivate:${k.id}`));
  if (!active) return undefined;
  return step(`deactivate:${active.id}`, () => ctx.client.keys.update(active.id, { isActive: false }));
}
