/**
 * How the TUI reads failures: the API client's KeydeckApiError codes, an AbortError of a
 * cancelled call, and the credential store's errors, each as one sentence for the status line.
 */
import { describeApiError } from '../api/describe.js';
import { KeydeckApiError, isAbortError } from '../api/errors.js';
import { failureWords } from '../api/wording.js';
import type { OperationFailure } from '../operations/events.js';
import { failureLine } from '../operations/wording.js';
import { belowSentence } from '../words/index.js';

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
 * - `headline`: "Offline" (the connection failed), "Certificate not trusted" (TLS refused the
 *   service's certificate), "Offline (no answer in time)" (timeout),
 *   "The service is failing (HTTP 503)" (5xx), "The service's answers are unreadable" (a body
 *   that is not what the service's resources documents, e.g. malformed JSON);
 * - `state`: "offline", "service failing" or "bad answers" (followed by "since HH:MM:SS").
 * Undefined for every other error (rate limits and 401 have their own words).
 */
export function connectionProblemWords(error: unknown): { headline: string; state: string } | undefined {
  const code = errorCode(error);
  if (code !== 'network_error' && code !== 'timeout' && code !== 'server_error' && code !== 'invalid_response') return undefined;
  const { status, transportCode } = error as { status?: unknown; transportCode?: unknown };
  // The short forms are rows of the one wording table (src/api/wording.ts); the operation does not change them.
  const words = failureWords(code, {
    op: { name: 'poll', what: 'read', changesState: false },
    baseUrl: '',
    ...(typeof status === 'number' && { status }),
    ...(typeof transportCode === 'string' && { transportCode }),
  });
  return words.headline !== undefined && words.state !== undefined ? { headline: words.headline, state: words.state } : undefined;
}

/** One sentence for any failure, with no secret in it (an operation's in the TUI's words of src/operations/wording.ts). */
export function describeFailure(error: unknown): string {
  // An operation's failure (src/operations/kit.ts OperationError), read by its shape: the status line does not load the machines.
  const failure = error instanceof Error && error.name === 'OperationError' ? (error as Error & { failure?: OperationFailure }).failure : undefined;
  if (failure) return failureLine(failure, 'tui');
  // A lower layer's coded error whose way out is a command the TUI has no key for (src/words).
  const below = belowSentence(error);
  if (below !== undefined) return /[.!?]$/.test(below) ? below : `${below}.`;
  return describeApiError(error);
}
