/**
 * One human sentence for any error a caller of the API client may catch, for the TUI's status
 * line and the commands' stderr.
 */
import { isAbortError, KeydeckApiError, redactSecrets } from './errors.js';

/**
 * Says what went wrong and what to do, in one sentence ending with a period, with no secret in it:
 * - a {@link KeydeckApiError}: its own message (the client writes complete sentences);
 * - an `AbortError` (a cancelled call): "The request was cancelled.";
 * - another typed error of keydeck (a named error class with a string `code`, such as
 *   CredentialStoreError): its message, redacted;
 * - anything else: "Unexpected error: …" with its message redacted (key values, Bearer credentials).
 * Never throws.
 */
export function describeApiError(error: unknown): string {
  if (error instanceof KeydeckApiError) return error.message;
  if (isAbortError(error)) return 'The request was cancelled.';
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const flat = redactSecrets(message.replace(/\s+/g, ' ').trim()).replace(/\.$/, '');
  if (flat === '') return 'Unexpected error: try again, and report it if it persists.';
  const typed = error instanceof Error && error.name !== 'Error' && typeof (error as { code?: unknown }).code === 'string';
  return typed ? `${flat}.` : `Unexpected error: ${flat}.`;
}
