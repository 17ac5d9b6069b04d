/**
 * What kind of token keydeck was given: a management key `mk_…`, a consumption key
 * `sk_…` (inference only: refused as keydeck's credential), or anything else, which is taken as
 * a session token. Tokens are never echoed in the sentences below.
 */
import { CredentialStoreError } from './store.js';

/** `management` (`mk_…`), `consumption` (`sk_…`) or `session` (anything else). */
export type TokenKind = 'management' | 'consumption' | 'session';

/** The kind of `token` by its prefix: `mk_`/`mk-`, `sk_`/`sk-` (the newer keys page writes `sk-`), else a session token. */
export function tokenKind(token: string): TokenKind {
  if (/^mk[_-]/.test(token)) return 'management';
  if (/^sk[_-]/.test(token)) return 'consumption';
  return 'session';
}

/**
 * Returns `token` trimmed when it can be keydeck's credential.
 * @param where how the token reached keydeck, for the sentence (e.g. `KEYDECK_TOKEN`, `the token`).
 * @throws CredentialStoreError `consumption_key` for an `sk_…` (saying what it is and what keydeck
 *   needs), `invalid_token` for an empty token or one with spaces or line breaks inside.
 */
export function checkCredentialToken(token: string, where = 'the token'): string {
  const trimmed = token.trim();
  if (trimmed === '') throw new CredentialStoreError('invalid_token', `${where} is empty: give a session token or a management key (mk_…).`);
  if (/\s/.test(trimmed)) {
    throw new CredentialStoreError('invalid_token', `${where} contains spaces or line breaks: give only the token itself.`);
  }
  if (tokenKind(trimmed) === 'consumption') throw new CredentialStoreError('consumption_key', consumptionKeyRefusal(where));
  return trimmed;
}

/** The sentence refusing an `sk_…` offered as keydeck's credential. */
export function consumptionKeyRefusal(where = 'the token'): string {
  return `${where} is a consumption key (sk_…), which only authorizes inference requests; ` + 'keydeck manages the account and needs a management key (mk_…) or a session token.';
}
