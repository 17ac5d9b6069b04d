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

/**
 * A connection problem (network_error, timeout, server_error, invalid_response) in a few words, by cause, for the places
 * that are too narrow for the whole sentence (the start of the banner, the header's state):
 * - `headline`: "Offline" (the connection failed), "Offline (no answer in time)" (timeout),
 *   "The service is failing (HTTP 503)" (5xx), "The service's answers are unreadable" (a body
 *   that is not what §2 documents, e.g. malformed JSON);
 * - `state`: "offline", "service failing" or "bad answers" (followed by "since HH:MM:SS").
 * Undefined for every other error (rate limits and 401 have their own words).
 */
export function connectionProblemWords(error: unknown): { headline: string; state: string } | undefined {
  switch (errorCode(error)) {
    case 'network_error':
      return { headline: 'Offline', state: 'offline' };
    case 'timeout':
      return { headline: 'Offline (no answer in time)', state: 'offline' };
    case 'server_error': {
      const status = (error as { status?: unknown }).status;
      return { headline: `The service is failing${typeof status === 'number' ? ` (HTTP ${status})` : ''}`, state: 'service failing' };
    }
    case 'invalid_response':
      return { headline: 'The service’s answers are unreadable', state: 'bad answers' };
    default:
      return undefined;
  }
}

/** One sentence for any failure, with no secret in it. */
export function describeFailure(error: unknown): string {
  return describeApiError(error);
}
