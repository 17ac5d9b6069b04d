/**
 * A hostile local HTTP server for the client's fault tests: a plain node:http server on
 * loopback whose answer to each request is scripted by the test. It records every request
 * (method, path, headers, body) and counts TCP connections, so tests can assert "sent exactly
 * once", "retried", "nothing sent" and "one socket reused".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

/** A request as the server received it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Answers request number `n` (0-based, counting every request the server saw). */
export type Script = (req: SeenRequest, res: http.ServerResponse, n: number) => void;

export interface HostileServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  requests: SeenRequest[];
  /** TCP connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/**
 * For a test file whose tests run concurrently (each with servers of its own): a function that
 * starts a server as {@link startHostileServer} does and keeps it until the file's tests are done,
 * then closes every one (vitest's `afterAll`, registered here: call it at a file's top level).
 */
export function useHostileServers(): (script: Script) => Promise<HostileServer> {
  const servers: HostileServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  return async (script) => {
    const server = await startHostileServer(script);
    servers.push(server);
    return server;
  };
}

/** Starts a server that answers with `script`. */
export async function startHostileServer(script: Script): Promise<HostileServer> {
  const state = { requests: [] as SeenRequest[], connections: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: SeenRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const n = state.requests.length;
      state.requests.push(seen);
      script(seen, res, n);
    });
  });
  server.on('connection', () => {
    state.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends `body` as JSON with `status`. */
export function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Sends raw `text` with `status` and a JSON content type (so only the body is wrong). */
export function raw(res: http.ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Resets the connection (TCP RST) without answering. */
export function reset(res: http.ServerResponse): void {
  res.socket?.resetAndDestroy();
}

/** A free loopback port with nothing listening on it (connection refused). */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A the consumption key's fields consumption key as the service lists it. */
export function consumptionKey(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `key ${id}`,
    keyPlan: 'credits',
    keyType: 'credit',
    isActive: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

/** A the credit balance record credit balance in the billing envelope. */
export function creditsEnvelope(data: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    success: true,
    data: { totalTopUp: 25, remaining: 25, hasCreditKey: false, creditKeyCount: 0, userId: 'u1', ...data },
  };
}
