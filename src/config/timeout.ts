/**
 * `KEYDECK_TIMEOUT_MS`: the deadline of each call to the service, in milliseconds, retries and
 * waits included (the API client's `timeoutMs`; its default is 10,000 ms). Raise it on a slow
 * link; tests lower it so that a hung service is reported within a second or two.
 */

/** The environment variable read by {@link requestTimeoutFromEnv}. */
export const TIMEOUT_ENV_VAR = 'KEYDECK_TIMEOUT_MS';

/**
 * The call deadline from `KEYDECK_TIMEOUT_MS`, in ms, or undefined (use the client's default)
 * when the variable is unset, empty, not a number, not positive, or above 2^31−1 (what a timer
 * accepts). Never throws: a bad value falls back to the default, as KEYDECK_KEYCHAIN_TIMEOUT_MS does.
 */
export function requestTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[TIMEOUT_ENV_VAR];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value > 0 && value <= 2_147_483_647 ? value : undefined;
}
