/**
 * The top-up record's file (./journal.ts): its SQLite schema, opening it, the check of one row,
 * and what a damaged file is in words. The record's rules are in ./journal.ts.
 */
import { chmodSync, existsSync, lstatSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { openStore } from '../config/sqlite.js';
import { checkTrustedFileSync, type TrustProblem } from '../config/trust.js';
import { JournalEntrySchema, JournalError, stateLabel, TopUpStateSchema, type JournalEntry } from './journalEntry.js';

/** How long a change waits for another process's write lock, ms. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * The record's migrations (src/config/sqlite.ts `openStore`): index i brings `user_version` i to
 * i + 1. Append only. The first is the schema the record had before it was versioned, written
 * `IF NOT EXISTS`: a record of an earlier keydeck (version 0, its tables there) only gets its
 * version; an earlier keydeck still opens a record of version 1 (it reads no version).
 */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS topups (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT, -- insertion order, across processes
    id         TEXT NOT NULL UNIQUE,
    state      TEXT NOT NULL,
    tx_hash    TEXT,                               -- lower case
    entry      TEXT NOT NULL                       -- the record as JSON (JournalEntrySchema)
  ) STRICT;
  CREATE INDEX IF NOT EXISTS topups_by_hash ON topups (tx_hash);
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT; -- 'generation': changes committed
  `,
];

/** A row as stored: its columns beside the record's JSON. */
export interface Row {
  readonly seq: number;
  readonly id: string;
  readonly state: string;
  readonly tx_hash: string | null;
  readonly entry: string;
}
/** The columns of a {@link Row}, for a SELECT. */
export const ROW = 'seq, id, state, tx_hash, entry';
/** The unfinished records' rows, newest first. */
export const UNFINISHED_SQL = `SELECT ${ROW} FROM topups WHERE state IN ('awaiting_payment', 'verifying') ORDER BY seq DESC`;

/** `value` without its fields set to undefined. */
export function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Opens (creating when missing) the record at `file`, migrated, through the one opener of
 * keydeck's SQLite files (src/config/sqlite.ts `openStore`); a damaged file is thrown, never moved.
 * @throws JournalError for a file or directory it may not trust; what SQLite throws
 */
export function connectJournal(file: string): DatabaseSync {
  return openStore({ file, kind: 'top-up record', busyTimeoutMs: BUSY_TIMEOUT_MS, migrations: MIGRATIONS, refuse: (problem) => refusal(problem) });
}

/** The record's error for a file it may not trust: the sentence of src/config/trust.ts. */
function refusal(problem: TrustProblem): JournalError {
  return new JournalError(`${problem.sentence}.`, problem.path);
}

/**
 * The record of `row`, or what is wrong with it: its JSON not in the record's schema, or its
 * `id`, `state` or `tx_hash` column not the JSON's (a row changed outside keydeck).
 */
export function rowEntry(row: Row): JournalEntry | { readonly problem: string } {
  let entry: JournalEntry | undefined;
  try {
    const parsed = JournalEntrySchema.safeParse(JSON.parse(row.entry));
    if (parsed.success) entry = parsed.data;
  } catch {
    // Not JSON: said below.
  }
  if (entry && entry.id === row.id && entry.state === row.state && (entry.txHash?.toLowerCase() ?? null) === row.tx_hash) return entry;
  const state = TopUpStateSchema.safeParse(row.state);
  return { problem: `its top-up #${row.seq}${state.success ? ` (${stateLabel(state.data)})` : ''} is not as keydeck wrote it: it was changed outside keydeck` };
}

/** The size of `file` in bytes, undefined when it is not there. */
export function sizeOf(file: string): number | undefined {
  try {
    return lstatSync(file).size;
  } catch {
    // no file (or no access): no size to say
    return undefined;
  }
}

/** SQLite's refusal of a damaged file in words (src/config/sqlite.ts `isDamagedSqlite`). */
export function sqliteProblem(error: unknown): string {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  if (code === 26 || /not a database|encrypted/i.test(String((error as Error | null)?.message))) return 'it is not an SQLite database: its header is damaged';
  return `SQLite cannot read it: ${String((error as Error | null)?.message ?? error).slice(0, 200)}`;
}

/**
 * Refuses a file of the record ssh would not trust as its own (src/config/trust.ts): a link, not
 * a regular file, someone else's, writable by others. A missing file is fine (created with mode 0600).
 * @throws JournalError naming `file`
 */
export function checkTrustedRecordFile(file: string): void {
  const problem = checkTrustedFileSync(file, 'top-up record');
  if (problem) throw refusal(problem);
}

/** Mode 0600 on the record at `file` and its `-wal` and `-shm`, where they exist (a file system without modes: nothing). */
export function ownerOnly(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if (existsSync(f)) chmodSync(f, 0o600);
    } catch {
      // A file system without modes: nothing more to do.
    }
  }
}
