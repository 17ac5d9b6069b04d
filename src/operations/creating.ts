/**
 * What the operations that create a key (./createKey.ts, ./rotateKey.ts) decide alike when the
 * service's creating call fails: whether a key may exist all the same (then the operation stays
 * recorded at `creating`, for the finish to find it), and the warning for an answer keydeck could
 * not fully read but that held the key's value (src/api/salvage.ts, I2).
 */
import { KeydeckApiError } from '../api/errors.js';
import type { SalvagedKey } from '../api/salvage.js';
import type { TargetState } from '../delivery/recordSchemas.js';

/**
 * True when a failed creating call may have made a key: anything but a refusal (an unknown
 * outcome, an answer that came, 2xx, but could not be read, an error that is not the client's).
 */
export function mayHaveCreated(err: unknown): boolean {
  return !(err instanceof KeydeckApiError) || err.outcomeUnknown === true || err.code === 'invalid_response';
}

/**
 * True when a fresh operation can be dropped from its record after a refusal: no earlier key of
 * it is still to delete (`lost`) and no destination was touched.
 */
export function untouched(lost: readonly string[], targets: readonly TargetState[]): boolean {
  return lost.length === 0 && targets.every((t) => t.state === 'pending' && t.ran !== true);
}

/** The warning of an answer read only in part: what was unexpected, and where the value was found. */
export function salvageWarning(err: unknown, salvaged: SalvagedKey, what: string, idKnown: boolean): string {
  const problem = err instanceof Error ? err.message.replace(/\.$/, '') : String(err);
  return `the service's answer could not be fully read (${problem}), but it held ${what}'s value (in ${salvaged.field}): keydeck goes on with it${idKnown ? '' : '; its id is not known'}`;
}
