/**
 * The request core every resource of the client shares (src/api/resources/): one credential, one
 * keep-alive connection pool, one deadline and retry policy, one reader, one failure wording.
 *
 * Behaviour of every call:
 * - `Authorization: Bearer <token>` (a session token or an `mk_` key, an `sk_` for the `/v1/*`
 *   endpoints that take one) on every request that is not public.
 * - Input is validated with the request schemas of ./schemas.ts before anything is sent
 *   (`invalid_request` with `field`, no request made): {@link ApiCore.parseInput}.
 * - Every answer goes through the tolerant reader (./reader.ts, its table names each rule and
 *   its source): bare or in the `{ success, data }` envelope (`success: false` is an error
 *   whatever the status), money as a number or a decimal string read exactly, the documented
 *   stand-ins; key values in any answer but the creating one are dropped and reported once
 *   through `onNotice`. A documented body that is missing or mistypes a field is
 *   `invalid_response` naming the field (`[2].id`, `data.remaining`); unknown extra fields are
 *   kept. Bodies the spec does not show are returned as they arrive (minus key values): parsed
 *   JSON, the raw text when not JSON, `undefined` when empty.
 * - One deadline (`timeoutMs`, default 10 s) bounds the whole call, retries and waits included.
 * - Only GET is retried (`retries`, default 2; a spec may lower it, e.g. to 0 for a read with a
 *   budget of calls): on network errors, timeouts, 5xx and 429, with capped exponential backoff
 *   and jitter, honouring `Retry-After` when it fits in the deadline (otherwise the error is
 *   surfaced at once with `retryAfterMs`). POST, PUT and DELETE are sent once: when their
 *   connection fails or times out after sending, or the service answers 5xx, the error has
 *   `outcomeUnknown: true` and says what to check before trying again.
 * - A client built `readOnly` refuses every POST, PUT and DELETE before sending (`read_only`).
 * - Cancelling through `{ signal }` rejects with a plain `AbortError` (see `isAbortError`), not a
 *   KeydeckApiError. Cancelling a POST/PUT/DELETE after it was sent leaves its outcome unknown.
 * - No error text (message, stack, `JSON.stringify`) ever holds the token or a key value.
 *
 * Internal to src/api: the public surface is `KeydeckClient` (./client.ts) and its resources.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { baseUrlProblem, insecureHttpProblem, normalizeBaseUrl } from './baseUrl.js';
import { createAbortError, KeydeckApiError } from './errors.js';
import {
  errorFromInvalidResponse,
  errorFromNetwork,
  errorFromReadOnly,
  errorFromRedirect,
  errorFromResponse,
  errorFromTimeout,
  isRecord,
  parseBody,
  type FailureContext,
  type OperationInfo,
  type ParsedBody,
} from './failures.js';
import { failpoint } from '../failpoints/index.js';
import { HttpTransport, MAX_RESPONSE_BYTES, type Transport, type TransportName } from './http.js';
import { NodeHttpTransport } from './nodeHttp.js';
import { readAnswer } from './reader.js';
import { attachSalvage } from './salvage.js';
import { backoffDelayMs, minBackoffDelayMs, parseRetryAfterMs } from './retry.js';
import { parseInput } from './validate.js';

/** Default deadline of a whole call, retries included, in ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default number of retries of a GET (so at most 3 attempts). */
export const DEFAULT_RETRIES = 2;
/** Default `User-Agent` header. */
export const DEFAULT_USER_AGENT = 'keydeck';
/** Shortest attempt worth starting, ms: a retry that would get less is not made. */
const MIN_ATTEMPT_MS = 100;

/** Per-call options, the optional last argument of every method of every resource. */
export interface CallOptions {
  /** Cancels the call: it then rejects with an `AbortError` (see `isAbortError`). */
  signal?: AbortSignal;
}

/** How failures name the credential in use; see `KeydeckClientOptions.credential`. */
export interface CredentialDescription {
  readonly label: string;
  readonly whenRejected?: string;
}

/** Something the reader did that a user should hear about once (see `onNotice`). */
export interface ClientNotice {
  /** `key_values_hidden`: the service sent key values where only creation may; they were dropped. */
  kind: 'key_values_hidden';
  /** One sentence for people. */
  message: string;
  /** The operation whose answer carried them (`listKeys`). */
  operation: string;
  /** How many values were dropped from that answer. */
  count: number;
}

/** The transport settings of {@link ApiCore}, checked by its constructor. */
export interface ApiCoreOptions {
  baseUrl: string;
  token: string;
  timeoutMs?: number;
  retries?: number;
  userAgent?: string;
  allowInsecureHttp?: boolean;
  credential?: CredentialDescription;
  onNotice?: (notice: ClientNotice) => void;
  transport?: TransportName;
  /** Set: every POST, PUT and DELETE is refused before sending (`read_only`), this clause saying why. */
  readOnly?: string;
}

/** How a 2xx body is read: a the service's resources schema (reader rules of ./reader.ts), or accepted as it comes. */
export type Reader<T> = { schema: z.ZodType<T> | null; creates?: boolean };

/** One call as a resource describes it. */
export interface CallSpec<T> {
  op: OperationInfo;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path and query, already encoded (`/api/keys/${encodeURIComponent(id)}`). */
  path: string;
  body?: unknown;
  read: Reader<T>;
  /** Sent without `Authorization` (a public endpoint such as `GET /api/plans`). */
  anonymous?: boolean;
  /** Retries of this GET instead of the client's (0 for a read that spends a budget of calls). */
  retries?: number;
}

/**
 * The shared request core. One per `KeydeckClient`; resources hold it and describe their calls
 * as {@link CallSpec}s.
 */
export class ApiCore {
  /** The base address in use, normalized (no trailing slash). */
  readonly baseUrl: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #userAgent: string;
  readonly #credential: CredentialDescription | undefined;
  readonly #onNotice: ((notice: ClientNotice) => void) | undefined;
  readonly #readOnly: string | undefined;
  readonly #noticed = new Set<ClientNotice['kind']>();
  readonly #transport: Transport;
  #clockOffsetMs: number | undefined;

  /**
   * @throws KeydeckApiError `invalid_request` (with `field`: `baseUrl`, `token`, `timeoutMs`,
   *   `retries`, `userAgent` or `transport`) when an option is unusable; the message never holds the token.
   */
  constructor(options: ApiCoreOptions) {
    this.baseUrl = checkedBaseUrl(options.baseUrl);
    const token = options.token;
    if (typeof token !== 'string' || token.length === 0 || /[\s\u0000-\u001f\u007f]/.test(token)) {
      throw new KeydeckApiError('invalid_request', 'The token is empty or contains spaces or control characters: give a session token or a management key.', { field: 'token' });
    }
    this.#token = token;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > 2_147_483_647) {
      throw new KeydeckApiError('invalid_request', 'timeoutMs must be a positive number of milliseconds.', { field: 'timeoutMs' });
    }
    this.#timeoutMs = timeoutMs;
    const retries = options.retries ?? DEFAULT_RETRIES;
    if (!Number.isInteger(retries) || retries < 0 || retries > 10) {
      throw new KeydeckApiError('invalid_request', 'retries must be a whole number from 0 to 10.', { field: 'retries' });
    }
    this.#retries = retries;
    const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    if (typeof userAgent !== 'string' || userAgent.trim() === '' || /[\u0000-\u001f\u007f]/.test(userAgent)) {
      throw new KeydeckApiError('invalid_request', 'userAgent must be a non-empty text without control characters.', { field: 'userAgent' });
    }
    this.#userAgent = userAgent;
    // No token over plain http to another machine unless the caller opted in (baseUrl.ts).
    const insecure = insecureHttpProblem(this.baseUrl, options.allowInsecureHttp === true);
    if (insecure !== undefined) throw new KeydeckApiError('invalid_request', `${insecure}.`, { field: 'baseUrl' });
    this.#onNotice = options.onNotice;
    this.#credential = options.credential;
    if (options.transport !== undefined && options.transport !== 'got' && options.transport !== 'node:http') {
      throw new KeydeckApiError('invalid_request', 'transport must be "got" or "node:http".', { field: 'transport' });
    }
    this.#transport = options.transport === 'node:http' ? new NodeHttpTransport() : new HttpTransport();
    this.#readOnly = options.readOnly;
  }

  /** See `KeydeckClient.serviceClockOffsetMs`. */
  get serviceClockOffsetMs(): number | undefined {
    return this.#clockOffsetMs;
  }

  /**
   * Parses caller input with a request schema (./validate.ts), the token redacted from any message.
   * @throws KeydeckApiError `invalid_request` with `field`; nothing is sent
   */
  parseInput<S extends z.ZodType>(schema: S, value: unknown, name?: string): z.output<S> {
    return parseInput(schema, value, this.#token, name);
  }

  /** Closes the idle keep-alive sockets now (optional: idle sockets never keep the process alive). */
  close(): void {
    this.#transport.close();
  }

  /** Tells `onNotice` once per client that key values were dropped from an answer. */
  #notice(operation: string, count: number): void {
    if (this.#onNotice === undefined || this.#noticed.has('key_values_hidden')) return;
    this.#noticed.add('key_values_hidden');
    const message = `The service sent ${count === 1 ? 'a key value' : `${count} key values`} in a list (${operation}); keydeck hid ${count === 1 ? 'it' : 'them'}.`;
    try {
      this.#onNotice({ kind: 'key_values_hidden', message, operation, count });
    } catch {
      // a listener's failure is not the call's
    }
  }

  /** Records the service's clock from a `Date` header (ignored when absent or absurd). */
  #observeDate(header: string | string[] | undefined): void {
    if (typeof header !== 'string' || header.length > 64) return;
    const t = Date.parse(header);
    if (!Number.isFinite(t)) return;
    const offset = t - Date.now();
    if (Math.abs(offset) > 10 * 365 * 86_400_000) return;
    this.#clockOffsetMs = offset;
  }

  /**
   * Sends a call with the retry and deadline policy of the module docstring. Rejects (never
   * throws synchronously): every public method is async, input validation included.
   * @throws KeydeckApiError, or an `AbortError` when cancelled
   */
  async call<T>(spec: CallSpec<T>, options?: CallOptions): Promise<T> {
    const signal = options?.signal;
    if (signal?.aborted) throw createAbortError();
    const deadline = Date.now() + this.#timeoutMs;
    const ctx: FailureContext = {
      op: spec.op,
      token: this.#token,
      baseUrl: this.baseUrl,
      timeoutMs: this.#timeoutMs,
      ...(this.#credential !== undefined && { credential: this.#credential }),
    };
    // The last line of a read-only profile (src/config/profileMarks.ts): no change leaves this client.
    if (this.#readOnly !== undefined && spec.method !== 'GET') throw errorFromReadOnly(ctx, this.#readOnly);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#userAgent };
    if (spec.anonymous !== true) headers.authorization = `Bearer ${this.#token}`;
    const text = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (text !== undefined) headers['content-type'] = 'application/json';
    let retriesLeft = spec.method === 'GET' ? Math.min(spec.retries ?? this.#retries, this.#retries) : 0;
    for (let retry = 0; ; retry++) {
      const remaining = deadline - Date.now();
      // While a retry is left, an attempt may use half of what remains, unless the other half
      // could not hold even the shortest backoff and one more attempt: then it gets it all.
      const half = Math.max(MIN_ATTEMPT_MS, Math.floor(remaining / 2));
      const roomForRetry = retriesLeft > 0 && remaining - half >= minBackoffDelayMs(retry) + MIN_ATTEMPT_MS;
      const attemptMs = roomForRetry ? half : remaining;
      failpoint('request', spec.op.name);
      const outcome = await this.#transport.send({
        method: spec.method,
        url: `${this.baseUrl}${spec.path}`,
        headers,
        ...(text !== undefined && { body: text }),
        timeoutMs: attemptMs,
        signal,
      });
      let failure: KeydeckApiError;
      let waitMs: number | undefined;
      if (outcome.kind === 'aborted') throw createAbortError();
      if (outcome.kind === 'too_large') {
        throw errorFromInvalidResponse(ctx, outcome.status, undefined, `the answer is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB, so keydeck did not read it`);
      }
      if (outcome.kind === 'response') {
        failpoint('answered', spec.op.name);
        const { status } = outcome;
        this.#observeDate(outcome.headers.date);
        const body = parseBody(outcome.text);
        if (status >= 300 && status < 400) throw errorFromRedirect(ctx, status, outcome.headers);
        if (status >= 200 && status < 300 && !saysFailure(body)) return readBody(spec, ctx, status, body, (count) => this.#notice(spec.op.name, count));
        waitMs = parseRetryAfterMs(outcome.headers['retry-after']);
        failure = errorFromResponse(ctx, status, body, waitMs);
        if (!(status === 429 || status >= 500)) throw failure;
      } else if (outcome.kind === 'timeout') {
        failure = errorFromTimeout(ctx, outcome.possiblySent);
      } else {
        failure = errorFromNetwork(ctx, outcome.code, outcome.possiblySent);
      }
      if (retriesLeft === 0) throw failure;
      // The room left for a wait before one more attempt. A backoff drawn longer than the room
      // shrinks to it (never below its shortest, which the attempt's share left room for), so a
      // call gives up at its deadline, not before; a Retry-After that does not fit ends the call.
      const room = deadline - Date.now() - MIN_ATTEMPT_MS;
      let delay = waitMs ?? backoffDelayMs(retry);
      if (waitMs === undefined && delay > room && room >= minBackoffDelayMs(retry)) delay = room;
      if (delay > room) throw failure;
      try {
        await sleep(delay, undefined, signal ? { signal } : {});
      } catch {
        throw createAbortError();
      }
      retriesLeft--;
    }
  }
}

/** True when a body says `success: false` (the billing envelope's failure; an error whatever the status). */
function saysFailure(body: ParsedBody): boolean {
  return body.kind === 'json' && isRecord(body.value) && body.value.success === false;
}

/** Reads a 2xx body per the call's {@link Reader} (the rules of ./reader.ts). */
function readBody<T>(spec: CallSpec<T>, ctx: FailureContext, status: number, body: ParsedBody, notice: (count: number) => void): T {
  const result = readAnswer(spec.read, body);
  if (!result.ok) {
    const error = errorFromInvalidResponse(ctx, status, result.field, result.problem);
    // A key was created all the same: its value goes with the error, not lost (./salvage.ts).
    throw spec.read.creates === true ? attachSalvage(error, body) : error;
  }
  if (result.hiddenKeyValues > 0) notice(result.hiddenKeyValues);
  return result.data;
}

/**
 * Checks and normalizes the base address (src/api/baseUrl.ts rules).
 * @throws KeydeckApiError `invalid_request` (field `baseUrl`) naming what is wrong
 */
function checkedBaseUrl(baseUrl: string): string {
  const problem = baseUrlProblem(baseUrl);
  if (problem !== undefined) {
    throw new KeydeckApiError('invalid_request', `The base URL ${problem}: give an address such as https://api.example.com.`, { field: 'baseUrl' });
  }
  return normalizeBaseUrl(baseUrl);
}
