/**
 * `billing topup --method NAME`: which names keydeck sends, checked before anything is
 * asked or sent. A name is known when it is a kind's own (the spec's `usdc`, `card_checkout`,
 * `card_direct`), a name the profile declares for a kind (`topUpMethods`), or the real service's
 * documentation pages' (`stripe`, `stripe_direct`); any other is refused with the names there
 * are, and "did you mean" for a near miss (`card` → card_checkout or card_direct). A name keydeck
 * does not know could charge a card at once, or be a typo for one that does.
 */
import { topUpKindOf } from '../api/client.js';
import { TopUpMethodNameSchema, type TopUpMethod } from '../api/schemas.js';
import { editDistance } from './suggest.js';
import { ExitCode, fail } from './output.js';
import { billingWords } from './wordingBilling.js';

/** What each kind does, as the refusal lists them. */
const KIND_WORDS: Readonly<Record<TopUpMethod, string>> = {
  usdc: 'USDC on Base',
  card_checkout: 'a card checkout page',
  card_direct: 'the card on file',
};

/** The documentation pages' names (src/api/resources/billing.ts knows them too). */
const PAGES_NAMES: Readonly<Record<string, TopUpMethod>> = { stripe: 'card_checkout', stripe_direct: 'card_direct' };

/**
 * The names `--method` accepts, each with its kind: the spec's, the profile's, the pages'.
 * Deduplicated, in that order.
 */
export function knownTopUpMethods(profileNames: Readonly<Partial<Record<TopUpMethod, string>>> = {}): Array<{ name: string; kind: TopUpMethod }> {
  const out = new Map<string, TopUpMethod>();
  for (const kind of ['usdc', 'card_checkout', 'card_direct'] as const) out.set(kind, kind);
  for (const [kind, name] of Object.entries(profileNames)) if (name !== undefined) out.set(name, kind as TopUpMethod);
  for (const [name, kind] of Object.entries(PAGES_NAMES)) if (!out.has(name)) out.set(name, kind);
  return [...out].map(([name, kind]) => ({ name, kind }));
}

/** The known names `input` most likely meant: those it begins (3+ characters), else the nearest within 2 edits. */
function nearMisses(input: string, names: readonly string[]): string[] {
  const word = input.toLowerCase();
  if (word.length >= 3) {
    const starting = names.filter((n) => n.toLowerCase().startsWith(word));
    if (starting.length > 0) return starting;
  }
  const scored = names.map((name) => ({ name, d: editDistance(word, name.toLowerCase()) })).filter((s) => s.d <= 2 && s.d < Math.max(word.length, s.name.length) / 2);
  const best = Math.min(...scored.map((s) => s.d));
  return scored.filter((s) => s.d === best).map((s) => s.name);
}

/**
 * The kind `method` stands for, or a refusal (exit 2) before anything is asked or sent: a name
 * that is no method name at all, or one keydeck does not know (the sentence lists the methods,
 * with "did you mean" for a near miss).
 * @throws CommandFailure exit 2
 */
export function checkTopUpMethod(method: string, profileNames: Readonly<Partial<Record<TopUpMethod, string>>> = {}): TopUpMethod {
  const named = TopUpMethodNameSchema.safeParse(method);
  if (!named.success) fail(ExitCode.usage, billingWords.usageMethodSent, { problem: named.error.issues[0]?.message ?? 'invalid method name' });
  const kind = topUpKindOf(method, profileNames);
  if (kind !== undefined) return kind;
  const known = knownTopUpMethods(profileNames);
  const describe = (name: string) => `${name} (${KIND_WORDS[known.find((k) => k.name === name)!.kind]})`;
  const near = nearMisses(
    method,
    known.map((k) => k.name),
  );
  const list = known.map((k) => describe(k.name)).join(', ');
  const guess = near.length > 0 ? ` Did you mean ${near.map(describe).join(' or ')}?` : '';
  fail(ExitCode.usage, billingWords.unknownMethod, { method, guess, list });
}
