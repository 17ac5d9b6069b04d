/**
 * A key's fingerprint: what an operation's record keeps of a key it created instead of
 * the key, so that recovery can tell whether a destination holds that key by reading it, without
 * keydeck ever storing the key. SHA-256 of the value: a key is 40 random characters or more
 * (about 238 bits), far beyond a search, so its digest says nothing of it.
 */
import { createHash } from 'node:crypto';

/** `sha256:<64 hex>` of `key` (UTF-8). */
export function keyFingerprint(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}
