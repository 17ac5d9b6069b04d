/**
 * `KEYDECK_TOKEN`: a session token or `mk_…` key given in the environment. It overrides the
 * stored key of every profile and is never stored.
 */
import type { StoredCredential } from './store.js';
import { checkCredentialToken } from './token.js';

/** The name of the environment variable. */
export const TOKEN_ENV_VAR = 'KEYDECK_TOKEN';

/**
 * The credential from `env.KEYDECK_TOKEN` (source `env`), or undefined when it is unset or empty.
 * @throws CredentialStoreError `consumption_key` (an `sk_…`), `invalid_token` (spaces inside).
 */
export function envCredential(env: NodeJS.ProcessEnv): StoredCredential | undefined {
  const raw = env[TOKEN_ENV_VAR];
  if (raw === undefined || raw.trim() === '') return undefined;
  return { token: checkCredentialToken(raw, TOKEN_ENV_VAR), source: 'env' };
}
