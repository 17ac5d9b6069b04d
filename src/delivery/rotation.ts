/**
 * What rotations of both kinds share: successors' names (`mgmt-keys rotate`'s `NAME-r2`; a
 * consumption key's successor takes the old key's name and the old key becomes
 * `NAME (rotated DATE)`), and which key a name designates. The rotations themselves are the
 * machines of src/operations/rotateKey.ts and mgmtRotate.ts, whose refusals are worded by
 * src/operations/wording.ts.
 */
import type { KeysResource } from '../api/client.js';
import { keyStatus } from '../api/keyStatus.js';
import { MAX_NAME_LENGTH, type ConsumptionKey } from '../api/schemas.js';
import { KeydeckError } from '../errors/index.js';

/**
 * The part of the API client a rotation uses (a `KeydeckClient`, or the TUI's `AccountClient`):
 * the consumption keys, and the service's clock offset (`lastUsedAt` is the service's time).
 */
export interface RotationClient {
  readonly keys: Pick<KeysResource, 'list' | 'createCredit' | 'update' | 'delete'>;
  readonly serviceClockOffsetMs?: number | undefined;
}

/** The service's time now (epoch ms) as `client` knows it. */
export function serviceNowOf(client: Pick<RotationClient, 'serviceClockOffsetMs'>): number {
  return Date.now() + (client.serviceClockOffsetMs ?? 0);
}

/** No key, or more than one, has the id or name given ({@link findKey}). */
export class RotationError extends KeydeckError {
  override readonly name = 'RotationError';
  override readonly code: 'not_found' | 'ambiguous';
  constructor(code: RotationError['code'], message: string) {
    super(code, message);
    this.code = code;
  }
}

/**
 * The successor's default name: `web` → `web-r2`, `web-r2` → `web-r3` (at most 128 characters),
 * numbered on while `taken` holds it.
 */
export function successorName(old: string, taken: readonly string[] = []): string {
  const m = /^(.*)-r(\d{1,6})$/.exec(old);
  const base = m ? m[1]! : old;
  let n = m ? Number(m[2]) + 1 : 2;
  for (;;) {
    const suffix = `-r${n}`;
    const name = `${[...base].slice(0, MAX_NAME_LENGTH - suffix.length).join('')}${suffix}`;
    if (!taken.includes(name)) return name;
    n++;
  }
}

/**
 * The name an old key gets once its successor took its name: `web` → `web (rotated 2026-11-28)`
 * (the UTC date of `at`), then `… 2026-11-28, 2)` while `taken` holds it; at most 128 characters
 * (the base is cut).
 */
export function rotatedName(old: string, at: Date, taken: readonly string[] = []): string {
  const day = at.toISOString().slice(0, 10);
  for (let n = 1; ; n++) {
    const suffix = ` (rotated ${day}${n > 1 ? `, ${n}` : ''})`;
    const name = `${[...old].slice(0, MAX_NAME_LENGTH - suffix.length).join('')}${suffix}`;
    if (!taken.includes(name)) return name;
  }
}

/**
 * The key `idOrName` names among `keys`: by id, else by exact name, the active key first (a
 * rotated predecessor keeps its lineage's name only in `NAME (rotated …)`, but inactive keys of the
 * same name are left aside whatever their origin).
 * @throws RotationError `not_found`, or `ambiguous` (several active keys have that name, or several
 *   inactive ones and no active one: their ids listed)
 */
export function findKey(keys: readonly ConsumptionKey[], idOrName: string): ConsumptionKey {
  const byId = keys.find((k) => k.id === idOrName);
  if (byId) return byId;
  const named = keys.filter((k) => k.name === idOrName);
  const active = named.filter((k) => keyStatus(k) === 'active');
  const pick = active.length > 0 ? active : named;
  if (pick.length === 1) return pick[0]!;
  if (pick.length > 1)
    throw new RotationError('ambiguous', `${pick.length} ${active.length > 0 ? 'active ' : ''}keys are named "${idOrName}": name one by its id (${pick.map((k) => k.id).join(', ')})`);
  throw new RotationError('not_found', `no key has the id or name "${idOrName}"`);
}
