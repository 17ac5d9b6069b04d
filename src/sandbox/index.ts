/**
 * The sandbox server's public entry (`keydeck/sandbox`, built to dist/sandbox.js): a faithful
 * local implementation of the service interface (the service's endpoints endpoints with the service's states and transitions, the service's limits behaviour)
 * plus docs/sandbox-service.md's simulation endpoints, on Fastify and `node:sqlite`.
 *
 * What lives in src/sandbox: the server (Fastify routes in ./routes/, the sqlite store in ./db.ts
 * and its tables' modules, the dialects of ./dialect.ts, the clock; ./start.ts starts one, ./shared.ts
 * shares one database's server between keydeck processes). May import: src/api (the wire
 * schemas, money, and the chain reader of src/api/chain) and src/config/sqlite.ts (the one opener of
 * keydeck's SQLite files) only. Imported by: src/commands (`keydeck sandbox`) and src/tui
 * (`keydeck --sandbox`), lazily; the library entry `keydeck/sandbox`.
 */
export { BODY_LIMIT_BYTES } from './server.js';
export { createContext, type SandboxContext } from './context.js';
export { LIMITS, type KeyLimits } from './limits.js';
export { DIALECTS, isDialect, type Dialect } from './dialect.js';
export { CANNED_ANSWER, DEFAULT_COST_USD, estimateRequestTokens } from './routes/inference.js';
export { USAGE_READS_PER_WINDOW, USAGE_READ_WINDOW_MS } from './usage.js';
export { startSandbox, type RunningSandbox, type StartSandboxOptions } from './start.js';
