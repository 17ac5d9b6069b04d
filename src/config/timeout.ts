/**
 * `KEYDECK_TIMEOUT_MS`: the deadline of each call to the service, in milliseconds, retries and
 * waits included (the API client's `timeoutMs`; its default is 10,000 ms). Raise it on a slow
 * link; tests lower it so that a hung service is reported within a second or two.
 */

/** The environment variable read by {@link requestTimeoutFromEnv}. */
export const TIMEOUT_ENV_VAR = 'KEYDECK_TIMEOUT_MS';

/**
 * A deadline in ms from the environment variable `name`, or undefined (use the default) when it
 * is unset, empty, not a number, not positive, or above 2^31−1 (what a timer accepts). Never
 * throws: a bad value falls back to the default. Reads `KEYDECK_TIMEOUT_MS` and
 * `KEYDECK_KEYCHAIN_TIMEOUT_MS`.
 */
export function positiveMsFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value > 0 && value <= 2_147_483_647 ? value : undefined;
}

/** The call deadline from `KEYDECK_TIMEOUT_MS`, in ms, or undefined (the client's default). */
export function requestTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  return positiveMsFromEnv(env, TIMEOUT_ENV_VAR);
}

/** `{ timeoutMs }` for a KeydeckClient's options from `KEYDECK_TIMEOUT_MS`, or `{}` (the client's default). */
export function clientTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): { timeoutMs?: number } {
  const timeoutMs = requestTimeoutFromEnv(env);
  return timeoutMs === undefined ? {} : { timeoutMs };
}
