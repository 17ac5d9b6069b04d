/**
 * The file `history.db`: where it is, how it is opened safely, and its schema.
 * One `node:sqlite` database in WAL mode with a busy timeout, shared by every keydeck process of
 * the user (the TUI, `monitor`, commands), holding:
 * - `series`, `readings`: the balance history per profile and origin (./historyStore.ts);
 * - `usage_keys`, `key_samples`: the per-key spend samples of each usage read (./keyHistory.ts);
 * - `usage_calls`, `usage_state`, `usage_answers`, `origin_clock`: the shared, locked record of
 *   usage reads per credential and origin, the last answers kept with their time, and the
 *   service's clock (./usageBudget.ts); `usage_accounts`, `usage_shared`: which account a
 *   credential belongs to, and the accounts whose reads the service was seen to count together;
 * - `anomalies`: runaway-key episodes, so one episode is told once (./keyHistory.ts).
 *
 * Mode 0600 in a 0700 directory; a path that is a symbolic link, not a regular file, owned by
 * someone else or writable by others is refused (src/config/trust.ts). A file that is not a database is moved aside
 * (`history.db.broken-<timestamp>`) and a fresh one starts. Nothing secret is stored: no token,
 * no key value (credentials are named by a one-way hash), only figures, names and ids.
 */
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { dataDir } from '../config/paths.js';
import { openStore } from '../config/sqlite.js';
import { KeydeckError } from '../errors/index.js';

/** Stable codes of {@link HistoryStoreError}. */
export type HistoryStoreErrorCode = 'history_unsafe_path' | 'history_unavailable';

/** The history database cannot be used; `message` is one sentence naming the file. */
export class HistoryStoreError extends KeydeckError {
  override readonly name = 'HistoryStoreError';
  override readonly code: HistoryStoreErrorCode;
  readonly path: string;
  constructor(code: HistoryStoreErrorCode, message: string, file: string) {
    super(code, message);
    this.code = code;
    this.path = file;
  }
}

/** `KEYDECK_HISTORY_DB` when set, else `<dataDir>/history.db`. */
export function historyDbPath(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.KEYDECK_HISTORY_DB;
  if (override && override.trim() !== '') return path.resolve(override);
  return path.join(dataDir(env), 'history.db');
}

/** Ordered migrations: index i brings the schema from version i to i + 1. Append only. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS series (
    id INTEGER PRIMARY KEY,
    profile TEXT NOT NULL,
    origin TEXT NOT NULL,
    UNIQUE (profile, origin)
  );
  CREATE TABLE IF NOT EXISTS readings (
    series INTEGER NOT NULL REFERENCES series (id),
    t INTEGER NOT NULL,
    remaining INTEGER NOT NULL,
    total_top_up INTEGER,
    spent INTEGER GENERATED ALWAYS AS (total_top_up - remaining) VIRTUAL,
    PRIMARY KEY (series, t)
  ) WITHOUT ROWID;
  `,
  // 2: per-key usage samples, the usage read budget, runaway episodes.
  `
  CREATE TABLE usage_keys (
    id INTEGER PRIMARY KEY,
    series INTEGER NOT NULL REFERENCES series (id),
    key_id TEXT NOT NULL,
    name TEXT,
    UNIQUE (series, key_id)
  );
  CREATE TABLE key_samples (
    key INTEGER NOT NULL REFERENCES usage_keys (id),
    t INTEGER NOT NULL,          -- the read, service clock, epoch SECONDS
    cum INTEGER NOT NULL,        -- cumulative spend, µUSD (all time, else the longest period sent)
    d1 INTEGER,                  -- spend of the last 24 h, µUSD, when sent
    PRIMARY KEY (key, t)
  ) WITHOUT ROWID;
  CREATE TABLE usage_calls (
    credential TEXT NOT NULL,    -- one-way hash of origin and token
    t INTEGER NOT NULL,          -- service clock, epoch ms
    kind TEXT NOT NULL
  );
  CREATE INDEX usage_calls_by_credential ON usage_calls (credential, t);
  CREATE TABLE usage_state (
    credential TEXT PRIMARY KEY,
    origin TEXT NOT NULL,
    blocked_until INTEGER        -- a 429 asked to wait until then (service clock, ms)
  );
  CREATE TABLE usage_answers (
    credential TEXT NOT NULL,
    kind TEXT NOT NULL,          -- list | key:<id> | self
    t INTEGER NOT NULL,          -- service clock, epoch ms
    body TEXT NOT NULL,          -- the answer's data as JSON, key values dropped
    PRIMARY KEY (credential, kind)
  );
  CREATE TABLE origin_clock (
    origin TEXT PRIMARY KEY,
    offset_ms INTEGER NOT NULL   -- the service's clock minus this machine's (HTTP Date)
  );
  CREATE TABLE anomalies (
    key INTEGER NOT NULL REFERENCES usage_keys (id),
    started_at INTEGER NOT NULL, -- service clock, epoch ms
    last_at INTEGER NOT NULL,
    ended_at INTEGER,
    kind TEXT NOT NULL,          -- runaway | dormant
    usd_per_hour REAL NOT NULL,
    baseline_usd_per_hour REAL,
    PRIMARY KEY (key, started_at)
  ) WITHOUT ROWID;
  `,
  // 3: the usage read limit learnt to be the account's, not the credential's.
  `
  CREATE TABLE usage_accounts (
    credential TEXT PRIMARY KEY, -- one-way hash of origin and token
    origin TEXT NOT NULL,
    account TEXT NOT NULL        -- acct: + one-way hash of origin and the service's userId
  );
  CREATE INDEX usage_accounts_by_account ON usage_accounts (account);
  CREATE TABLE usage_shared (
    account TEXT PRIMARY KEY,    -- its credentials' usage reads are counted together
    origin TEXT NOT NULL,
    learned_at INTEGER NOT NULL  -- service clock, epoch ms: the 429 that taught it
  );
  `,
];

/** The schema version this code writes. */
export const HISTORY_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The page cache of each connection to `history.db`, KiB (SQLite's `cache_size`; its default is
 * 2,000 KiB). A connection keeps every page it has read or written in its cache up to that bound,
 * in the process's own memory, and a running keydeck reads almost nothing twice: each poll writes
 * one reading (a few pages: the b-tree's path to its last leaf), each usage read writes its
 * answer and samples once, and the history and the kept answers are read once, at start, when the
 * cache is empty anyway (and emptied again whenever another process writes the file). So the
 * default cache only filled with the pages written through the day as the file grew: over a day
 * of 2 s polls the TUI's cache went from 0.15 to 1.3 MB of its resident memory (up to 2 MB on a
 * larger file), and with this bound it stays at 0.27 MB with the same cache hits and no more reads
 * of the file (docs/performance.md, "A day of polls and history.db's page cache"). Pages beyond
 * it are read again from the file, which the operating system caches.
 */
const HISTORY_CACHE_KIB = 256;

/**
 * Opens (creating when needed) the history database at `file`, migrated to
 * {@link HISTORY_SCHEMA_VERSION}, through the one opener of keydeck's SQLite files
 * (src/config/sqlite.ts `openStore`). A file that is not a database is moved aside and a fresh
 * one started: the history is a cache.
 * @throws HistoryStoreError `history_unsafe_path` (a symbolic link, not a regular file, someone
 *   else's or writable by others, or in a directory others may change) or `history_unavailable`
 *   (cannot be created or opened, or is from a newer keydeck).
 */
export function openHistoryDatabase(file: string, busyTimeoutMs = 2000): DatabaseSync {
  try {
    return openStore({
      file,
      kind: 'balance history',
      busyTimeoutMs,
      migrations: MIGRATIONS,
      // A new file gets incremental auto-vacuum before its first table (it cannot be set later
      // without a VACUUM).
      before: 'PRAGMA auto_vacuum = INCREMENTAL',
      after: `PRAGMA cache_size = -${HISTORY_CACHE_KIB}`,
      damaged: 'move aside',
      refuse: (problem) => new HistoryStoreError('history_unsafe_path', problem.sentence, file),
    });
  } catch (error) {
    if (error instanceof HistoryStoreError) throw error;
    throw new HistoryStoreError('history_unavailable', `cannot open the balance history ${file} (${messageOf(error)})`, file);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
