/**
 * How the TUI reads failures: the API client's KeydeckApiError codes, an AbortError of a
 * cancelled call, and the credential store's errors, each as one sentence for the status line.
 */
import { describeApiError } from '../api/describe.js';
import { KeydeckApiError, isAbortError } from '../api/errors.js';

export { isAbortError };

/** The `code` of a KeydeckApiError (or of any error carrying a string `code`). */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The service answered 401: the credential in use was rejected (revoked or deleted). */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof KeydeckApiError && (error.code === 'unauthorized' || error.status === 401);
}

/** The service could not be reached or answered with a server-side failure. */
export function isConnectionProblem(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'network_error' || code === 'timeout' || code === 'server_error' || code === 'invalid_response';
}

/** One sentence for any failure, with no secret in it. */
export function describeFailure(error: unknown): string {
  return describeApiError(error);
}
