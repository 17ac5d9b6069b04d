/**
 * One sandbox per database for every keydeck process: `keydeck --sandbox` (the TUI)
 * and `keydeck --sandbox keys …` (a command) use the same demo account, at the same origin, at
 * the same time. One process serves the database (its connection holds SQLite's exclusive lock,
 * ./db.ts: the sandbox's in-memory caches and rate windows assume one server); every other process
 * that wants it joins that one over HTTP. A process that joined and stays open (the TUI, `monitor`,
 * `billing watch`) takes the port over when the serving process ends, so its service never goes.
 *
 * Beside the database:
 * - `<db>.port`: the database's home, the loopback port every keydeck process knows it by (a
 *   stored credential, the balance history, the rotation and delivery records and the top-up
 *   record are kept per service origin, port included, so one stable origin keeps them all). Chosen
 *   at the first start from the database's path (a port from 20000 to 29999, below every OS's
 *   range of ephemeral ports, so no outgoing connection takes it; a free one when it is taken),
 *   then taken again at every start. `keydeck sandbox --port 8787` on this database serves the home
 *   port too ({@link homePortOf}), so the demo account stays where it was while it runs and after.
 * - `<db>.json` (mode 0600, this user's regular file, else ignored): `{ instance, token, url }`,
 *   the database's identity (also answered by `GET /sandbox`), the demo user's session token (the
 *   database holds it too) and where the database is served now or was last. A process that finds
 *   `GET /sandbox` at that URL answering the same instance joins it with that token.
 *
 * Nothing is written to the service's data by joining: a joined process only sends requests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readFile, rename, unlink } from 'node:fs/promises';
import net from 'node:net';
import { probeSandbox } from '../api/sandboxProbe.js';
import type { Dialect } from './dialect.js';
import { startSandbox, type RunningSandbox } from './start.js';

/** A sandbox a process uses: served by itself or by another keydeck process. */
export interface SharedSandbox {
  /** `http://127.0.0.1:PORT` (no trailing slash): the same for every process of the database. */
  readonly url: string;
  /** The demo user's session token (the same on every start with the same database). */
  readonly token: string;
  /** `serving`: this process serves the database; `joined`: another keydeck process does. */
  role(): 'serving' | 'joined';
  /** The chain's JSON-RPC URL, when this process started the sandbox on one. */
  readonly chainRpcUrl?: string;
  /**
   * The shape of the answers of the sandbox joined (`GET /sandbox`'s `dialect`), when this process
   * joined another's: a `dialect` asked for here does not change it (the caller says so).
   */
  readonly joinedDialect?: string;
  /** Stops serving (or stops watching the other process); the database is closed. */
  close(): Promise<void>;
}

/** Options of {@link openSharedSandbox}. */
export interface SharedSandboxOptions {
  /** The database file (`sandboxDbPath()` for `keydeck --sandbox`). */
  readonly dbPath: string;
  /** The dialect when this process serves (src/sandbox/dialect.ts); a joined sandbox keeps its own. */
  readonly dialect?: Dialect;
  /** `--chain anvil` when this process serves. */
  readonly chain?: { readonly rpcUrl?: string };
  /**
   * Take the port over when the process served by goes away (a process left open: the TUI,
   * `monitor`, `billing watch`). Checked every {@link KEEP_INTERVAL_MS} with a bare TCP connect.
   */
  readonly keep?: boolean;
  /** How long to wait for another process that holds the database to answer, ms (default 5,000). */
  readonly waitMs?: number;
}

/** The state file's content (`<db>.json`). */
interface SandboxState {
  readonly instance: string;
  readonly token: string;
  readonly url: string;
}

/** How often a process that joined checks that the serving process is still there, ms. */
export const KEEP_INTERVAL_MS = 2_000;
/** Largest state file read, bytes. */
const STATE_MAX_BYTES = 4_096;

/** The state file of `dbPath`. */
export function sandboxStatePath(dbPath: string): string {
  return `${dbPath}.json`;
}

/** The port file of `dbPath` (a plain number: the port of the last start). */
export function sandboxPortPath(dbPath: string): string {
  return `${dbPath}.port`;
}

/** True when something accepts TCP connections on `127.0.0.1:port` (answer within 1 s). */
function portAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(true)); // no refusal: something holds it
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The first port tried for a database never served yet: 20000–29999, from its path (and this user). */
function firstPort(dbPath: string): number {
  const digest = createHash('sha256')
    .update(`${typeof process.getuid === 'function' ? process.getuid() : ''}\0${dbPath}`)
    .digest();
  return 20_000 + (digest.readUInt32BE(0) % 10_000);
}

/**
 * The home port of `dbPath` (see the module comment): the one recorded, else the one its first
 * start tries. `keydeck sandbox` serves it beside its own `--port` on keydeck's own database.
 */
export async function homePortOf(dbPath: string): Promise<{ readonly port: number; readonly recorded: boolean }> {
  const recorded = await lastPort(dbPath);
  return recorded !== undefined ? { port: recorded, recorded: true } : { port: firstPort(dbPath), recorded: false };
}

/** Records `port` as the home port of `dbPath` (best effort). */
export async function recordHomePort(dbPath: string, port: number): Promise<void> {
  await writePrivateFile(sandboxPortPath(dbPath), `${port}\n`).catch(() => undefined); // best effort: the next start picks a port
}

/** The port of the last start, or undefined. */
async function lastPort(dbPath: string): Promise<number | undefined> {
  try {
    const text = (await readFile(sandboxPortPath(dbPath), { encoding: 'utf8', flag: 'r' })).trim();
    const port = Number(text);
    return /^\d{4,5}$/.test(text) && port >= 1024 && port <= 65_535 ? port : undefined;
  } catch {
    return undefined; // never ran on this database, or unreadable: a free port
  }
}

/**
 * The state file, when it is this user's regular file that nobody else can read or write
 * (as ssh trusts its own files) and well formed; else undefined (it is then rewritten by the
 * next process that serves).
 */
export async function readSandboxState(dbPath: string): Promise<SandboxState | undefined> {
  const file = sandboxStatePath(dbPath);
  try {
    const stats = await lstat(file);
    if (!stats.isFile() || stats.size > STATE_MAX_BYTES) return undefined;
    if (process.platform !== 'win32' && ((stats.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && stats.uid !== process.getuid()))) return undefined;
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<SandboxState> | null;
    if (typeof value?.instance !== 'string' || typeof value.token !== 'string' || typeof value.url !== 'string') return undefined;
    return { instance: value.instance, token: value.token, url: value.url };
  } catch {
    // no readable state: not running
    return undefined;
  }
}

/**
 * Writes `text` to `file` (mode 0600) through a temporary file created with `O_EXCL|O_NOFOLLOW`
 * beside it, renamed over it: no link at either name is followed. The directory is keydeck's data
 * dir, which the caller checked (src/config/strictModes.ts); the sandbox imports nothing of
 * src/config but its SQLite opener, so this is its own three steps.
 */
async function writePrivateFile(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomBytes(12).toString('hex')}.tmp`;
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined); // the temp file may be gone; the first error is the one thrown
    throw error;
  }
}

/**
 * Records that `running` serves `dbPath` (the state file, mode 0600, written atomically): what
 * other keydeck processes need to join it. Best effort: a failure only means they cannot join.
 */
export async function recordServing(dbPath: string, running: RunningSandbox): Promise<void> {
  // Where keydeck processes join it: its home when it serves that too.
  const state: SandboxState = { instance: running.instance, token: running.token, url: running.homeUrl ?? running.url };
  await writePrivateFile(sandboxStatePath(dbPath), `${JSON.stringify(state)}\n`).catch(() => undefined); // best effort: other processes start their own sandbox
}

/** The same database served elsewhere: the state's URL, when `GET /sandbox` there answers its instance (with its dialect). */
async function joinable(dbPath: string): Promise<(SandboxState & { readonly dialect: string }) | undefined> {
  const state = await readSandboxState(dbPath);
  if (!state) return undefined;
  const identity = await probeSandbox(state.url);
  return identity?.instance === state.instance ? { ...state, dialect: identity.dialect } : undefined;
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && /is locked/.test(error.message);
}

function isAddressTaken(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EADDRINUSE' || code === 'EACCES';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The sentence for a process that asked for `asked` (`--dialect`) and joined a sandbox answering
 * in another dialect (`sandbox.joinedDialect`); undefined when nothing was asked, or it is the same.
 */
export function joinedDialectNotice(sandbox: Pick<SharedSandbox, 'joinedDialect' | 'url'>, asked: string | undefined): string | undefined {
  if (asked === undefined || sandbox.joinedDialect === undefined || sandbox.joinedDialect === asked) return undefined;
  return (
    `--dialect ${asked} was not applied: this process joined the sandbox another keydeck process serves at ${sandbox.url}, which answers in the ${sandbox.joinedDialect} dialect; ` +
    `to use ${asked}, stop that process first (or set KEYDECK_SANDBOX_DB to another file)`
  );
}

/**
 * Serves `dbPath` on 127.0.0.1 at the port of its last start when free (else a free port, then
 * remembered), or joins the keydeck process that serves it already. Two processes starting at
 * once: one serves, the other waits for it (up to `waitMs`) and joins.
 * @throws when the database cannot be opened (newer schema, unreadable) or another process holds
 *   it without answering at its recorded URL within `waitMs` (naming the file).
 */
export async function openSharedSandbox(options: SharedSandboxOptions): Promise<SharedSandbox> {
  const { dbPath } = options;
  const deadline = Date.now() + (options.waitMs ?? 5_000);
  for (;;) {
    const state = await joinable(dbPath);
    if (state) return joined(state, options);
    const port = (await homePortOf(dbPath)).port;
    try {
      return await serve(options, port);
    } catch (error) {
      if (!isLocked(error)) throw error;
      // Another process holds the database: starting, or serving where the state file does not say yet.
      if (Date.now() > deadline) {
        throw new Error(
          `${dbPath} is held by another sandbox process that does not answer at ${state === undefined ? 'its recorded address' : 'the address it recorded'}: ` +
            'stop it (keydeck sandbox, another keydeck --sandbox), or set KEYDECK_SANDBOX_DB to another file',
          { cause: error },
        );
      }
      await sleep(150);
    }
  }
}

/** Starts serving on `port` (or a free one when it is taken); remembers the port and the state. */
async function serve(options: SharedSandboxOptions, port: number): Promise<SharedSandbox> {
  const { dbPath } = options;
  const start = (p: number) => startSandbox({ dbPath, host: '127.0.0.1', port: p, ...(options.dialect && { dialect: options.dialect }), ...(options.chain && { chain: options.chain }) });
  let running: RunningSandbox | undefined;
  try {
    running = await start(port);
  } catch (error) {
    if (!isAddressTaken(error)) throw error;
  }
  running ??= await start(0);
  const served = running;
  const actual = Number(new URL(served.url).port);
  if ((await lastPort(dbPath)) !== actual) await recordHomePort(dbPath, actual);
  await recordServing(dbPath, served);
  return {
    url: served.url,
    token: served.token,
    role: () => 'serving',
    ...(served.chainRpcUrl !== undefined && { chainRpcUrl: served.chainRpcUrl }),
    close: () => served.close(),
  };
}

/**
 * Uses the sandbox another process serves at `state.url`. With `keep`, checks every
 * {@link KEEP_INTERVAL_MS} that its port still answers, and when it no longer does, serves the
 * database on that port itself (the other process has ended and released the database).
 */
function joined(state: SandboxState & { readonly dialect: string }, options: SharedSandboxOptions): SharedSandbox {
  let own: RunningSandbox | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const target = new URL(state.url);
  const port = Number(target.port);
  const check = async () => {
    timer = undefined;
    if (closed || own) return;
    if (!(await portAnswers(target.hostname, port))) {
      try {
        const running = await startSandbox({ dbPath: options.dbPath, host: target.hostname, port, ...(options.dialect && { dialect: options.dialect }) });
        if (closed) await running.close();
        else {
          own = running;
          await recordServing(options.dbPath, running);
          return;
        }
      } catch {
        // Not yet released (the other process is closing), or taken by another process first: next time.
      }
    }
    if (!closed) timer = setTimeout(() => void check(), KEEP_INTERVAL_MS).unref();
  };
  if (options.keep) timer = setTimeout(() => void check(), KEEP_INTERVAL_MS).unref();
  return {
    url: state.url,
    token: state.token,
    joinedDialect: state.dialect,
    role: () => (own ? 'serving' : 'joined'),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await own?.close();
    },
  };
}
