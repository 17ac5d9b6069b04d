/**
 * Turns everything that can go wrong in a call into one {@link KeydeckApiError} with a stable
 * code and one human sentence (what went wrong, what to do). Error bodies are trusted for
 * nothing: the DESIGN.md shape (`{ error: { code, message, field? } }`, also inside the billing
 * envelope) is used when present, anything else degrades to the HTTP status (§7 shows no error
 * shapes). Every text that came from the service is cleaned of control characters, shortened
 * and redacted (the token and any key value) before it reaches a message.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_RETRY_AFTER_MS } from './retry.js';
import { KeydeckApiError, redactSecrets, SERVICE_ERROR_CODES, type ApiErrorCode, type KeydeckApiErrorOptions } from './errors.js';

/** The error codes a service may put in a body (the others are the client's own). */
const SERVICE_CODES: ReadonlySet<string> = new Set<string>(SERVICE_ERROR_CODES);

/** Which call failed, in words for messages. */
export interface OperationInfo {
  /** The client method: `verifyTopUp`. */
  name: string;
  /** Infinitive phrase: `create the credit key`. */
  what: string;
  /** What to look at before trying a state-changing call again: `list the keys`. */
  check?: string;
  /** True for POST/PUT/DELETE: such calls are never retried and may end with an unknown outcome. */
  changesState: boolean;
  /** True when the call names one item by id (a 404 then means "no such item"). */
  byId?: boolean;
}

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
    return { kind: 'text', text };
  }
}

/** The error facts a body may carry in one of the DESIGN.md shapes (all optional). */
export interface ServiceErrorInfo {
  code?: ApiErrorCode;
  message?: string;
  field?: string;
}

/**
 * Reads `{ error: { code, message, field } }` (bare or inside `{ success: false, … }`), and the
 * lenient variants `{ error: "<code>" }` and `{ code, message }`. Unknown codes are dropped
 * (the status decides then); only service codes are taken, never the client's transport codes.
 */
export function serviceErrorInfo(body: ParsedBody): ServiceErrorInfo {
  if (body.kind !== 'json' || !isRecord(body.value)) return {};
  const root = body.value;
  const inner = isRecord(root.error) ? root.error : root;
  const info: ServiceErrorInfo = {};
  const code = typeof root.error === 'string' ? root.error : inner.code;
  if (typeof code === 'string' && SERVICE_CODES.has(code)) info.code = code as ApiErrorCode;
  const message = typeof inner.message === 'string' ? inner.message : undefined;
  if (message !== undefined && message.trim() !== '') info.message = message;
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
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ').replace(/\s+/g, ' ').trim();
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
 * decides (401, 403, 404, 400/422, 402, 409, 429, 5xx). A 5xx to a state-changing call is
 * reported with `outcomeUnknown` (a gateway may have forwarded it before failing).
 */
export function errorFromResponse(
  ctx: FailureContext,
  status: number,
  body: ParsedBody,
  retryAfterMs: number | undefined,
): KeydeckApiError {
  const info = serviceErrorInfo(body);
  const code = info.code ?? codeForStatus(status);
  // The field name comes from the service: cleaned before it enters the sentence, like its message.
  const field = info.field === undefined ? undefined : clean(info.field, ctx.token, 80);
  const { what } = ctx.op;
  let sentence: string;
  let outcomeUnknown = false;
  switch (code) {
    case 'unauthorized':
      sentence = ctx.credential
        ? `The service did not accept the credential in use, ${ctx.credential.label}, to ${what}: it may be mistyped, expired or deleted; ${ctx.credential.whenRejected ?? 'sign in again with a valid one'}`
        : `The service did not accept the credential (session token or management key) to ${what}: it may be mistyped, expired or deleted; sign in again with a valid one`;
      break;
    case 'forbidden':
      sentence = `${ctx.credential ? `The credential in use, ${ctx.credential.label},` : 'This credential'} may not ${what}: use a session token or a management key (a consumption key cannot manage the account)`;
      break;
    case 'not_found':
      // A refusal in the service's own words (its error shape) is never answered with network or
      // address advice: only a bare 404 (no error body of ours) suggests a wrong base URL.
      sentence = ctx.op.byId
        ? `Could not ${what}: the service has no item with that id (it may have been deleted already); list them again`
        : ctx.op.name === 'verifyTopUp'
          ? `Could not ${what}: the service does not know this transaction yet (it may still be confirming on the chain): wait a minute, then verify again with the same hash`
          : info.code !== undefined
            ? `Could not ${what}: the service answered that it was not found`
            : `Could not ${what}: the service answered "not found" without saying why; check that the base URL ${ctx.baseUrl} points at the service`;
      break;
    case 'invalid_request':
      sentence = `The service refused the request to ${what} as invalid${field ? ` (field ${field})` : ''}: correct it and try again`;
      break;
    case 'insufficient_balance':
      sentence = `Could not ${what}: the credit balance is 0; top up first`;
      break;
    case 'budget_exceeded':
      sentence = `Could not ${what}: the credit budget is spent; top up to continue`;
      break;
    case 'amount_mismatch':
      sentence = `Could not ${what}: the amount does not match the amount of the transfer; verify with the exact amount sent`;
      break;
    case 'tx_already_used':
      sentence =
        ctx.op.name === 'verifyTopUp'
          ? `Could not ${what}: this transaction has already been used for a top-up (each transfer is credited once); check the balance`
          : `Could not ${what}: the service reported a conflict (HTTP ${status}); refresh and try again`;
      break;
    case 'rate_limited':
      sentence = `The service refused to ${what} because of too many requests: wait${retryAfterMs !== undefined ? ` ${formatWait(retryAfterMs)}` : ' a moment'} before trying again`;
      break;
    default:
      if (ctx.op.changesState && status >= 500) {
        outcomeUnknown = true;
        sentence = `The service failed (HTTP ${status}) while trying to ${what}, so whether it took effect is unknown: ${ctx.op.check ?? 'refresh'} before trying again`;
      } else {
        sentence = `The service failed to ${what} (${status >= 400 ? `HTTP ${status}` : 'it reported a failure'}): try again in a moment`;
      }
  }
  const said = info.message !== undefined ? ` (the service said: "${clean(info.message, ctx.token)}")` : '';
  return makeError(ctx, code, `${sentence}${said}.`, {
    status,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
    ...(field !== undefined && { field }),
    ...(outcomeUnknown && { outcomeUnknown }),
  });
}

/** The error for a redirect: never followed (the credential would go along with it). */
export function errorFromRedirect(ctx: FailureContext, status: number, headers: IncomingHttpHeaders): KeydeckApiError {
  const location = typeof headers.location === 'string' ? ` to ${clean(headers.location, ctx.token)}` : '';
  return makeError(
    ctx,
    'invalid_response',
    `The service answered the request to ${ctx.op.what} with a redirect (HTTP ${status})${location}; keydeck does not follow redirects: set the base URL to the service's final address.`,
    { status },
  );
}

/** The error for a call that got no complete answer within the deadline. */
export function errorFromTimeout(ctx: FailureContext, possiblySent: boolean): KeydeckApiError {
  const wait = formatWait(ctx.timeoutMs);
  if (ctx.op.changesState && possiblySent) {
    return makeError(
      ctx,
      'timeout',
      `The service did not answer within ${wait} after the request to ${ctx.op.what} was sent, so whether it took effect is unknown: ${ctx.op.check ?? 'refresh'} before trying again.`,
      { outcomeUnknown: true },
    );
  }
  return makeError(ctx, 'timeout', `The service did not answer within ${wait} (trying to ${ctx.op.what}): check the network and try again later.`);
}

/** The error for a connection that failed (`code` is Node's: ECONNREFUSED, ECONNRESET, …). */
export function errorFromNetwork(ctx: FailureContext, code: string, possiblySent: boolean): KeydeckApiError {
  if (ctx.op.changesState && possiblySent) {
    return makeError(
      ctx,
      'network_error',
      `The connection to the service failed (${code}) after the request to ${ctx.op.what} was sent, so whether it took effect is unknown: ${ctx.op.check ?? 'refresh'} before trying again.`,
      { outcomeUnknown: true },
    );
  }
  const nothingSent = ctx.op.changesState ? ' (nothing was sent)' : '';
  return makeError(
    ctx,
    'network_error',
    `Could not reach the service at ${ctx.baseUrl} to ${ctx.op.what} (${code}): check the address and the network connection${nothingSent}.`,
  );
}

/**
 * The error for a successful status whose body is not what §2 documents. `field` is the path of
 * the first wrong field (`[2].id`, `data.remaining`), or undefined when the whole body is wrong.
 */
export function errorFromInvalidResponse(ctx: FailureContext, status: number, rawField: string | undefined, rawProblem: string): KeydeckApiError {
  // A path may hold the service's own object keys, a problem its values: both cleaned.
  const field = rawField === undefined ? undefined : clean(rawField, ctx.token, 80);
  const problem = clean(rawProblem, ctx.token);
  const where = field !== undefined ? ` (field ${field}: ${problem})` : ` (${problem})`;
  const after = ctx.op.changesState
    ? `; it probably took effect: ${ctx.op.check ?? 'refresh'} before trying again`
    : '; the service may have changed its format: report this if it persists';
  return makeError(ctx, 'invalid_response', `The service's answer to the request to ${ctx.op.what} is not what keydeck expects${where}${after}.`, {
    status,
    ...(field !== undefined && { field }),
  });
}
