/**
 * A creating answer keydeck cannot fully read still holds the key (I2): when the answer
 * of `POST /api/keys/credit` (or another that creates a key) fails its schema — an `sk-…` value,
 * `keyType`, `isActive` or `createdAt` missing — the key exists on the service and its one-time
 * value is in that answer. The client's `invalid_response` error then carries what was found
 * ({@link salvagedKeyOf}): the value from any field (the top-level `apiKey` first), and the id and
 * name when they are there, so that the operation delivers or shows it with a warning instead of
 * losing it. The value is held in a property that is not enumerable: no message, `JSON.stringify`
 * or `util.inspect` of the error shows it.
 */
import type { KeydeckApiError } from './errors.js';
import type { ParsedBody } from './failures.js';

/** What a creating answer that could not be read held. */
export interface SalvagedKey {
  /** The full key value (`sk_…`, `sk-…`, `mk_…`). */
  readonly apiKey: string;
  /** The field it was found in (`apiKey`, `data.key`). */
  readonly field: string;
  /** The key's id, when the answer has a text `id`. */
  readonly id?: string;
  /** Its name, when the answer has a text `name`. */
  readonly name?: string;
}

/** A full key value: `sk`/`mk`, `_` or `-`, then at least 16 key characters. */
const FULL_KEY = /^(?:sk|mk)[-_][A-Za-z0-9_-]{16,}$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first full key value in `value` (depth first, the top-level `apiKey` before the rest), with its path. */
function findKey(value: unknown, at: string, depth: number): { apiKey: string; field: string } | undefined {
  if (typeof value === 'string') return FULL_KEY.test(value.trim()) ? { apiKey: value.trim(), field: at || '(the whole answer)' } : undefined;
  if (depth > 8 || typeof value !== 'object' || value === null) return undefined;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  const ordered = [...entries.filter(([k]) => k === 'apiKey'), ...entries.filter(([k]) => k !== 'apiKey')];
  for (const [k, v] of ordered) {
    const found = findKey(v, at ? `${at}.${k}` : k, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** What {@link attachSalvage} can find in `body`, or undefined when it holds no key value. */
export function salvageCreatedKey(body: ParsedBody): SalvagedKey | undefined {
  if (body.kind !== 'json') {
    if (body.kind !== 'text') return undefined;
    const m = /\b(?:sk|mk)[-_][A-Za-z0-9_-]{16,}/.exec(body.text);
    return m ? { apiKey: m[0], field: '(the text of the answer)' } : undefined;
  }
  const top = isObject(body.value) && body.value.success === true && isObject(body.value.data) ? body.value.data : body.value;
  const prefix = top === body.value ? '' : 'data';
  const found = findKey(top, prefix, 0);
  if (!found) return undefined;
  const record = isObject(top) ? top : {};
  return {
    ...found,
    ...(typeof record.id === 'string' && record.id !== '' && { id: record.id }),
    ...(typeof record.name === 'string' && { name: record.name }),
  };
}

/** Puts what {@link salvageCreatedKey} found in `body` on `error` (not enumerable); returns `error`. */
export function attachSalvage(error: KeydeckApiError, body: ParsedBody): KeydeckApiError {
  const salvaged = salvageCreatedKey(body);
  if (salvaged) Object.defineProperty(error, 'salvagedKey', { value: salvaged, enumerable: false, writable: false, configurable: false });
  return error;
}

/** The key value a failed creating answer held (see the module comment), or undefined. */
export function salvagedKeyOf(error: unknown): SalvagedKey | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const v = (error as { salvagedKey?: unknown }).salvagedKey;
  return isObject(v) && typeof v.apiKey === 'string' ? (v as unknown as SalvagedKey) : undefined;
}
