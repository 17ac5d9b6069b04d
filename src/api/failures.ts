/**
 * Turns everything that can go wrong in a call into one {@link KeydeckApiError} with a stable
 * code and one human sentence (what went wrong, what to do). Error bodies are trusted for
 * nothing: a code of ours is taken from any error shape the pages and the seed show
 * ({@link serviceErrorInfo}), else the HTTP status decides (the service's errors shows no error shapes); the
 * service's own sentence, when it sent one, is quoted beside keydeck's. Every text that came from
 * the service is cleaned of control characters, shortened and redacted (the token and any key
 * value) before it reaches a message.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_RETRY_AFTER_MS } from './retry.js';
import { KeydeckApiError, redactSecrets, SERVICE_ERROR_CODES, type ApiErrorCode, type KeydeckApiErrorOptions } from './errors.js';
import { failureSentence, failureSentenceQuoting, failureWords, type FailureSituation, type OperationInfo } from './wording.js';

/** The error codes a service may put in a body (the others are the client's own). */
const SERVICE_CODES: ReadonlySet<string> = new Set<string>(SERVICE_ERROR_CODES);

export type { OperationInfo } from './wording.js';

/** Everything a message may mention, plus the secret to keep out of it. */
export interface FailureContext {
  op: OperationInfo;
  /** The credential of the client: redacted from every message. */
  token: string;
  baseUrl: string;
  /** The whole call's deadline, ms. */
  timeoutMs: number;
  /** Names the credential in 401/403 sentences (never the secret); see client.ts. */
  credential?: { readonly label: string; readonly whenRejected?: string };
}

/** A response body as received: nothing, JSON, or text that is not JSON. */
export type ParsedBody = { kind: 'empty' } | { kind: 'json'; value: unknown } | { kind: 'text'; text: string };

/** Parses a response text; never throws. Whitespace-only counts as empty. */
export function parseBody(text: string): ParsedBody {
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch {
    // not JSON: kept as text, read as such
    return { kind: 'text', text };
  }
}

/** The error facts a body may carry in one of the docs/real-service.md shapes (all optional). */
export interface ServiceErrorInfo {
  code?: ApiErrorCode;
  message?: string;
  field?: string;
}

/**
 * Reads the error facts of every error shape the pages and the seed show, bare or inside
 * `{ success: false, … }`:
 *
 * | shape | code | the service's own words |
 * |---|---|---|
 * | `{ error: "<sentence>" }` (the pages) | when the text is one of ours (`{ error: "not_found" }`) | the text, when it is not a code |
 * | `{ error: { code, message, field } }` (the sandbox) | `code` | `message` |
 * | `{ error: { message } }` | — | `message` |
 * | `{ message }`, `{ code, message }` | `code` | `message` |
 * | `{ error: "<code>", message }` | `error` | `message` |
 *
 * Unknown codes are dropped (the status decides then); only service codes are taken, never the
 * client's transport codes. The words are returned raw: the caller cleans and bounds them.
 */
export function serviceErrorInfo(body: ParsedBody): ServiceErrorInfo {
  if (body.kind !== 'json' || !isRecord(body.value)) return {};
  const root = body.value;
  const inner = isRecord(root.error) ? root.error : root;
  const info: ServiceErrorInfo = {};
  const code = typeof root.error === 'string' && SERVICE_CODES.has(root.error) ? root.error : inner.code;
  if (typeof code === 'string' && SERVICE_CODES.has(code)) info.code = code as ApiErrorCode;
  // The service's sentence: the error's message, the body's message, or the error itself when it
  // is text and not one of our codes (`{ "error": "Credit balance must be greater than 0 …" }`).
  const message = [inner.message, root.message, typeof root.error === 'string' && !SERVICE_CODES.has(root.error) ? root.error : undefined].find(
    (m): m is string => typeof m === 'string' && m.trim() !== '',
  );
  if (message !== undefined) info.message = message;
  if (typeof inner.field === 'string' && inner.field.trim() !== '') info.field = inner.field;
  return info;
}

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Builds the error, redacting the token (and every key value) from the message and field. */
export function makeError(ctx: FailureContext, code: ApiErrorCode, message: string, options: KeydeckApiErrorOptions = {}): KeydeckApiError {
  const field = options.field === undefined ? undefined : clean(options.field, ctx.token, 80);
  return new KeydeckApiError(code, redactSecrets(message, [ctx.token]), { ...options, ...(field !== undefined && { field }) });
}

/** Text from the service, made safe to print: no control characters, short, no secret. */
function clean(text: string, token: string, max = 200): string {
  const flat = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const redacted = redactSecrets(flat, [token]);
  return redacted.length > max ? `${redacted.slice(0, max - 1)}…` : redacted;
}

/**
 * A duration for a message: `250 ms` under a second (never "0 s"), `1.5 s`, `10 s`, `2 min`; the
 * longest wait keydeck accepts from a `Retry-After` says so.
 */
export function formatWait(ms: number): string {
  if (ms >= MAX_RETRY_AFTER_MS) return `${Math.round(MAX_RETRY_AFTER_MS / 60_000)} min (the longest keydeck waits)`;
  if (ms < 1000) return `${Math.max(1, Math.round(ms))} ms`;
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 100) / 10} s`;
}

/** The code for an error status (or a 2xx with `success: false`) whose body names none of ours. */
export function codeForStatus(status: number): ApiErrorCode {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 402) return 'insufficient_balance';
  if (status === 409) return 'tx_already_used';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'invalid_request';
  return 'server_error';
}

/**
 * The error for a response that is a failure: an error status (≥ 400), or any status whose JSON
 * body says `success: false`. The body's own code wins when it is one of ours; otherwise the status
 * decides (401, 403, 404, 400/422, 402, 409, 429, 5xx). The words come from the one wording table
 * (./wording.ts); a 5xx to a state-changing call is reported with `outcomeUnknown` (a gateway may
 * have forwarded it before failing).
 */
export function errorFromResponse(ctx: FailureContext, status: number, body: ParsedBody, retryAfterMs: number | undefined): KeydeckApiError {
  const info = serviceErrorInfo(body);
  const code = info.code ?? codeForStatus(status);
  // The field name comes from the service: cleaned before it enters the sentence, like its message.
  const field = info.field === undefined ? undefined : clean(info.field, ctx.token, 80);
  const words = failureWords(code, {
    ...situationOf(ctx),
    status,
    namedByService: info.code !== undefined,
    ...(field !== undefined && { field }),
    ...(retryAfterMs !== undefined && { retryAfter: formatWait(retryAfterMs) }),
  });
  // The service's own sentence, cleaned and bounded, beside keydeck's.
  const sentence = info.message !== undefined ? failureSentenceQuoting(words, clean(info.message, ctx.token), status >= 400 && status < 500) : failureSentence(words);
  return makeError(ctx, code, `${sentence}.`, {
    status,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    ...(field !== undefined && { field }),
    ...(words.outcomeUnknown === true && { outcomeUnknown: true }),
  });
}

/** What the wording table may mention about a call (./wording.ts), from its context. */
function situationOf(ctx: FailureContext): FailureSituation {
  return { op: ctx.op, baseUrl: ctx.baseUrl, wait: formatWait(ctx.timeoutMs), ...(ctx.credential !== undefined && { credential: ctx.credential }) };
}

/** The error for a redirect: never followed (the credential would go along with it). */
export function errorFromRedirect(ctx: FailureContext, status: number, headers: IncomingHttpHeaders): KeydeckApiError {
  const redirectTo = typeof headers.location === 'string' ? clean(headers.location, ctx.token) : '';
  return makeError(ctx, 'invalid_response', `${failureSentence(failureWords('invalid_response', { ...situationOf(ctx), status, redirectTo }))}.`, { status });
}

/** The error for a change a read-only client refuses before sending (`reason`: why it is read-only). */
export function errorFromReadOnly(ctx: FailureContext, reason: string): KeydeckApiError {
  return makeError(ctx, 'read_only', `${failureSentence(failureWords('read_only', { ...situationOf(ctx), readOnly: reason }))}.`);
}

/** The error for a call that got no complete answer within the deadline. */
export function errorFromTimeout(ctx: FailureContext, possiblySent: boolean): KeydeckApiError {
  const words = failureWords('timeout', { ...situationOf(ctx), possiblySent });
  return makeError(ctx, 'timeout', `${failureSentence(words)}.`, words.outcomeUnknown === true ? { outcomeUnknown: true } : possiblySent ? {} : { nothingSent: true });
}

/** The error for a connection that failed (`code` is Node's: ECONNREFUSED, ECONNRESET, …). */
export function errorFromNetwork(ctx: FailureContext, code: string, possiblySent: boolean): KeydeckApiError {
  const words = failureWords('network_error', { ...situationOf(ctx), possiblySent, transportCode: code });
  return makeError(ctx, 'network_error', `${failureSentence(words)}.`, {
    transportCode: code,
    ...(words.outcomeUnknown === true && { outcomeUnknown: true }),
    ...(!possiblySent && { nothingSent: true }),
  });
}

/**
 * The error for a successful status whose body is not what the service's resources documents. `field` is the path of
 * the first wrong field (`[2].id`, `data.remaining`), or undefined when the whole body is wrong.
 */
export function errorFromInvalidResponse(ctx: FailureContext, status: number, rawField: string | undefined, rawProblem: string): KeydeckApiError {
  // A path may hold the service's own object keys, a problem its values: both cleaned.
  const field = rawField === undefined ? undefined : clean(rawField, ctx.token, 80);
  const problem = clean(rawProblem, ctx.token);
  const words = failureWords('invalid_response', { ...situationOf(ctx), status, problem, ...(field !== undefined && { field }) });
  return makeError(ctx, 'invalid_response', `${failureSentence(words)}.`, { status, ...(field !== undefined && { field }) });
}
