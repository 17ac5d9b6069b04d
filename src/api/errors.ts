/**
 * The one typed error of the API client, and secret redaction shared by every layer.
 */
import { KeydeckError, type ExitClass } from '../errors/index.js';

/** The codes a service may send in an error body (docs/real-service.md error codes). */
export const SERVICE_ERROR_CODES = [
  'unauthorized',
  'forbidden',
  'not_found',
  'invalid_request',
  'insufficient_balance',
  'budget_exceeded',
  'amount_mismatch',
  'tx_already_used',
  'card_declined',
  'rate_limited',
  'server_error',
] as const;

/**
 * Every failure the client reports, by stable code: the service's ({@link SERVICE_ERROR_CODES})
 * plus the client's own transport and parsing ones, and `read_only`: a change refused before
 * sending by a client built read-only (./client.ts `readOnly`).
 */
export const API_ERROR_CODES = [...SERVICE_ERROR_CODES, 'network_error', 'timeout', 'invalid_response', 'read_only'] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** True when `value` is one of {@link API_ERROR_CODES}. */
export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === 'string' && (API_ERROR_CODES as readonly string[]).includes(value);
}

/** Options of {@link KeydeckApiError}. */
export interface KeydeckApiErrorOptions {
  /** HTTP status, when a response arrived. */
  status?: number;
  /** How long the service asked to wait before retrying, in ms (from `Retry-After`). */
  retryAfterMs?: number;
  /** The request field or response field at fault (`invalid_request`, `invalid_response`). */
  field?: string;
  /**
   * True when a request that moves money or state may or may not have been applied
   * (the connection failed or timed out after it was sent): it is never retried automatically.
   */
  outcomeUnknown?: boolean;
  /**
   * `network_error`: Node's code for the failed connection (`ECONNREFUSED`, `ECONNRESET`,
   * `DEPTH_ZERO_SELF_SIGNED_CERT`…), so a banner can say "Certificate not trusted" rather than
   * "Offline".
   */
  transportCode?: string;
  /** True when it is known that the request never reached the service (refused before sending, a connection never made). */
  nothingSent?: boolean;
}

/** The exit class of an API error's code (src/errors `ExitClass`). */
function exitClassOf(code: ApiErrorCode, status: number | undefined): ExitClass {
  if (code === 'read_only') return 'stopped';
  if (code === 'network_error' || code === 'timeout' || code === 'server_error') return 'network';
  if (code === 'invalid_request' && status === undefined) return 'usage';
  return 'refused';
}

/**
 * A failure of a call to the service. `code` is stable (see {@link API_ERROR_CODES});
 * `message` is one human sentence with no secret in it (already redacted).
 * `JSON.stringify(error)` gives `{ name, code, message, status?, retryAfterMs?, field? }`. A
 * {@link KeydeckError}: `possiblySent` is `outcomeUnknown`; `nothingSent` a refusal before sending
 * (`read_only`, an `invalid_request` without status) or a connection never made.
 */
export class KeydeckApiError extends KeydeckError {
  override readonly name = 'KeydeckApiError';
  override readonly code: ApiErrorCode;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly field?: string;
  readonly outcomeUnknown?: boolean;
  /** See {@link KeydeckApiErrorOptions.transportCode}. */
  readonly transportCode?: string;

  constructor(code: ApiErrorCode, message: string, options: KeydeckApiErrorOptions = {}) {
    super(code, redactSecrets(message), {
      exitClass: exitClassOf(code, options.status),
      possiblySent: options.outcomeUnknown === true,
      nothingSent: options.nothingSent === true || code === 'read_only' || (code === 'invalid_request' && options.status === undefined),
    });
    this.code = code;
    if (options.status !== undefined) this.status = options.status;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.field !== undefined) this.field = options.field;
    if (options.outcomeUnknown) this.outcomeUnknown = true;
    if (options.transportCode !== undefined) this.transportCode = options.transportCode;
  }

  /** The facts of `--json`'s error object: status, retryAfterMs, field, transportCode, what was sent. */
  override facts(): Record<string, unknown> {
    return {
      ...(this.status !== undefined && { status: this.status }),
      ...(this.retryAfterMs !== undefined && { retryAfterMs: this.retryAfterMs }),
      ...(this.field !== undefined && { field: this.field }),
      ...(this.transportCode !== undefined && { transportCode: this.transportCode }),
      ...super.facts(),
    };
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      ...(this.status !== undefined && { status: this.status }),
      ...(this.retryAfterMs !== undefined && { retryAfterMs: this.retryAfterMs }),
      ...(this.field !== undefined && { field: this.field }),
      ...(this.outcomeUnknown && { outcomeUnknown: true }),
    };
  }
}

/**
 * Creates the rejection of a call cancelled through its `signal`: a plain `DOMException` named
 * `AbortError` (the same kind `fetch` rejects with), deliberately not a {@link KeydeckApiError},
 * so a caller that cancelled on purpose can ignore it with {@link isAbortError}.
 */
export function createAbortError(): Error {
  return new DOMException('The request was cancelled.', 'AbortError');
}

/**
 * True when `error` is the rejection of a cancelled call (any error named `AbortError`: the
 * client's own, Node's or `fetch`'s). Callers that cancel polls on unmount ignore these.
 */
export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/**
 * Full key values (and anything shaped like them) anywhere in a text: `sk_…`/`mk_…` (the spec's),
 * and `sk-…`/`mk-…` (the newer keys page's `"sk-..."`) with at least 16 characters after the
 * dash, so a word such as `sk-learn` is not taken for one.
 */
const KEY_VALUE = /\b(sk|mk)(?:_[A-Za-z0-9_-]{4,}|-[A-Za-z0-9_-]{16,})/g;
/** A Bearer token in an echoed header. */
const BEARER = /(Bearer\s+)[^\s"',;]+/gi;

/**
 * Returns `text` with every secret replaced: key values shaped like `sk_…`/`mk_…` (or `sk-…`/
 * `mk-…`) become their first 8 characters after the prefix followed by `…` (the `keyPrefix` form of the management key's fields),
 * Bearer credentials become `Bearer [redacted]`, and each string in `extra` (a session token,
 * say) becomes `[redacted]`. Safe on any text; used for every error message and log line.
 */
export function redactSecrets(text: string, extra: readonly string[] = []): string {
  let out = text;
  for (const secret of extra) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  out = out.replace(BEARER, '$1[redacted]');
  out = out.replace(KEY_VALUE, (match) => {
    const body = match.slice(3);
    return body.length > 8 ? `${match.slice(0, 3)}${body.slice(0, 8)}…` : match;
  });
  return out;
}

/** The display prefix of a full key: `mk_` + 8 characters (the management key's fields `keyPrefix`), or `sk_` + 8 (`sk-`, `mk-` likewise). */
export function keyPrefixOf(key: string): string {
  return key.slice(0, 11);
}
