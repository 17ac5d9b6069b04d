/**
 * One HTTP attempt over got, with keep-alive agents, and nothing else: no retries (got's are
 * off, the client drives them), no redirects, no status handling (every status comes back as a
 * response). Failures are returned as values that say whether the request may have reached the
 * service, which decides between "nothing happened" and "outcome unknown" for POST/PUT/DELETE.
 * got's own errors never leave this file: they carry the request options, headers included.
 * got and `node:https` (TLS) are imported on the first request, not with this module: the TUI
 * draws its first frame without paying for them (bench/startup.mjs).
 */
import http from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Got, Method, Timings } from 'got';

/** One request as the client wants it sent. */
export interface HttpAttempt {
  method: Method;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  /** A JSON text, when the request has a body. */
  body?: string;
  /** Deadline of this attempt, ms, from the start of the request to the end of the response. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** What one attempt gave: a response (any status), or a failure with no response. */
export type HttpOutcome =
  | { kind: 'response'; status: number; headers: http.IncomingHttpHeaders; text: string }
  /** No complete response within `timeoutMs`. `possiblySent`: the request may have reached the service. */
  | { kind: 'timeout'; possiblySent: boolean }
  /** The connection failed. `code` is Node's (`ECONNREFUSED`, `ECONNRESET`, …). */
  | { kind: 'network'; possiblySent: boolean; code: string }
  /** The caller's signal aborted the attempt. */
  | { kind: 'aborted' }
  /** The response body passed {@link MAX_RESPONSE_BYTES}; the rest was not read (the connection was dropped). */
  | { kind: 'too_large'; status: number };

/**
 * Largest response body read, in bytes (32 MiB): far above any answer of the service's endpoints (a list of 150,000
 * keys is about 30 MB less than that, see test/api/bounds.test.ts), far below what would take a
 * terminal app's memory into gigabytes.
 */
export const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Connection-level failures that happen before a single byte of the request could be sent. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRNOTAVAIL']);

/**
 * What sends one attempt: {@link HttpTransport} (got) or `NodeHttpTransport` (./nodeHttp.ts,
 * Node's own `node:http`), with the same contract: `send` never throws, follows no redirect,
 * retries nothing, caps the body at {@link MAX_RESPONSE_BYTES} and the attempt at `timeoutMs`.
 */
export interface Transport {
  send(attempt: HttpAttempt): Promise<HttpOutcome>;
  /** Destroys the idle keep-alive sockets; later attempts open new ones. */
  close(): void;
}

/** The transports a client can send through (`KeydeckClientOptions.transport`). */
export type TransportName = 'got' | 'node:http';

/**
 * Sends attempts through one pair of keep-alive agents, so a client that polls for hours
 * reuses one socket (Node closes an idle socket before the server's `Keep-Alive: timeout`).
 * Call {@link HttpTransport.close} to drop the idle sockets at once (idle sockets never keep
 * the process alive anyway: Node unreferences them).
 */
export class HttpTransport implements Transport {
  readonly #httpAgent = new http.Agent({ keepAlive: true });
  #httpsAgent: HttpsAgent | undefined;
  #got: Promise<Got> | undefined;

  /** The got instance of this transport (and its HTTPS agent), made on the first request. */
  #client(): Promise<Got> {
    this.#got ??= Promise.all([import('got'), import('node:https')]).then(([{ default: got }, { default: https }]) => {
      this.#httpsAgent = new https.Agent({ keepAlive: true });
      return got.extend({
        agent: { http: this.#httpAgent, https: this.#httpsAgent },
        retry: { limit: 0 },
        throwHttpErrors: false,
        followRedirect: false,
        responseType: 'text',
        http2: false,
      });
    });
    return this.#got;
  }

  /** Sends one attempt; never throws (every failure is an {@link HttpOutcome}). */
  async send(attempt: HttpAttempt): Promise<HttpOutcome> {
    if (attempt.signal?.aborted) return { kind: 'aborted' };
    let tooLarge: number | undefined;
    const bound = new AbortController();
    try {
      const got = await this.#client();
      if (attempt.signal?.aborted) return { kind: 'aborted' };
      const request = got(attempt.url, {
        method: attempt.method,
        headers: attempt.headers,
        ...(attempt.body !== undefined && { body: attempt.body }),
        timeout: { request: Math.max(1, Math.round(attempt.timeoutMs)) },
        signal: attempt.signal ? AbortSignal.any([attempt.signal, bound.signal]) : bound.signal,
      });
      // Bounded in bytes: a declared length above the cap is refused before the body is read, an
      // undeclared one as soon as the cap is passed. (`on` returns the request itself, awaited below:
      // `void` only says so.)
      void request.on('response', (response: http.IncomingMessage) => {
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
          tooLarge = response.statusCode ?? 0;
          bound.abort();
        }
      });
      let status = 0;
      void request.on('response', (response: http.IncomingMessage) => (status = response.statusCode ?? 0));
      void request.on('downloadProgress', (progress: { transferred: number }) => {
        if (progress.transferred > MAX_RESPONSE_BYTES && tooLarge === undefined) {
          tooLarge = status;
          bound.abort();
        }
      });
      const response = await request;
      return { kind: 'response', status: response.statusCode, headers: response.headers, text: response.body };
    } catch (error) {
      if (tooLarge !== undefined) return { kind: 'too_large', status: tooLarge };
      if (attempt.signal?.aborted) return { kind: 'aborted' };
      const { code, name, timings } = describeGotError(error);
      const https = attempt.url.startsWith('https:');
      const possiblySent = timings ? timings.connect !== undefined && (!https || timings.secureConnect !== undefined) && !NOT_SENT_CODES.has(code) : !NOT_SENT_CODES.has(code);
      if (name === 'TimeoutError' || code === 'ETIMEDOUT') return { kind: 'timeout', possiblySent };
      return { kind: 'network', possiblySent, code };
    }
  }

  /** Destroys the agents' sockets; later attempts open new ones. */
  close(): void {
    this.#httpAgent.destroy();
    this.#httpsAgent?.destroy();
  }
}

/** The few facts of a got error the client may use (never its message or options). */
function describeGotError(error: unknown): { code: string; name: string; timings?: Timings } {
  if (typeof error !== 'object' || error === null) return { code: 'UNKNOWN', name: 'Error' };
  const e = error as { code?: unknown; name?: unknown; timings?: Timings };
  return {
    code: typeof e.code === 'string' ? e.code : 'UNKNOWN',
    name: typeof e.name === 'string' ? e.name : 'Error',
    ...(e.timings && { timings: e.timings }),
  };
}
