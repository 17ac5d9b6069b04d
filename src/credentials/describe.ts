/**
 * Words for the credential in use, never the secret: where it came from and what it is, for every
 * failure that concerns it, and what to do when the service rejects it. A rejected
 * `KEYDECK_TOKEN` must never lead to a setup whose result the variable would override again. How
 * to sign in again is the face's own (a command names `keydeck auth login`, the TUI its guided
 * setup): the caller gives it.
 */
import { TOKEN_ENV_VAR } from './env.js';
import type { CredentialSource } from './store.js';
import { tokenKind } from './token.js';

/**
 * Where a credential came from: the store's sources, `memory` (the TUI's "this session only"),
 * or `sandbox` (`keydeck --sandbox <command>` with no key stored: the sandbox's demo session token).
 */
export type CredentialOrigin = CredentialSource | 'memory' | 'sandbox';

/** The label and the rejected-credential advice of {@link describeCredential}. */
export interface CredentialWords {
  /** `KEYDECK_TOKEN (management key mk_12345678)`, `the management key mk_12345678 stored in the keychain for profile "default"`. */
  readonly label: string;
  /** The next step when the service answers 401 to it. */
  readonly whenRejected: string;
}

/** `mk_` and the 8 characters after it (the spec's `keyPrefix` form); undefined for other tokens. */
function prefixOf(token: string): string | undefined {
  return tokenKind(token) === 'management' ? token.slice(0, 11) : undefined;
}

/**
 * Describes the credential `token` from `origin` for profile `profile`; `signIn` is the face's
 * next step when a stored credential is rejected (`sign in again: keydeck auth login`).
 */
export function describeCredential(token: string, origin: CredentialOrigin, profile: string, signIn: string): CredentialWords {
  const prefix = prefixOf(token);
  const what = prefix ? `management key ${prefix}` : 'session token';
  const login = signIn;
  switch (origin) {
    case 'env':
      return {
        label: `${TOKEN_ENV_VAR} (${what})`,
        whenRejected: `unset ${TOKEN_ENV_VAR} to use the key stored for profile "${profile}", or set a valid one`,
      };
    case 'keychain':
      return { label: `the ${what} stored in the keychain for profile "${profile}"`, whenRejected: login };
    case 'file':
      return { label: `the ${what} stored in the plaintext file for profile "${profile}"`, whenRejected: login };
    case 'memory':
      return { label: `the ${what} kept for this session only`, whenRejected: login };
    case 'sandbox':
      return {
        label: `the sandbox's demo ${what}`,
        whenRejected: 'the sandbox database may have been replaced: run the command again (keydeck reads the demo token afresh)',
      };
  }
}
