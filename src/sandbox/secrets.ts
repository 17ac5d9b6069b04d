/**
 * Key and token values, their hashes, and the other random identifiers of the sandbox.
 *
 * Full key values exist only in the response that creates them: the database keeps the SHA-256
 * hash (and, for `mk_` keys, the display prefix of the management key's fields), looks a presented value up by hash and
 * confirms it with `crypto.timingSafeEqual`.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters drawn uniformly from [0-9A-Za-z] (rejection sampling over random bytes). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue; // 248 = 4 × 62: keeps the draw uniform
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Characters after the `sk_` / `mk_` prefix of a key value. */
export const KEY_BODY_LENGTH = 40;

/** A new consumption key value: `sk_` + 40 base62 characters. */
export function newConsumptionKeyValue(): string {
  return `sk_${randomBase62(KEY_BODY_LENGTH)}`;
}

/** A new management key value: `mk_` + 40 base62 characters. */
export function newManagementKeyValue(): string {
  return `mk_${randomBase62(KEY_BODY_LENGTH)}`;
}

/** A new session token: `sess_` + 40 base62 characters (the sandbox's "auth token" of the service's authentication). */
export function newSessionToken(): string {
  return `sess_${randomBase62(KEY_BODY_LENGTH)}`;
}

/** SHA-256 of a key or token value (32 bytes): what the database stores and indexes. */
export function hashSecret(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** Constant-time comparison of two stored/computed hashes; false when the lengths differ. */
export function hashesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A fresh simulated deposit address on Base: `0x` + 40 lower-case hex digits. */
export function newDepositAddress(): string {
  return `0x${randomBytes(20).toString('hex')}`;
}

/** A fresh simulated transaction hash: `0x` + 64 lower-case hex digits. */
export function newTxHash(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

/** A fresh opaque identifier with a readable prefix, e.g. `cs_sandbox_…` (checkout session). */
export function newOpaqueId(prefix: string): string {
  return `${prefix}${randomBase62(24)}`;
}

/**
 * Every token shape the sandbox hands out, in any text it logs or echoes: key values (`sk_`,
 * `mk_`), session tokens (`sess_`), checkout session ids (`cs_…`: a capability, the page pays
 * without auth), payment ids, Bearer credentials, also percent-encoded (`mk%5F…`) as they appear
 * in URL paths. Each becomes its prefix and `[redacted]`.
 */
const TOKEN_SHAPES = /\b(sk|mk|sess|cs|pi)(_|%5[fF])([A-Za-z0-9]+(?:(?:_|%5[fF])[A-Za-z0-9]+)*)/g;
const BEARER = /(Bearer(?:\s|%20)+)[^\s"',;/]+/gi;

/** `text` with every token shape of the sandbox redacted (see {@link TOKEN_SHAPES}); for its log lines and echoed paths. */
export function redactLogSecrets(text: string): string {
  return text.replace(BEARER, '$1[redacted]').replace(TOKEN_SHAPES, (_match, kind: string, sep: string) => `${kind}${sep}[redacted]`);
}
