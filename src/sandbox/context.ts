/**
 * Everything a sandbox's routes share: the database and its stores, the clock, the
 * authenticator, the rate limiter, cancellable delays, and the public base URL.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Authenticator } from './auth.js';
import type { Dialect } from './dialect.js';
import type { SandboxChain } from './chain/anvil.js';
import { createClock, type SandboxClock } from './clock.js';
import { MetaStore, openDatabase } from './db.js';
import { KeyStore } from './keys.js';
import { CardDeclines } from './cardDeclines.js';
import { Ledger } from './ledger.js';
import { PoolStore } from './pools.js';
import { RateLimiter } from './limits.js';
import { UsageReadLimiter, UsageStore } from './usage.js';
import { UserStore } from './users.js';

/** Route-level hook type (an authenticator of ./server.ts): synchronous, before the body is read. */
export type AuthHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/** The shared state of one sandbox. */
export interface SandboxContext {
  readonly db: DatabaseSync;
  /** The database's identity: a random id made with it, kept in `meta` (`GET /sandbox`, ./shared.ts). */
  readonly instance: string;
  readonly meta: MetaStore;
  readonly clock: SandboxClock;
  readonly users: UserStore;
  readonly keys: KeyStore;
  readonly ledger: Ledger;
  /** Card charges to decline (`POST /sandbox/cards/decline`). */
  readonly declines: CardDeclines;
  readonly auth: Authenticator;
  readonly limiter: RateLimiter;
  /** Pool pledges and the pools' wire shapes. */
  readonly pools: PoolStore;
  /** Usage events: what the usage endpoints sum. */
  readonly usage: UsageStore;
  /** The 12-per-12-hours limit of usage reads per credential, and their count. */
  readonly usageReads: UsageReadLimiter;
  /** While `on`, usage reads answer 502 (`POST /sandbox/usage/unavailable`). */
  readonly usageUnavailable: { on: boolean };
  /**
   * The real chain its USDC transfers go over (`--chain anvil`); undefined: transfers
   * are simulated in the database (the default). Set once the chain is up.
   */
  chain?: SandboxChain;
  /** The sandbox's own URL (`http://host:port`, no trailing slash); set once it listens. */
  baseUrl: string;
  /** The shape its answers take (./dialect.ts); `seed` by default. */
  readonly dialect: Dialect;
  /** Waits `ms` (a `sandbox_delay_ms`), ending early when the sandbox closes. */
  sleep(ms: number): Promise<void>;
  /** Ends every pending {@link sleep} at once (called before the server closes). */
  wakeAll(): void;
}

/** Meta key of the database's identity (a UUID). */
const INSTANCE_ID = 'instance_id';
/** Meta key of the clock offset (ms, decimal string). */
const CLOCK_OFFSET = 'clock_offset_ms';

/**
 * Opens the database at `dbPath` (`':memory:'` for a throw-away one), migrates it, and builds
 * the shared state; `usageReadLimit: false` lifts the 12-per-12-hours limit of usage reads (load
 * tests, benchmarks; never the default). Throws when the database cannot be opened.
 */
export function createContext(dbPath: string, options: { dialect?: Dialect; usageReadLimit?: boolean } = {}): SandboxContext {
  const db = openDatabase(dbPath);
  const meta = new MetaStore(db);
  let instance = meta.get(INSTANCE_ID);
  if (instance === undefined) {
    instance = randomUUID();
    meta.set(INSTANCE_ID, instance);
  }
  const clock = createClock(Number(meta.get(CLOCK_OFFSET) ?? 0) || 0, (offset) => meta.set(CLOCK_OFFSET, String(offset)));
  const users = new UserStore(db);
  const keys = new KeyStore(db);
  const ledger = new Ledger(db, clock, keys);
  const sleepers = new Set<() => void>();
  return {
    db,
    instance,
    meta,
    clock,
    users,
    keys,
    ledger,
    declines: new CardDeclines(db),
    auth: new Authenticator(users, keys, clock),
    limiter: new RateLimiter(),
    pools: new PoolStore(db),
    usage: new UsageStore(db),
    usageReads: new UsageReadLimiter(options.usageReadLimit !== false),
    usageUnavailable: { on: false },
    baseUrl: '',
    dialect: options.dialect ?? 'seed',
    sleep(ms: number) {
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          sleepers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        sleepers.add(done);
      });
    },
    wakeAll() {
      for (const wake of [...sleepers]) wake();
    },
  };
}
