/**
 * Starting a sandbox server on a database: {@link startSandbox} (the library's entry, `keydeck
 * sandbox`, and ./shared.ts for `keydeck --sandbox`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createContext } from './context.js';
import type { Dialect } from './dialect.js';
import { ensureDemoUser } from './demo.js';
import { createSandboxApp } from './server.js';

/** Options of {@link startSandbox}. */
export interface StartSandboxOptions {
  /** SQLite file; undefined or `':memory:'` for an in-memory database (gone on close). */
  dbPath?: string;
  /** Address to listen on (default `127.0.0.1`). */
  host?: string;
  /** Port to listen on (default 0: a free port). */
  port?: number;
  /**
   * The shape of its answers: `seed` (default), `docs-v1` or `docs-v2` (the two generations of
   * the real service's documentation pages; see ./dialect.ts).
   */
  dialect?: Dialect;
  /** Receives one line per request (`METHOD /path STATUS 1.2ms`; never a header, key or token). */
  log?: (line: string) => void;
  /**
   * Enforce the service's 12 usage reads per 12 hours per credential (429 with `Retry-After`).
   * Default true; false lifts it for load tests and the benchmarks (reads are still counted).
   */
  usageReadLimit?: boolean;
  /**
   * Run USDC transfers over a real chain: `{}` starts anvil (chain id 8453, the
   * sandbox USDC at the native USDC address, a funded payer); `{ rpcUrl }` uses that node instead.
   * Undefined (the default): transfers are simulated in the database (fast, no binary).
   */
  chain?: { readonly rpcUrl?: string };
  /**
   * A second port on 127.0.0.1 to serve the same app on: the address every keydeck process knows
   * this database by (its home, src/sandbox/shared.ts), so that `keydeck sandbox --port 8787` on
   * keydeck's own database leaves the demo account where it was. The links the sandbox hands out
   * (card checkout pages) name it, so they outlive this process. When it cannot be bound (taken),
   * only `port` is served. Undefined (the default): one port.
   */
  homePort?: number;
}

/** A running sandbox. */
export interface RunningSandbox {
  /** Its base URL, `http://HOST:PORT` (no trailing slash). */
  url: string;
  /** The demo user's session token (the same on every start with the same database file). */
  token: string;
  /** The database's identity (a random id made with the database; `GET /sandbox` answers it). */
  instance: string;
  /** `http://127.0.0.1:HOME` when {@link StartSandboxOptions.homePort} was bound too. */
  homeUrl?: string;
  /** The chain's JSON-RPC URL, when the sandbox runs on one. */
  chainRpcUrl?: string;
  /** Stops listening (pending `sandbox_delay_ms` waits end at once), stops its chain, closes the database. */
  close(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Serves `app` on 127.0.0.1:`port` too, through Fastify's own request handler (`routing`: every
 * hook and route as on its main port); undefined when the port cannot be bound.
 */
async function listenHome(app: ReturnType<typeof createSandboxApp>, port: number): Promise<Server | undefined> {
  const server = createServer((request, reply) => app.routing(request, reply));
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen({ host: '127.0.0.1', port }, () => resolve(server));
  });
}

/**
 * Opens (or creates and migrates) the database, ensures the demo user, and listens.
 * Throws when the database cannot be opened or the address cannot be bound (EADDRINUSE, …);
 * nothing is left open then.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const dbPath = options.dbPath ?? ':memory:';
  const host = options.host ?? '127.0.0.1';
  const ctx = createContext(dbPath, { ...(options.dialect && { dialect: options.dialect }), ...(options.usageReadLimit === false && { usageReadLimit: false }) });
  let app: ReturnType<typeof createSandboxApp> | undefined;
  try {
    if (options.chain) {
      // Loaded only here: viem and the launcher stay out of a sandbox without a chain.
      const { startSandboxChain } = await import('./chain/anvil.js');
      ctx.chain = await startSandboxChain(options.chain);
    }
    const token = ensureDemoUser(ctx);
    app = createSandboxApp(ctx, { listenHost: host, ...(options.log && { log: options.log }) });
    await app.listen({ host, port: options.port ?? 0 });
    const { port } = app.server.address() as AddressInfo;
    const url = `http://${urlHost(host)}:${port}`;
    const home = options.homePort !== undefined && !(host === '127.0.0.1' && options.homePort === port) ? await listenHome(app, options.homePort) : undefined;
    const homeUrl = home ? `http://127.0.0.1:${options.homePort}` : undefined;
    ctx.baseUrl = homeUrl ?? url;
    const running = app;
    let closing: Promise<void> | undefined;
    return {
      url,
      token,
      instance: ctx.instance,
      ...(homeUrl !== undefined && { homeUrl }),
      ...(ctx.chain && { chainRpcUrl: ctx.chain.rpcUrl }),
      close() {
        closing ??= (async () => {
          try {
            if (home) await new Promise<void>((resolve) => home.close(() => resolve()).closeAllConnections());
            await running.close();
          } finally {
            ctx.db.close();
            await ctx.chain?.close();
          }
        })();
        return closing;
      },
    };
  } catch (error) {
    await app?.close().catch(() => {}); // closing after a failed start: the start's error is the one thrown
    ctx.db.close();
    await ctx.chain?.close();
    throw error;
  }
}
