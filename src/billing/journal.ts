/**
 * The top-up record (issues 6, 13): one local record of every top-up keydeck starts or verifies,
 * shared by the TUI and the commands (`keydeck billing topup | verify | history`). It is what lets
 * a user finish a top-up that was paid but not yet credited (the worst thing that can happen here)
 * after a restart or a lost connection, and what stops keydeck from submitting a hash it already
 * saw credited.
 *
 * File: `<data dir>/topups.db`, a `node:sqlite` database in WAL mode, the data dir being
 * `KEYDECK_DATA_DIR` when set (tests), else env-paths' `data` dir for `keydeck`
 * (`~/.local/share/keydeck` on Linux); mode 0600 in a 0700 directory; a path that is a symbolic
 * link, not a regular file, or someone else's is refused (as ssh trusts its own files). Every read-modify-write runs
 * in one `BEGIN IMMEDIATE` transaction (SQLite's write lock, waited for up to
 * {@link BUSY_TIMEOUT_MS}), so two keydeck processes on one data dir never lose each other's
 * records. No secret is ever written: no token, no key, only what the service's answers and the
 * user's own transfer made public. The issue-6 journal file (`topups.json`) is imported once, then
 * renamed `topups.json.imported`.
 *
 * The states, the moves between them and the record's fields are in ./journalEntry.ts.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSqlite } from '../config/sqlite.js';
import { failpoint } from '../failpoints/index.js';
import { INITIAL_STATES, inScope, isUnfinished, JournalEntrySchema, JournalError, TransitionError, canMove, journalPath, legacyEntries, legacyJournalPath, type JournalEntry, type JournalPatch, type JournalScope, type NewJournalEntry } from './journalEntry.js';

export * from './journalEntry.js';

/** Most records kept; beyond it the oldest finished ones are dropped (never an unfinished one). */
export const MAX_JOURNAL_ENTRIES = 10_000;
/** How long a change waits for another process's write lock, ms. */
export const BUSY_TIMEOUT_MS = 5_000;

/** Options of {@link TopUpJournal}. */
export interface TopUpJournalOptions {
  /** The database file; default {@link journalPath}(`env`). */
  readonly path?: string;
  /** Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Most records kept. Default {@link MAX_JOURNAL_ENTRIES}. */
  readonly maxEntries?: number;
  /** Clock, epoch ms (tests). Default Date.now. */
  readonly now?: () => number;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS topups (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT, -- insertion order, across processes
    id         TEXT NOT NULL UNIQUE,
    state      TEXT NOT NULL,
    tx_hash    TEXT,                               -- lower case
    entry      TEXT NOT NULL                       -- the record as JSON (JournalEntrySchema)
  ) STRICT;
  CREATE INDEX IF NOT EXISTS topups_by_hash ON topups (tx_hash);
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
`;

/** A patch (or a function of the current record giving one, run inside the write lock). */
export type JournalChange = JournalPatch | ((current: JournalEntry) => JournalPatch | undefined);

/**
 * The record on disk. Opened on first use; each method is one SQLite transaction, so it sees
 * and keeps every other process's writes. Methods reject with {@link JournalError} when the
 * database cannot be opened or written, and with {@link TransitionError} for a move the table
 * does not allow.
 */
export class TopUpJournal {
  readonly path: string;
  readonly #max: number;
  readonly #now: () => number;
  #db: DatabaseSync | undefined;
  /** Where an unreadable database was moved, when one was. */
  movedAside?: string;
  /** Records imported from the issue-6 `topups.json` by this instance, when any. */
  imported?: number;

  constructor(options: TopUpJournalOptions = {}) {
    this.path = options.path ?? journalPath(options.env ?? process.env);
    this.#max = options.maxEntries ?? MAX_JOURNAL_ENTRIES;
    this.#now = options.now ?? Date.now;
  }

  /** Every record, newest first. */
  async list(): Promise<JournalEntry[]> {
    return this.#rows('SELECT entry FROM topups ORDER BY seq DESC');
  }

  /** Records of `scope`, newest first, at most `limit`. */
  async recent(scope: JournalScope, limit = 10): Promise<JournalEntry[]> {
    return (await this.list()).filter((e) => inScope(e, scope)).slice(0, limit);
  }

  /** Unfinished records (awaiting payment, verifying) of `scope`, newest first. */
  async unfinished(scope: JournalScope): Promise<JournalEntry[]> {
    return (await this.list()).filter((e) => inScope(e, scope) && isUnfinished(e.state));
  }

  /** One record by id. */
  async get(id: string): Promise<JournalEntry | undefined> {
    return this.#rows('SELECT entry FROM topups WHERE id = ?', id)[0];
  }

  /** Records of `scope` verified with `txHash` (any case; its current hash, or an earlier one: `triedHashes`), newest first. */
  async withHash(txHash: string, scope: JournalScope): Promise<JournalEntry[]> {
    const hash = txHash.toLowerCase();
    return this.#rows('SELECT entry FROM topups WHERE tx_hash = ? OR instr(entry, ?) > 0 ORDER BY seq DESC', hash, `"${hash}"`).filter(
      (e) => inScope(e, scope) && (e.txHash?.toLowerCase() === hash || e.triedHashes?.includes(hash) === true),
    );
  }

  /** The record of `scope` that was credited with `txHash` (case-insensitive; its current hash), if any. */
  async creditedWithHash(txHash: string, scope: JournalScope): Promise<JournalEntry | undefined> {
    const hash = txHash.toLowerCase();
    return (await this.withHash(hash, scope)).find((e) => e.state === 'credited' && e.txHash?.toLowerCase() === hash);
  }

  /**
   * Records a new top-up (state `awaiting_payment` or `verifying`); returns it with its id and times.
   * @throws TransitionError for another initial state
   */
  async add(entry: NewJournalEntry): Promise<JournalEntry> {
    if (!INITIAL_STATES.includes(entry.state)) throw new TransitionError(entry.state, entry.state, this.path);
    return this.#write((db) => {
      const time = new Date(this.#now()).toISOString();
      const created: JournalEntry = { ...stripUndefined(entry), id: randomUUID(), createdAt: time, updatedAt: time };
      db.prepare('INSERT INTO topups (id, state, tx_hash, entry) VALUES (?, ?, ?, ?)').run(
        created.id,
        created.state,
        created.txHash?.toLowerCase() ?? null,
        JSON.stringify(created),
      );
      this.#bound(db);
      return created;
    });
  }

  /**
   * Applies `change` to record `id` in one transaction: a patch, or a function of the record as
   * it is now (read inside the write lock) returning the patch (undefined: no change). Fields set
   * to undefined are removed. Returns the new record (undefined when there is no such record).
   * @throws TransitionError when the patch's state is a move the table does not allow
   */
  async update(id: string, change: JournalChange): Promise<JournalEntry | undefined> {
    return this.#write((db) => {
      const current = this.#parse(db.prepare('SELECT entry FROM topups WHERE id = ?').get(id) as { entry: string } | undefined);
      if (!current) return undefined;
      const patch = typeof change === 'function' ? change(current) : change;
      if (!patch) return current;
      if (patch.state !== undefined && !canMove(current.state, patch.state)) throw new TransitionError(current.state, patch.state, this.path);
      const next = { ...current, ...patch, updatedAt: new Date(this.#now()).toISOString() } as JournalEntry;
      for (const [k, v] of Object.entries(patch)) if (v === undefined) delete (next as Record<string, unknown>)[k];
      db.prepare('UPDATE topups SET state = ?, tx_hash = ?, entry = ? WHERE id = ?').run(next.state, next.txHash?.toLowerCase() ?? null, JSON.stringify(next), id);
      return next;
    });
  }

  /**
   * A number that changes when another connection to the file (another keydeck process, or another
   * instance) has committed a change since this instance last asked; this instance's own writes
   * leave it as it is (SQLite's `PRAGMA data_version`). One cheap read, no record parsed: a caller
   * that shows the record asks it at each refresh and reads the records only when it changed.
   * @throws JournalError when the database cannot be opened or read
   */
  async dataVersion(): Promise<number> {
    const db = this.#open();
    try {
      return (db.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
    } catch (error) {
      throw this.#failure('read', error);
    }
  }

  /** Closes the database (reopened on the next call). */
  close(): void {
    this.#db?.close();
    this.#db = undefined;
  }

  #rows(sql: string, ...params: string[]): JournalEntry[] {
    const db = this.#open();
    try {
      return (db.prepare(sql).all(...params) as { entry: string }[]).map((r) => this.#parse(r)).filter((e): e is JournalEntry => e !== undefined);
    } catch (error) {
      throw this.#failure('read', error);
    }
  }

  /** A row's record, or undefined when it does not parse (kept on disk, never deleted). */
  #parse(row: { entry: string } | undefined): JournalEntry | undefined {
    if (!row) return undefined;
    try {
      const parsed = JournalEntrySchema.safeParse(JSON.parse(row.entry));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Runs `fn` inside BEGIN IMMEDIATE … COMMIT (rolled back when it throws). */
  #write<T>(fn: (db: DatabaseSync) => T): T {
    const db = this.#open();
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw this.#failure('lock', error);
    }
    try {
      const result = fn(db);
      db.exec('COMMIT');
      failpoint('record.written', 'topups');
      return result;
    } catch (error) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // Already rolled back by SQLite.
      }
      if (error instanceof JournalError) throw error;
      throw this.#failure('write', error);
    }
  }

  /** Drops the oldest finished records beyond the bound (never an unfinished one). */
  #bound(db: DatabaseSync): void {
    const { n } = db.prepare('SELECT count(*) AS n FROM topups').get() as { n: number };
    const excess = n - this.#max;
    if (excess <= 0) return;
    db.prepare(
      `DELETE FROM topups WHERE seq IN (SELECT seq FROM topups WHERE state NOT IN ('awaiting_payment', 'verifying') ORDER BY seq LIMIT ?)`,
    ).run(excess);
  }

  #failure(what: 'read' | 'write' | 'lock', error: unknown): JournalError {
    const detail = error instanceof Error ? error.message : String(error);
    if (what === 'lock' || /locked|busy/i.test(detail)) {
      return new JournalError(`the top-up record ${this.path} stayed locked by another keydeck for ${BUSY_TIMEOUT_MS / 1000} s; try again.`, this.path);
    }
    return new JournalError(`cannot ${what} the top-up record ${this.path} (${detail}): check the directory's permissions.`, this.path);
  }

  #open(): DatabaseSync {
    if (this.#db) return this.#db;
    let db: DatabaseSync;
    try {
      mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
      for (const file of [this.path, `${this.path}-wal`, `${this.path}-shm`]) this.#checkTrusted(file);
      db = this.#connect();
    } catch (error) {
      if (error instanceof JournalError) throw error;
      // Never delete what may be the only record of a paid top-up: move it aside, start afresh.
      if (existsSync(this.path) && /not a database|malformed|file is encrypted/i.test(String((error as Error).message))) {
        const aside = `${this.path}.broken-${new Date(this.#now()).toISOString().replace(/[:.]/g, '-')}`;
        try {
          renameSync(this.path, aside);
          for (const companion of ['-wal', '-shm']) if (existsSync(this.path + companion)) renameSync(this.path + companion, aside + companion);
        } catch {
          throw new JournalError(`the top-up record ${this.path} is not valid and cannot be moved aside: fix or move it.`, this.path);
        }
        this.movedAside = aside;
        db = this.#connect();
      } else {
        throw this.#failure('write', error);
      }
    }
    this.#db = db;
    this.#importLegacy(db);
    for (const file of [this.path, `${this.path}-wal`, `${this.path}-shm`]) {
      try {
        if (existsSync(file)) chmodSync(file, 0o600);
      } catch {
        // A file system without modes: nothing more to do.
      }
    }
    return db;
  }

  /** Refuses a file ssh would not trust as its own: a link, not a regular file, someone else's. */
  #checkTrusted(file: string): void {
    let st;
    try {
      st = lstatSync(file);
    } catch {
      return; // Not there yet: created with mode 0600.
    }
    if (st.isSymbolicLink() || !st.isFile()) {
      throw new JournalError(`the top-up record ${file} is not a regular file (a link or a directory): move it away.`, file);
    }
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
      throw new JournalError(`the top-up record ${file} belongs to another user: move it away.`, file);
    }
  }

  #connect(): DatabaseSync {
    return openSqlite(this.path, BUSY_TIMEOUT_MS, (db) => {
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      db.exec('BEGIN IMMEDIATE');
      db.exec(SCHEMA);
      db.exec('COMMIT');
    });
  }

  /** Imports the issue-6 `topups.json` once (states `submitted` → `verifying`, `abandoned` → `closed`). */
  #importLegacy(db: DatabaseSync): void {
    const file = legacyJournalPath(this.path);
    if (!existsSync(file)) return;
    let entries: JournalEntry[];
    try {
      this.#checkTrusted(file);
      entries = legacyEntries(JSON.parse(readFileSync(file, 'utf8')));
    } catch {
      return; // Unreadable: left where it is for the user; nothing is lost.
    }
    try {
      this.#write(() => {
        const insert = db.prepare('INSERT OR IGNORE INTO topups (id, state, tx_hash, entry) VALUES (?, ?, ?, ?)');
        for (const e of entries) insert.run(e.id, e.state, e.txHash?.toLowerCase() ?? null, JSON.stringify(e));
      });
      renameSync(file, `${file}.imported`);
      this.imported = entries.length;
    } catch {
      // Another process imported it first (the file is gone), or the disk refused: try next time.
    }
  }
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
