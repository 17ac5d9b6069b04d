/**
 * The HTTP face of the metrics, shared by `keydeck monitor --metrics` and
 * `keydeck exporter`: `GET /metrics` answers the exposition (./exposition.ts), `GET /healthz`
 * says whether the process is alive and serving (200 and one line: liveness), `GET /readyz`
 * whether its figures are worth scraping yet (200, else 503 until every profile has been polled
 * once: readiness), `GET /` names them; any other path is 404 and any other method 405. `HEAD` is answered as `GET` without a body. Nothing
 * secret is ever in an answer: figures, profile names and origins only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { EXPOSITION_CONTENT_TYPE } from './exposition.js';
import { formatAddress, type MetricsAddress } from './address.js';

/** What {@link serveMetrics} answers with. */
export interface MetricsHandlers {
  /** The exposition text of `GET /metrics`. */
  readonly metrics: () => Promise<string>;
  /** The line of `GET /healthz` (default `ok`). */
  readonly health?: () => string;
  /** Whether `GET /readyz` answers 200 (else 503), and its line (default: ready, as /healthz). */
  readonly ready?: () => { readonly ready: boolean; readonly text: string };
}

/** A listening metrics server. */
export interface MetricsServer {
  /** `http://HOST:PORT/metrics` (the port actually bound). */
  readonly url: string;
  /** The address actually bound. */
  readonly address: MetricsAddress;
  /** Stops listening and closes idle connections. */
  close(): Promise<void>;
}

/**
 * Listens on `address` and serves {@link MetricsHandlers}.
 * @throws Error with the listen error's `code` (EADDRINUSE, EACCES, EADDRNOTAVAIL) when it cannot listen
 */
export async function serveMetrics(address: MetricsAddress, handlers: MetricsHandlers): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => answer(req, res, handlers));
  // A scraper that opens a connection and sends nothing is cut off; keep-alive scrapes reuse theirs.
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  const actual = { host: address.host, port: typeof bound === 'object' && bound ? bound.port : address.port };
  return {
    url: `http://${formatAddress(actual)}/metrics`,
    address: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

function answer(req: IncomingMessage, res: ServerResponse, handlers: MetricsHandlers): void {
  const path = (req.url ?? '/').split('?')[0];
  const head = req.method === 'HEAD';
  const text = (status: number, body: string, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(head ? undefined : body);
  if (path !== '/metrics' && path !== '/healthz' && path !== '/readyz' && path !== '/') {
    text(404, 'not found: GET /metrics, /healthz or /readyz\n');
    return;
  }
  if (req.method !== 'GET' && !head) {
    text(405, 'method not allowed: GET\n', { allow: 'GET, HEAD' });
    return;
  }
  if (path === '/') text(200, 'keydeck metrics: GET /metrics (Prometheus text format), GET /healthz (alive), GET /readyz (every profile polled)\n');
  else if (path === '/healthz') text(200, `${handlers.health?.() ?? 'ok'}\n`);
  else if (path === '/readyz') {
    const state = handlers.ready?.() ?? { ready: true, text: handlers.health?.() ?? 'ok' };
    text(state.ready ? 200 : 503, `${state.text}\n`);
  } else {
    handlers.metrics().then(
      (body) => res.writeHead(200, { 'content-type': EXPOSITION_CONTENT_TYPE }).end(head ? undefined : body),
      () => text(500, 'the metrics could not be written\n'),
    );
  }
}
