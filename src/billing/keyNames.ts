/**
 * Key names taken: two consumption keys with one name are allowed by the service, but
 * every later command that names a key by its name (`keydeck keys rotate web`) then fails as
 * ambiguous. The create and rename paths of both faces ask {@link keyNamed} before anything is
 * sent, and say who has the name with {@link takenByWords}.
 */
import type { ConsumptionKey } from '../api/schemas.js';

/**
 * The key among `keys` already named `name` (exactly, as a name lookup matches it), other than
 * `exceptId` (the key being renamed); undefined when the name is free.
 */
export function keyNamed(keys: readonly ConsumptionKey[], name: string, exceptId?: string): ConsumptionKey | undefined {
  return keys.find((k) => k.name === name && k.id !== exceptId);
}

/** Who has the name, for a sentence: `the credit key made 2026-02-27 (id d1d3b9df-…)`. */
export function takenByWords(key: ConsumptionKey): string {
  const kind = key.keyType === 'subscription' ? 'subscription key' : 'credit key';
  const made = /^\d{4}-\d\d-\d\d/.exec(key.createdAt)?.[0];
  return `the ${kind}${made ? ` made ${made}` : ''} (id ${key.id})`;
}

/** Why a second key with the name is a problem, in one clause. */
export const DUPLICATE_NAME_TROUBLE = 'commands that name a key by its name could then no longer tell the two apart';
