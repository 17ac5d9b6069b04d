/**
 * One way to name a key on the command line: every key command (`keys show`, `rotate`, `rename`,
 * `enable`, `disable`, `delete`, `usage`, `mgmt-keys delete`) takes the key's id or its name when
 * only one key has it, resolved from the service's list before any question is asked or anything
 * is changed; a name several keys share lists them, each by id. An argument shaped like a full key
 * value (`sk_…`, `mk_…`, `sk-…`) is refused before any request, shown by its prefix only: a key
 * value never reaches a URL path.
 */
import { ExitCode, fail } from './output.js';
import { keyWords, type KeyLike } from './wordingKeys.js';

/** A full key value as the spec (`sk_…`, `mk_…`) and the newer keys page (`sk-…`) write them. */
const KEY_VALUE = /^(sk|mk)(_[A-Za-z0-9_-]{12,}|-[A-Za-z0-9_-]{16,})$/;

/** What the command names: a consumption key or a management key, and the command that lists them. */
export interface KeyRefKind {
  /** `key` or `management key`, for the sentences. */
  readonly noun: string;
  /** `keydeck keys list` or `keydeck mgmt-keys list`. */
  readonly listCommand: string;
}

/** Consumption keys (`keydeck keys …`). */
export const CONSUMPTION_KEYS: KeyRefKind = { noun: 'key', listCommand: 'keydeck keys list' };
/** Management keys (`keydeck mgmt-keys …`). */
export const MANAGEMENT_KEYS: KeyRefKind = { noun: 'management key', listCommand: 'keydeck mgmt-keys list' };

/**
 * Checks an `ID|NAME` argument before anything is sent: trimmed, not empty, and not a key value.
 * @returns the argument, trimmed
 * @throws CommandFailure exit 2 `invalid_request` (empty; or a key value, shown by its prefix)
 */
export function checkKeyRef(given: string, kind: KeyRefKind = CONSUMPTION_KEYS): string {
  const text = given.trim();
  if (text === '') fail(ExitCode.usage, keyWords.invalidRequestIdNameGive, { noun: kind.noun, listCommand: kind.listCommand });
  if (KEY_VALUE.test(text)) {
    fail(ExitCode.usage, keyWords.invalidRequestIdNameKey, { text, noun: kind.noun, listCommand: kind.listCommand });
  }
  return text;
}

/** What {@link keyByRef} reads of a listed key (./wordingKeys.ts words a candidate of it). */
export type { KeyLike } from './wordingKeys.js';

/**
 * The key `given` names among `keys`: the one with that id, else the one with that name; with
 * `prefer` (e.g. active keys, for a rotation), a name shared by several is taken when exactly one
 * of them is preferred.
 * @throws CommandFailure exit 1 `not_found` (no key has it), or `ambiguous` (several have the
 *   name: each listed by id, with its status and creation date)
 */
export function keyByRef<T extends KeyLike>(keys: readonly T[], given: string, kind: KeyRefKind = CONSUMPTION_KEYS, prefer?: (key: T) => boolean): T {
  const byId = keys.find((k) => k.id === given);
  if (byId) return byId;
  const named = keys.filter((k) => k.name === given);
  const preferred = prefer ? named.filter(prefer) : [];
  const pick = preferred.length > 0 ? preferred : named;
  if (pick.length === 1) return pick[0]!;
  if (pick.length > 1) {
    fail(ExitCode.refused, keyWords.ambiguous, { candidates: pick, noun: kind.noun, given });
  }
  return fail(ExitCode.refused, keyWords.notFoundNoHasId, { noun: kind.noun, given, listCommand: kind.listCommand });
}
