/**
 * `keydeck sandbox [--host 127.0.0.1] [--port 8787] [--db PATH] [--dialect seed|docs-v1|docs-v2] [--unlimited-usage-reads]
 * [--chain anvil [--chain-rpc URL]]`: runs the sandbox server in the
 * foreground (docs/sandbox-service.md command-line contract). Prints exactly two lines on stdout,
 * `sandbox listening on http://HOST:PORT` and `session token: <token>`, logs one line per
 * request on stderr (method, path, status, ms; never a header, key or token), and on SIGINT or
 * SIGTERM closes the server and the database and exits 0.
 *
 * The sandbox is for this machine: its `/sandbox/*` routes (users, the clock, the usage switch,
 * the checkout page, simulated transfers) take no credential. Bound to an address other than
 * loopback (`--host 0.0.0.0`), it says so on stderr once it listens.
 *
 * Exit codes: 0 stopped by a signal, 1 the sandbox could not start (database or address),
 * 2 bad usage (`--port` not an integer 0–65535).
 */
import { isLoopbackHost } from '../api/baseUrl.js';
import path, { dirname } from 'node:path';
import { sandboxDbPath } from '../config/paths.js';
import { checkTrustedDir } from '../config/trust.js';

/**
 * The warning for a sandbox listening on `host` beyond this machine, or undefined for a loopback
 * address (127.0.0.0/8, `::1`, `localhost`).
 */
export function offLoopbackWarning(host: string): string | undefined {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  if (isLoopbackHost(bracketed)) return undefined;
  return (
    `keydeck: warning: the sandbox listens on ${host}, beyond this machine: its /sandbox/* routes (new users, the clock, the usage switch, ` +
    'checkout payments, simulated transfers) take no credential, so anyone who can reach this address can use them and move its clock. ' +
    'The sandbox is meant for this machine: --host 127.0.0.1 (the default).'
  );
}

/** Options as commander gives them (strings). */
export interface SandboxCommandOptions {
  /** Address to listen on. */
  host: string;
  /** Port to listen on, decimal (0 picks a free one). */
  port: string;
  /** SQLite database file; default `sandboxDbPath()` (config/paths.ts). */
  db?: string;
  /** The shape of the answers (src/sandbox/dialect.ts): `seed` (default), `docs-v1`, `docs-v2`. */
  dialect?: 'seed' | 'docs-v1' | 'docs-v2';
  /** `--unlimited-usage-reads`: lift the 12-per-12-hours limit of usage reads (load tests, benchmarks). */
  unlimitedUsageReads?: boolean;
  /** `--chain anvil`: USDC transfers on a real local chain. */
  chain?: 'anvil';
  /** `--chain-rpc URL` with `--chain anvil`: that node instead of a new anvil. */
  chainRpc?: string;
}

/** Runs the sandbox until SIGINT/SIGTERM; sets `process.exitCode` (see the module doc). */
export async function runSandboxCommand(opts: SandboxCommandOptions): Promise<void> {
  const port = Number(opts.port);
  if (!/^\d{1,5}$/.test(opts.port) || port > 65_535) {
    process.stderr.write('keydeck: --port must be an integer from 0 to 65535\n');
    process.exitCode = 2;
    return;
  }
  if (opts.chainRpc !== undefined && opts.chain === undefined) {
    process.stderr.write('keydeck: --chain-rpc goes with --chain anvil\n');
    process.exitCode = 2;
    return;
  }
  const dbPath = opts.db ?? sandboxDbPath();
  // The default database lives in the data dir: trusted as the config dir is.
  const dirProblem = opts.db === undefined ? checkTrustedDir(dirname(dbPath), 'data dir') : undefined;
  if (dirProblem) {
    process.stderr.write(`keydeck: could not start the sandbox: ${dirProblem.sentence}\n`);
    process.exitCode = 1;
    return;
  }
  // Listen for the signals before anything is printed: whoever reads the two lines may signal
  // at once. A signal during start-up stops the sandbox as soon as it is up.
  let stopping = false;
  let resolveStopped = () => {};
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  const stop = () => {
    if (stopping) process.exit(1); // a second signal: give up waiting
    stopping = true;
    resolveStopped();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const { startSandbox } = await import('../sandbox/index.js');
  const shared = await import('../sandbox/shared.js');
  // keydeck's own database (the demo account of keydeck --sandbox): served at its home port too,
  // so that every keydeck process finds the demo account where it always is (src/sandbox/shared.ts).
  const own = dbPath !== ':memory:' && path.resolve(dbPath) === path.resolve(sandboxDbPath());
  const home = own ? await shared.homePortOf(dbPath) : undefined;
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      dbPath,
      host: opts.host,
      port,
      ...(home !== undefined && { homePort: home.port }),
      ...(opts.dialect !== undefined && { dialect: opts.dialect }),
      ...(opts.unlimitedUsageReads === true && { usageReadLimit: false }),
      ...(opts.chain === 'anvil' && { chain: opts.chainRpc !== undefined ? { rpcUrl: opts.chainRpc } : {} }),
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? `${opts.host}:${port} is already in use (try --port 0)` : (error as Error).message;
    process.stderr.write(`keydeck: could not start the sandbox: ${reason}\n`);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    process.exitCode = 1;
    return;
  }
  // keydeck --sandbox processes on the same database join this one (src/sandbox/shared.ts).
  if (dbPath !== ':memory:') await shared.recordServing(dbPath, sandbox);
  if (home !== undefined && sandbox.homeUrl !== undefined && !home.recorded) await shared.recordHomePort(dbPath, home.port);
  process.stdout.write(`sandbox listening on ${sandbox.url}\nsession token: ${sandbox.token}\n`);
  // On stderr: the two-line stdout contract stays as it is.
  if (home !== undefined && sandbox.homeUrl !== undefined) {
    process.stderr.write(`keydeck --sandbox finds this demo account at ${sandbox.homeUrl}, its address for every keydeck process, served here too\n`);
  } else if (home !== undefined && new URL(sandbox.url).port !== String(home.port)) {
    process.stderr.write(
      `keydeck: warning: the demo account's address http://127.0.0.1:${home.port} is taken by another program: while this runs, keydeck --sandbox uses ${sandbox.url}, where keys stored for the other address are not sent\n`,
    );
  }
  const exposed = offLoopbackWarning(opts.host);
  if (exposed !== undefined) process.stderr.write(`${exposed}\n`);
  // A third line only with a chain, on stderr: the two-line stdout contract stays as it is.
  if (sandbox.chainRpcUrl !== undefined) process.stderr.write(`sandbox chain (anvil, chain id 8453) at ${sandbox.chainRpcUrl}: keydeck reads it by itself for this sandbox\n`);

  await stopped;
  await sandbox.close();
  process.exitCode = 0;
  // Everything is closed, so the process ends by itself; this only guards against a stray handle.
  setTimeout(() => process.exit(0), 2000).unref();
}
