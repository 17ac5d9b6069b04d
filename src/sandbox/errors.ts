/**
 * The sandbox's one error type, rendered by the server's error handler as the docs/sandbox-service.md error
 * body `{ "error": { "code", "message" } }` (inside `{ "success": false, … }` on billing paths).
 */

import type { SERVICE_ERROR_CODES } from '../api/errors.js';
import { KeydeckError } from '../errors/index.js';

/** Error codes the sandbox sends: the service's (docs/sandbox-service.md "Error bodies"; `server_error` for bugs). */
export type SandboxErrorCode = (typeof SERVICE_ERROR_CODES)[number];

/** HTTP status of each code; `invalid_request` may also be sent as 413 or 415. */
export const STATUS_OF: Readonly<Record<SandboxErrorCode, number>> = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  invalid_request: 400,
  insufficient_balance: 402,
  budget_exceeded: 402,
  amount_mismatch: 422,
  tx_already_used: 409,
  card_declined: 402,
  rate_limited: 429,
  server_error: 500,
};

/** Extra details of a {@link SandboxError}. */
export interface SandboxErrorOptions {
  /** Overrides the code's default status (413 body too large, 415 wrong content type). */
  status?: number;
  /** The request field at fault (`invalid_request`); also sent as `error.field`. */
  field?: string;
  /** Seconds the caller should wait (`rate_limited`); sent as the `Retry-After` header. */
  retryAfterSeconds?: number;
}

/**
 * A refusal with a stable code. Thrown anywhere below a route handler; never carries a secret
 * in its message (messages are written by the sandbox, never echo a token).
 */
export class SandboxError extends KeydeckError {
  override readonly name = 'SandboxError';
  override readonly code: SandboxErrorCode;
  readonly status: number;
  readonly field?: string;
  readonly retryAfterSeconds?: number;

  constructor(code: SandboxErrorCode, message: string, options: SandboxErrorOptions = {}) {
    super(code, message);
    this.code = code;
    this.status = options.status ?? STATUS_OF[code];
    if (options.field !== undefined) this.field = options.field;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The docs/sandbox-service.md error object: `{ code, message, field? }`. */
  body(): { code: SandboxErrorCode; message: string; field?: string } {
    return { code: this.code, message: this.message, ...(this.field !== undefined && { field: this.field }) };
  }
}
