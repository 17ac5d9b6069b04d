/**
 * The sandbox server's public entry (`keydeck/sandbox`, built to dist/sandbox.js): a faithful
 * local implementation of the service interface (§4 endpoints with §3, §5, §7, §8 behaviour)
 * plus DESIGN.md's simulation endpoints, on Fastify and `node:sqlite`.
 *
 * What lives in src/sandbox: the server (Fastify routes in ./routes/, the sqlite store in ./db.ts
 * and its tables' modules, the dialects of ./dialect.ts, the clock). May import: src/api (the wire
 * schemas, money, and the chain reader of src/api/chain) only. Imported by: src/commands (`keydeck sandbox`) and src/tui
 * (`keydeck --sandbox`), lazily; the library entry `keydeck/sandbox`.
 */
import type { AddressInfo } from 'node:net';
import { createContext } from './context.js';
import type { Dialect } from './dialect.js';
import { ensureDemoUser } from './demo.js';
import { createSandboxApp } from './server.js';

export { BODY_LIMIT_BYTES } from './server.js';
export { createContext, type SandboxContext } from './context.js';
export { LIMITS, type KeyLimits } from './limits.js';
export { DIALECTS, isDialect, type Dialect } from './dialect.js';
export { CANNED_ANSWER, DEFAULT_COST_USD, estimateRequestTokens } from './routes/inference.js';
export { USAGE_READS_PER_WINDOW, USAGE_READ_WINDOW_MS } from './usage.js';

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
   * Run USDC transfers over a real chain (issue 25): `{}` starts anvil (chain id 8453, the
   * sandbox USDC at the native USDC address, a funded payer); `{ rpcUrl }` uses that node instead.
   * Undefined (the default): transfers are simulated in the database (fast, no binary).
   */
  chain?: { readonly rpcUrl?: string };
}

/** A running sandbox. */
export interface RunningSandbox {
  /** Its base URL, `http://HOST:PORT` (no trailing slash). */
  url: string;
  /** The demo user's session token (the same on every start with the same database file). */
  token: string;
  /** The chain's JSON-RPC URL, when the sandbox runs on one. */
  chainRpcUrl?: string;
  /** Stops listening (pending `sandbox_delay_ms` waits end at once), stops its chain, closes the database. */
  close(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
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
    app = createSandboxApp(ctx, options.log ? { log: options.log } : {});
    await app.listen({ host, port: options.port ?? 0 });
    const { port } = app.server.address() as AddressInfo;
    ctx.baseUrl = `http://${urlHost(host)}:${port}`;
    const running = app;
    let closing: Promise<void> | undefined;
    return {
      url: ctx.baseUrl,
      token,
      ...(ctx.chain && { chainRpcUrl: ctx.chain.rpcUrl }),
      close() {
        closing ??= (async () => {
          try {
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
    await app?.close().catch(() => {});
    ctx.db.close();
    await ctx.chain?.close();
    throw error;
  }
}
