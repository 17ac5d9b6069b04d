/**
 * A hostile HTTP proxy for the resilience suite: it sits between keydeck and the sandbox on
 * loopback and misbehaves on demand. Every request is handled by the fault in force when it
 * arrives (keep-alive sockets included), so a test switches faults with one call:
 *
 * ```ts
 * const proxy = await startFaultProxy(sandbox.url);
 * proxy.set({ kind: 'status', status: 503 });          // every request: 503
 * proxy.set({ kind: 'status', status: 503, count: 3 }); // a burst: the next 3 requests, then pass
 * await proxy.kill();  … await proxy.revive();          // connections refused, then accepted again
 * proxy.set({ kind: 'reset' });                         // TCP reset on every request
 * proxy.set({ kind: 'delay', ms: 5000 });               // answers held past the client's deadline
 * proxy.set({ kind: 'malformed' });                     // 200 with a body that is not JSON
 * proxy.set({ kind: 'rate-limit', retryAfterSeconds: 3 }); // 429 storm with Retry-After
 * proxy.set({ kind: 'delay', ms: 60_000, count: 1, only: { method: 'POST', path: '/api/billing/verify-topup' } });
 *                                                       // one request of that kind forwarded, its answer lost
 * proxy.set({ kind: 'hold', count: 1, only: { method: 'POST', path: '/api/keys/credit' } });
 * await proxy.held(); … proxy.release();                // its answer (the key made) held until released
 * proxy.pass();                                         // back to a faithful proxy
 * ```
 *
 * `only` limits a fault to the requests it matches (method and/or path without the query);
 * the others pass through and do not use up its `count`.
 *
 * Only what the fault needs is touched: pass-through forwards method, path, headers and body
 * unchanged and streams the answer back. The proxy never logs a header (the token travels in
 * `Authorization`).
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** Which requests a fault applies to (all when absent). */
export interface FaultMatch {
  readonly method?: string;
  /** The path without the query. */
  readonly path?: string;
}

/** What the proxy does to a request. `count`: only the next N requests (that match `only`), then pass-through. */
export type Fault = (
  | { readonly kind: 'pass' }
  /** Answers with this status (5xx for server failures) and a small JSON error body. */
  | { readonly kind: 'status'; readonly status: number; readonly count?: number }
  /** Resets the TCP connection (RST) without answering. */
  | { readonly kind: 'reset'; readonly count?: number }
  /** Forwards the request but holds the answer `ms` milliseconds first. */
  | { readonly kind: 'delay'; readonly ms: number; readonly count?: number }
  /** Forwards the request (the service does it) and holds the answer until {@link FaultProxy.release}. */
  | { readonly kind: 'hold'; readonly count?: number }
  /** Answers 200 `application/json` with a truncated, unparseable body. */
  | { readonly kind: 'malformed'; readonly count?: number }
  /** Answers 429 `rate_limited` with `Retry-After: retryAfterSeconds`. */
  | { readonly kind: 'rate-limit'; readonly retryAfterSeconds: number; readonly count?: number }
) & { readonly only?: FaultMatch };

/** One request as the proxy saw it. */
export interface SeenRequest {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  /** The fault it met (`refused` requests never arrive, so they are not seen). */
  readonly fault: Fault['kind'];
  /** Epoch ms of arrival. */
  readonly at: number;
}

/** A running fault proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:PORT` (`https://` with `tls`): give it to keydeck as KEYDECK_BASE_URL. Stays the same across kill/revive. */
  readonly url: string;
  /** Switches the fault for every request from now on. */
  set(fault: Fault): void;
  /** Shorthand for `set({ kind: 'pass' })`. */
  pass(): void;
  /** The fault in force (a counted fault turns into `pass` when used up). */
  fault(): Fault;
  /** Every request seen so far, in order of arrival. */
  readonly seen: readonly SeenRequest[];
  /** Resolves once an answer of a `hold` fault is held (the service has answered it). */
  held(): Promise<void>;
  /** Sends the answers held so far (a `hold` fault still in force holds the next ones). */
  release(): void;
  /** Stops listening and drops every open connection: new connections are refused (ECONNREFUSED). */
  kill(): Promise<void>;
  /** Listens again on the same port (after {@link kill}). */
  revive(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** Key and certificate (PEM): the proxy speaks HTTPS to keydeck (its `url` is `https://`), plain http upstream. */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
}

/** Starts a proxy to `upstream` (`http://host:port`) on a free loopback port, passing through. */
export async function startFaultProxy(upstream: string, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  let current: Fault = { kind: 'pass' };
  let left = Infinity;
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  /** Timers of delayed answers, cleared when the proxy is killed or closed. */
  const timers = new Set<NodeJS.Timeout>();
  /** The sends of the answers a `hold` fault holds, and who waits for one to be held. */
  let holding: Array<() => void> = [];
  let holdWaiters: Array<() => void> = [];
  const release = () => {
    const sends = holding;
    holding = [];
    for (const send of sends) send();
  };

  /** The fault for the request arriving now; counts down a counted fault. */
  const take = (req: http.IncomingMessage): Fault => {
    const only = current.only;
    if (only && ((only.method !== undefined && only.method !== req.method) || (only.path !== undefined && only.path !== (req.url ?? '/').split('?')[0]))) {
      return { kind: 'pass' };
    }
    const fault = current;
    if (fault.kind !== 'pass' && Number.isFinite(left)) {
      left -= 1;
      if (left <= 0) {
        current = { kind: 'pass' };
        left = Infinity;
      }
    }
    return fault;
  };

  /** Forwards `req`, its answer sent after `holdMs` ms, or when released (`'release'`). */
  const forward = (req: http.IncomingMessage, res: http.ServerResponse, holdMs: number | 'release') => {
    const upstreamReq = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host }, agent }, (upstreamRes) => {
      const send = () => {
        if (res.destroyed) {
          upstreamRes.resume();
          return;
        }
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      };
      if (holdMs === 'release') {
        upstreamRes.pause();
        holding.push(send);
        const waiters = holdWaiters;
        holdWaiters = [];
        for (const w of waiters) w();
        return;
      }
      if (holdMs <= 0) return send();
      upstreamRes.pause();
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, holdMs);
      timers.add(timer);
    });
    upstreamReq.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'server_error', message: 'upstream failed' } }));
    });
    req.pipe(upstreamReq);
  };

  const json = (res: http.ServerResponse, status: number, body: string, headers: http.OutgoingHttpHeaders = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const fault = take(req);
    seen.push({ method: req.method ?? 'GET', path: req.url ?? '/', fault: fault.kind, at: Date.now() });
    switch (fault.kind) {
      case 'pass':
        return forward(req, res, 0);
      case 'delay':
        return forward(req, res, fault.ms);
      case 'hold':
        return forward(req, res, 'release');
      case 'reset':
        req.socket.resetAndDestroy();
        return;
      case 'status':
        req.resume();
        return json(res, fault.status, JSON.stringify({ error: { code: 'server_error', message: `injected HTTP ${fault.status}` } }));
      case 'malformed':
        req.resume();
        return json(res, 200, '{"data": [{"id": "k_1", "name": ');
      case 'rate-limit':
        req.resume();
        return json(res, 429, JSON.stringify({ error: { code: 'rate_limited', message: 'too many requests (injected)' } }), {
          'retry-after': String(fault.retryAfterSeconds),
        });
    }
  };
  const server = options.tls ? https.createServer(options.tls, handle) : http.createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that resets its side of a held request must not take the proxy down.
  server.on('clientError', (_error, socket) => socket.destroy());

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      release();
      if (!server.listening) return resolve();
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });

  await listen(0);
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    set(fault) {
      current = fault;
      left = 'count' in fault && fault.count !== undefined ? fault.count : Infinity;
    },
    pass() {
      current = { kind: 'pass' };
      left = Infinity;
    },
    fault: () => current,
    seen,
    held: () => (holding.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => holdWaiters.push(resolve))),
    release,
    kill: stop,
    revive: () => listen(port),
    async close() {
      await stop();
      agent.destroy();
    },
  };
}
