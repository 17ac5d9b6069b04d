/**
 * A pledge's key (issue 23, issue 42): `keys create --subscription ID` (and the TUI's mint from the
 * Keys pane) mints the one active key of a subscription or pool pledge (`POST
 * /api/keys/subscription`), then delivers or shows it like any new key. It walks the machine of
 * ./createKey.ts with the record kind `pledge`; what differs is here.
 *
 * The service allows one active key per subscription, so a key whose value was lost (keydeck
 * killed after the service minted it, an answer it could not read without the value in it) would
 * block minting its replacement: the lost key is deactivated first (reversible: the subscription
 * stays entitled to a key), and deleted once the replacement is delivered. Before minting, the
 * usual refusal (src/billing/pledges.ts `mintRefusal`: an active key exists, the pledge ended)
 * leaves out this operation's own keys.
 *
 * | stage       | what is true                                               | finish, rerun, the TUI's next start | undo |
 * |-------------|------------------------------------------------------------|-------------------------------------|------|
 * | `creating`  | the mint may have been sent; its key's id and value unknown | keys of the pledge (or of the name) made since are lost: deactivated, a new key minted, the lost ones deleted once it is delivered | keys made since deleted: the pledge has no key again |
 * | `created`   | the key exists (id, fingerprint); `targets` say how far each destination got | the value read back from a file holding it, delivered to the rest; none does: lost, as above | files put back; the key deleted unless a command took it |
 * | `showing`   | no destination: the key is on the screen                   | named, with how to delete it if its value was not kept | deleted |
 */
import type { BillingStatusSummary } from '../api/reader.js';
import type { ConsumptionKey } from '../api/schemas.js';
import { mintRefusal, subscriptionIdOf } from '../billing/pledges.js';
import type { KeyOperation } from './record.js';

/**
 * Why the key of `subscriptionId` must not be minted now (src/billing/pledges.ts `mintRefusal`),
 * leaving out the keys `own` (this operation's, whose value was lost: they are deactivated first).
 */
export function pledgeMintRefusal(subscriptionId: string, summary: BillingStatusSummary | undefined, keys: readonly ConsumptionKey[], own: readonly string[] = []): string | undefined {
  const others = keys.filter((k) => !own.includes(k.id));
  const refusal = mintRefusal(subscriptionId, summary, others);
  // The status's `hasKey: true` may count a key of this operation that is being replaced.
  if (refusal !== undefined && own.length > 0 && /hasKey: true/.test(refusal)) return undefined;
  return refusal;
}

/**
 * The keys a `creating` operation may have made: of its subscription when the list says it (else
 * of its name), made since it started (less a window for clock skew), not already known.
 */
export function keysMadeBy(op: Pick<KeyOperation, 'kind' | 'name' | 'subscriptionId' | 'startedAt' | 'lost' | 'key'>, keys: readonly ConsumptionKey[], windowMs: number): ConsumptionKey[] {
  const since = Date.parse(op.startedAt) - windowMs;
  return keys.filter((k) => {
    if (op.lost.includes(k.id) || k.id === op.key.id || !(Date.parse(k.createdAt) >= since)) return false;
    if (op.kind !== 'pledge') return k.name === op.name;
    const sub = subscriptionIdOf(k);
    return sub !== undefined ? sub === op.subscriptionId : k.name === op.name;
  });
}

/** The lost keys of a pledge that are still active: deactivated before a new mint (one active key per subscription). */
export function activeLost(op: Pick<KeyOperation, 'lost'>, keys: readonly ConsumptionKey[]): ConsumptionKey[] {
  return keys.filter((k) => op.lost.includes(k.id) && k.isActive);
}
