/**
 * The sandbox's database: `node:sqlite` (DatabaseSync) in WAL mode, schema versioned with
 * `PRAGMA user_version` and migrated forward on open, opened as keydeck opens its own SQLite
 * files (src/config/sqlite.ts).
 *
 * Money columns are integers in µUSD; timestamps are integers in epoch ms of the sandbox clock.
 * Key columns hold SHA-256 hashes only (and the display prefix of management keys): the file
 * never contains a full `sk_` or `mk_` value. It does hold the demo user's session token (the
 * foreground command prints the same token on every restart); created users' session
 * tokens are stored as hashes only.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { NewerSchemaError, openStore } from '../config/sqlite.js';

/** Ordered migrations: index i brings the schema from version i to i + 1. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    budget_user_id    TEXT,                       -- the credit balance record userId: null until the first top-up
    max_budget_micros INTEGER NOT NULL DEFAULT 0, -- sum of top-ups (totalTopUp)
    spend_micros      INTEGER NOT NULL DEFAULT 0, -- sum of the credit keys' spend
    created_at        INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE sessions (
    token_hash BLOB PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id),
    created_at INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE consumption_keys (
    id                      TEXT PRIMARY KEY,
    user_id                 TEXT NOT NULL REFERENCES users(id),
    name                    TEXT NOT NULL,
    key_plan                TEXT NOT NULL,        -- credits | standard | pro
    key_type                TEXT NOT NULL CHECK (key_type IN ('subscription', 'credit')),
    key_hash                BLOB NOT NULL UNIQUE,
    is_active               INTEGER NOT NULL DEFAULT 1,
    spend_micros            INTEGER NOT NULL DEFAULT 0,
    blocks                  TEXT,                 -- subscription blocks, comma separated
    subscription_expires_at INTEGER,
    created_at              INTEGER NOT NULL,
    deleted_at              INTEGER               -- deleted keys keep their spend (budget model)
  ) STRICT;
  CREATE INDEX consumption_keys_by_user ON consumption_keys (user_id, deleted_at); -- rowid order = creation order
  CREATE INDEX consumption_keys_credit_count ON consumption_keys (user_id, key_type, deleted_at, is_active);

  CREATE TABLE management_keys (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id),
    name         TEXT NOT NULL,
    key_prefix   TEXT NOT NULL,
    key_hash     BLOB NOT NULL UNIQUE,
    last_used_at INTEGER,
    created_at   INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX management_keys_by_user ON management_keys (user_id);

  CREATE TABLE deposit_addresses (            -- one per USDC payment instruction
    address          TEXT PRIMARY KEY,        -- lower-case 0x + 40 hex
    user_id          TEXT NOT NULL REFERENCES users(id),
    requested_micros INTEGER NOT NULL,
    created_at       INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX deposit_addresses_by_user ON deposit_addresses (user_id, created_at);

  CREATE TABLE chain_transfers (              -- the simulated Base chain
    tx_hash      TEXT PRIMARY KEY,            -- lower-case 0x + 64 hex
    to_address   TEXT NOT NULL,
    amount_micros INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX chain_transfers_by_address ON chain_transfers (to_address);

  CREATE TABLE topups (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users(id),
    method        TEXT NOT NULL CHECK (method IN ('usdc', 'card_checkout', 'card_direct')),
    amount_micros INTEGER NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'succeeded')),
    reference     TEXT NOT NULL UNIQUE,       -- tx hash, checkout session id or payment id
    created_at    INTEGER NOT NULL,
    completed_at  INTEGER
  ) STRICT;
  CREATE INDEX topups_by_user ON topups (user_id, status, created_at);
  `,
  // 2: usage events: every served inference request, for GET /api/usage and /v1/usage.
  `
  CREATE TABLE usage_events (
    user_id     TEXT NOT NULL,
    key_id      TEXT NOT NULL,
    t           INTEGER NOT NULL,            -- sandbox clock, epoch ms
    cost_micros INTEGER NOT NULL,            -- what the request cost (charged to credit keys only)
    tokens      INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX usage_events_by_user ON usage_events (user_id, t);
  CREATE INDEX usage_events_by_key ON usage_events (key_id, t);
  `,
  // 3: pool pledges: a pool subscription without its key until
  // POST /api/keys/subscription mints one (subscription_id links the key to its pledge).
  `
  CREATE TABLE pool_pledges (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id),
    pool_id    TEXT NOT NULL,               -- a pool of the sandbox's catalogue (src/sandbox/pools.ts)
    blocks     TEXT NOT NULL,               -- reserved blocks, comma separated
    period_end INTEGER NOT NULL,            -- sandbox clock, epoch ms (30 days after created_at)
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX pool_pledges_by_user ON pool_pledges (user_id, created_at);
  CREATE INDEX pool_pledges_by_pool ON pool_pledges (pool_id, period_end);
  ALTER TABLE consumption_keys ADD COLUMN subscription_id TEXT;
  CREATE INDEX consumption_keys_by_subscription ON consumption_keys (subscription_id) WHERE subscription_id IS NOT NULL;
  `,
  // 4: a pledge renews each period unless its renewal is cancelled (POST /api/billing/cancel).
  `
  ALTER TABLE pool_pledges ADD COLUMN cancel_at_period_end INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX pool_pledges_renewing ON pool_pledges (period_end) WHERE cancel_at_period_end = 0;
  `,
  // 5: card declines: POST /sandbox/cards/decline makes the next N card charges of an
  // account fail as a processor's decline.
  `
  CREATE TABLE card_declines (
    user_id   TEXT PRIMARY KEY REFERENCES users(id),
    remaining INTEGER NOT NULL CHECK (remaining >= 0)
  ) STRICT;
  `,
  // 6: the card on file's credit may lag (POST /sandbox/cards/delay): a lagging charge is pending
  // until due_at; declined charges are kept, so the billing status lists every card charge's end.
  `
  CREATE TABLE card_delays (
    user_id TEXT PRIMARY KEY REFERENCES users(id),
    seconds INTEGER NOT NULL CHECK (seconds >= 0)
  ) STRICT;
  ALTER TABLE topups ADD COLUMN due_at INTEGER;
  CREATE INDEX topups_due ON topups (user_id, due_at) WHERE due_at IS NOT NULL AND status = 'pending';
  CREATE TABLE card_failures (
    reference     TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users(id),
    amount_micros INTEGER NOT NULL,
    created_at    INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX card_failures_by_user ON card_failures (user_id, created_at);
  `,
  // 7: when each consumption key was last presented (its \`lastUsedAt\`, as the newer keys page
  // shows), kept across restarts; an older database takes it from its usage events.
  `
  ALTER TABLE consumption_keys ADD COLUMN last_used_at INTEGER;
  UPDATE consumption_keys SET last_used_at = (SELECT MAX(t) FROM usage_events WHERE usage_events.key_id = consumption_keys.id);
  `,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Size the WAL is cut back to after a checkpoint, bytes (4 MiB: about SQLite's 1,000-page auto-checkpoint). */
export const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * The first row of an `INSERT/UPDATE … RETURNING` statement, the statement run to its end. Not
 * `statement.get()`: stepped once and reset, such a write commits without SQLite's WAL hook, so
 * the automatic checkpoint never runs and the WAL grows without bound (127 MB after 5,000 key
 * creations). Returns undefined when no row was written.
 */
export function returning<T>(statement: StatementSync, ...params: SQLInputValue[]): T | undefined {
  return statement.all(...params)[0] as T | undefined;
}

/**
 * Opens (creating if needed) the database at `path` (`':memory:'` for a throw-away one) through
 * the one opener of keydeck's SQLite files (src/config/sqlite.ts `openStore`: the file and its
 * directory trusted as keydeck's own, mode 0600, WAL), with exclusive locking (one process at a
 * time), and migrates it to {@link SCHEMA_VERSION}.
 * Throws when the file is from a newer keydeck (higher user_version), is in use by another
 * sandbox ("database is locked"), may not be trusted (someone else's, a link, writable by
 * others), or cannot be opened.
 */
export function openDatabase(path: string): DatabaseSync {
  try {
    return openStore({
      file: path,
      kind: 'sandbox database',
      busyTimeoutMs: 500,
      migrations: MIGRATIONS,
      // Exclusive locking: one sandbox owns the file (its in-memory caches and rate windows assume
      // it), and reads skip the per-statement file locking and shared-memory index (faster).
      before: 'PRAGMA locking_mode = EXCLUSIVE;',
      // A bounded WAL (test/sandbox/wal.test.ts): once checkpointed, the log is cut back to 4 MiB (SQLite
      // otherwise keeps the largest size it ever reached), and a log left large by an earlier run
      // is checkpointed and cut at once.
      after: `PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}; PRAGMA wal_checkpoint(TRUNCATE);`,
    });
  } catch (error) {
    if (error instanceof NewerSchemaError) {
      throw new Error(`the sandbox database has schema version ${error.found}, newer than this keydeck (${error.known})`, { cause: error });
    }
    if (error instanceof Error && /locked|busy/i.test(error.message)) {
      throw new Error(`${path} is locked: another running sandbox is using it (stop it, or use another --db)`, { cause: error });
    }
    throw error;
  }
}

/** Open transaction depth per database (node:sqlite's `isTransaction` needs Node ≥ 22.16). */
const depth = new WeakMap<DatabaseSync, number>();

/**
 * Runs `fn` inside `BEGIN IMMEDIATE … COMMIT` (a SAVEPOINT when called inside another
 * `transaction`), rolling back when it throws (and rethrowing). `fn` must be synchronous: nothing
 * else runs on the event loop meanwhile, which is what makes check-then-write sequences (budget
 * reservation, tx crediting) atomic.
 */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  const level = depth.get(db) ?? 0;
  const savepoint = `sp${level}`;
  db.exec(level > 0 ? `SAVEPOINT ${savepoint}` : 'BEGIN IMMEDIATE');
  depth.set(db, level + 1);
  try {
    const result = fn();
    db.exec(level > 0 ? `RELEASE ${savepoint}` : 'COMMIT');
    return result;
  } catch (error) {
    db.exec(level > 0 ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : 'ROLLBACK');
    throw error;
  } finally {
    depth.set(db, level);
  }
}

/** Reads and writes the `meta` table (small string settings: clock offset, demo user). */
export class MetaStore {
  readonly #get;
  readonly #set;

  constructor(db: DatabaseSync) {
    this.#get = db.prepare('SELECT value FROM meta WHERE key = ?');
    this.#set = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  }

  /** The value stored under `key`, or undefined. */
  get(key: string): string | undefined {
    const row = this.#get.get(key) as { value: string } | undefined;
    return row?.value;
  }

  /** Stores `value` under `key` (insert or replace). */
  set(key: string, value: string): void {
    this.#set.run(key, value);
  }
}
