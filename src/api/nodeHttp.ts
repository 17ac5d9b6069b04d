/**
 * One HTTP attempt over Node's own `node:http` / `node:https`, with the contract of
 * {@link HttpTransport} (./http.ts, over got): keep-alive agents, no retries (the core drives
 * them), no redirects (Node never follows one: a 3xx comes back as a response and the core
 * refuses it), every status a response, the body capped at {@link MAX_RESPONSE_BYTES} (declared
 * or counted, before and after decoding), the attempt bounded by `timeoutMs` from its start to
 * the end of the body, and failures as values saying whether the request may have reached the
 * service. Like got, it asks for `gzip, deflate, br` and decodes them (`node:zlib`, loaded only
 * for an encoded answer). No proxy: neither transport reads `HTTP(S)_PROXY`.
 *
 * Why a second transport: got and its helpers are about 260 KB of JavaScript, some 30 ms of a
 * one-shot command's start (bench/oneshot.mjs) for a single request, and several times this
 * one's garbage per request, which a TUI polling every few seconds promotes into V8's old space
 * (docs/performance.md, "The TUI's memory (round 6)"). The scriptable commands (src/commands/output.ts)
 * and the TUI (src/tui/session.tsx) send through this one; the monitor and the exporter through
 * got. test/api/faults.test.ts and bounds.test.ts run against both.
 * `node:https` is loaded on the first https request, not with this module.
 */
import http from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Transform } from 'node:stream';
import { MAX_RESPONSE_BYTES, NOT_SENT_CODES, type HttpAttempt, type HttpOutcome, type Transport } from './http.js';

/** The encodings asked for and decoded (got's default `accept-encoding`). */
const ACCEPT_ENCODING = 'gzip, deflate, br';

/** Sends attempts through one pair of keep-alive agents (see the module comment). */
export class NodeHttpTransport implements Transport {
  readonly #httpAgent = new http.Agent({ keepAlive: true });
  #httpsAgent: HttpsAgent | undefined;
  #https: typeof import('node:https') | undefined;

  /** Sends one attempt; never throws (every failure is an {@link HttpOutcome}). */
  async send(attempt: HttpAttempt): Promise<HttpOutcome> {
    if (attempt.signal?.aborted) return { kind: 'aborted' };
    const https = attempt.url.startsWith('https:');
    if (https && this.#https === undefined) {
      this.#https = (await import('node:https')).default;
      this.#httpsAgent = new this.#https.Agent({ keepAlive: true });
      if (attempt.signal?.aborted) return { kind: 'aborted' };
    }
    return new Promise<HttpOutcome>((resolve) => {
      let settled = false;
      // The request may have reached the service once its connection is up (and secured, for https).
      let connected = false;
      // The decoder of an encoded answer, stopped with the request when the attempt ends without one.
      let decoder: Transform | undefined;
      const headers: Record<string, string> = { 'accept-encoding': ACCEPT_ENCODING, ...attempt.headers };
      if (attempt.body !== undefined) headers['content-length'] = String(Buffer.byteLength(attempt.body));
      const options = { method: attempt.method, headers, agent: https ? this.#httpsAgent : this.#httpAgent };
      const request = https ? this.#https!.request(attempt.url, options) : http.request(attempt.url, options);
      const finish = (outcome: HttpOutcome): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        attempt.signal?.removeEventListener('abort', onAbort);
        if (outcome.kind !== 'response') {
          request.destroy();
          decoder?.destroy();
        }
        resolve(outcome);
      };
      const onAbort = (): void => finish({ kind: 'aborted' });
      const timer = setTimeout(() => finish({ kind: 'timeout', possiblySent: connected }), Math.max(1, Math.round(attempt.timeoutMs)));
      attempt.signal?.addEventListener('abort', onAbort, { once: true });
      request.on('socket', (socket: Socket) => {
        // A kept-alive socket is connected already; a new one says so when it is.
        if (!socket.connecting) connected = true;
        else socket.once(https ? 'secureConnect' : 'connect', () => (connected = true));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        const code = typeof error.code === 'string' ? error.code : 'UNKNOWN';
        finish({ kind: 'network', possiblySent: connected && !NOT_SENT_CODES.has(code), code });
      });
      request.on('response', (response: http.IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) return finish({ kind: 'too_large', status });
        const body = decoded(response, response.headers['content-encoding']);
        if (body !== response) {
          decoder = body as Transform;
          // Encoded: the bytes on the wire are capped too, not only what they decode to.
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > MAX_RESPONSE_BYTES) finish({ kind: 'too_large', status });
          });
          response.on('error', (error: NodeJS.ErrnoException) => body.destroy(error));
        }
        const chunks: Buffer[] = [];
        let length = 0;
        body.on('data', (chunk: Buffer) => {
          length += chunk.length;
          if (length > MAX_RESPONSE_BYTES) return finish({ kind: 'too_large', status });
          chunks.push(chunk);
        });
        body.on('end', () => finish({ kind: 'response', status, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        // A body cut short (a reset, a bad encoding) is a failure of the connection, the request sent.
        body.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'network', possiblySent: true, code: typeof error.code === 'string' ? error.code : 'ECONNRESET' }));
        response.on('aborted', () => finish({ kind: 'network', possiblySent: true, code: 'ECONNRESET' }));
      });
      request.end(attempt.body);
    });
  }

  /** Destroys the agents' sockets; later attempts open new ones. */
  close(): void {
    this.#httpAgent.destroy();
    this.#httpsAgent?.destroy();
  }
}

/** The body of `response` decoded per its `content-encoding` (gzip, deflate, br), or as it comes. */
function decoded(response: http.IncomingMessage, encoding: string | undefined): http.IncomingMessage | Transform {
  const kind = encoding?.trim().toLowerCase();
  if (kind !== 'gzip' && kind !== 'x-gzip' && kind !== 'deflate' && kind !== 'br') return response;
  // Loaded only here: an answer the service chose to compress.
  const zlib = process.getBuiltinModule('node:zlib');
  const decoder = kind === 'br' ? zlib.createBrotliDecompress() : kind === 'deflate' ? zlib.createInflate() : zlib.createGunzip();
  return response.pipe(decoder);
}
