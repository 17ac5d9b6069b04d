/**
 * The top-up record: one local record of every top-up keydeck starts or verifies,
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
 * user's own transfer made public. The older journal file (`topups.json`) is imported once, then
 * renamed `topups.json.imported` (./journalLegacy.ts).
 *
 * ## Fail closed
 *
 * The record is what keeps a charge whose answer was lost from being made again, so a record that
 * cannot be trusted stops every charge and verify ({@link JournalDamagedError}, exit 3): it is
 * never moved aside or started afresh by itself. It is checked at each open, and on disk again
 * before a new top-up is recorded ({@link TopUpJournal.add}, {@link TopUpJournal.check}):
 *
 * - the file as SQLite reads it: a header that is not SQLite's (SQLITE_NOTADB), a page it cannot
 *   read (SQLITE_CORRUPT), and `PRAGMA quick_check` over every page (a file cut short);
 * - every row: its JSON in the record's schema, and its `id`, `state` and `tx_hash` columns equal
 *   to the JSON's (a row edited by hand); a row read later is checked the same way;
 * - against its summary (./journalSummary.ts, `topups-summary.json`, written after each change):
 *   a record missing, of 0 bytes (which SQLite would take for a new database), or without the
 *   unfinished top-ups the summary names, while the summary says it held some, is damaged too.
 *
 * The damaged file is left in place; `keydeck billing history --accept-loss` (./journalLoss.ts)
 * moves it aside and starts a new record, once the user has checked what it held at the service.
 * The states, the moves between them and the record's fields are in ./journalEntry.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { writeFileAtomically } from '../config/atomic.js';
import { isDamagedSqlite, quickCheck } from '../config/sqlite.js';
import { failpoint } from '../failpoints/index.js';
import { BUSY_TIMEOUT_MS, checkTrustedRecordFile, connectJournal, ROW, rowEntry, ownerOnly, sizeOf, sqliteProblem, stripUndefined, UNFINISHED_SQL, type Row } from './journalFile.js';
import {
  INITIAL_STATES,
  inScope,
  isUnfinished,
  JournalDamagedError,
  JournalError,
  TransitionError,
  canMove,
  journalPath,
  type JournalEntry,
  type JournalPatch,
  type JournalScope,
  type NewJournalEntry,
} from './journalEntry.js';
import { insertLegacyEntries, readLegacyJournal } from './journalLegacy.js';
import { heldSentence, readSummary, summaryOf, summaryPath, type JournalSummary, type SummaryRead } from './journalSummary.js';

export * from './journalEntry.js';

/** Most records kept; beyond it the oldest finished ones are dropped (never an unfinished one). */
export const MAX_JOURNAL_ENTRIES = 10_000;

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

/** A patch (or a function of the current record giving one, run inside the write lock). */
export type JournalChange = JournalPatch | ((current: JournalEntry) => JournalPatch | undefined);

/**
 * The record on disk. Opened and checked on first use (the module's "Fail closed"); each method
 * is one SQLite transaction, so it sees and keeps every other process's writes. Methods reject
 * with {@link JournalDamagedError} when the record cannot be trusted, {@link JournalError} when
 * it cannot be opened or written, and {@link TransitionError} for a move the table does not allow.
 */
export class TopUpJournal {
  readonly path: string;
  /** The summary beside it (./journalSummary.ts). */
  readonly summaryPath: string;
  readonly #max: number;
  readonly #now: () => number;
  #db: DatabaseSync | undefined;
  #opening: Promise<DatabaseSync> | undefined;
  /** The summary as last read or written by this instance: what a damaged record held. */
  #held: SummaryRead = { kind: 'none' };
  /** Records imported from the issue-6 `topups.json` by this instance, when any. */
  imported?: number;

  constructor(options: TopUpJournalOptions = {}) {
    this.path = options.path ?? journalPath(options.env ?? process.env);
    this.summaryPath = summaryPath(this.path);
    this.#max = options.maxEntries ?? MAX_JOURNAL_ENTRIES;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Checks the record as it is on disk now (the module's "Fail closed"), with a connection of its
   * own (this instance's, perhaps opened hours ago in the TUI, is left as it is): what a caller
   * about to send a charge calls first.
   * @throws JournalDamagedError when it cannot be trusted; JournalError when it cannot be opened
   */
  async check(): Promise<void> {
    const probe = new TopUpJournal({ path: this.path, maxEntries: this.#max, now: this.#now });
    try {
      await probe.#ready();
    } finally {
      probe.close();
    }
  }

  /** Every record, newest first. */
  async list(): Promise<JournalEntry[]> {
    return this.#rows(await this.#ready(), `SELECT ${ROW} FROM topups ORDER BY seq DESC`);
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
    return this.#rows(await this.#ready(), `SELECT ${ROW} FROM topups WHERE id = ?`, id)[0];
  }

  /** Records of `scope` verified with `txHash` (any case; its current hash, or an earlier one: `triedHashes`), newest first. */
  async withHash(txHash: string, scope: JournalScope): Promise<JournalEntry[]> {
    const hash = txHash.toLowerCase();
    return this.#rows(await this.#ready(), `SELECT ${ROW} FROM topups WHERE tx_hash = ? OR instr(entry, ?) > 0 ORDER BY seq DESC`, hash, `"${hash}"`).filter(
      (e) => inScope(e, scope) && (e.txHash?.toLowerCase() === hash || e.triedHashes?.includes(hash) === true),
    );
  }

  /** The record of `scope` that was credited with `txHash` (case-insensitive; its current hash), if any. */
  async creditedWithHash(txHash: string, scope: JournalScope): Promise<JournalEntry | undefined> {
    const hash = txHash.toLowerCase();
    return (await this.withHash(hash, scope)).find((e) => e.state === 'credited' && e.txHash?.toLowerCase() === hash);
  }

  /**
   * Records a new top-up (state `awaiting_payment` or `verifying`); returns it with its id and
   * times. The file is checked on disk first ({@link check}): a charge is recorded before it is sent.
   * @throws TransitionError for another initial state; JournalDamagedError
   */
  async add(entry: NewJournalEntry): Promise<JournalEntry> {
    if (!INITIAL_STATES.includes(entry.state)) throw new TransitionError(entry.state, entry.state, this.path);
    await this.check();
    return this.#change((db) => {
      const time = new Date(this.#now()).toISOString();
      const created: JournalEntry = { ...stripUndefined(entry), id: randomUUID(), createdAt: time, updatedAt: time };
      db.prepare('INSERT INTO topups (id, state, tx_hash, entry) VALUES (?, ?, ?, ?)').run(created.id, created.state, created.txHash?.toLowerCase() ?? null, JSON.stringify(created));
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
    return this.#change((db) => {
      const row = db.prepare(`SELECT ${ROW} FROM topups WHERE id = ?`).get(id) as Row | undefined;
      if (!row) return undefined;
      const current = this.#valid(row);
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
    const db = await this.#ready();
    try {
      return (db.prepare('PRAGMA data_version').get() as { data_version: number }).data_version;
    } catch (error) {
      throw this.#failure('read', error);
    }
  }

  /** Closes the database (reopened, and checked again, on the next call). */
  close(): void {
    this.#db?.close();
    this.#db = undefined;
    this.#opening = undefined;
  }

  #rows(db: DatabaseSync, sql: string, ...params: string[]): JournalEntry[] {
    let rows: Row[];
    try {
      rows = db.prepare(sql).all(...params) as unknown as Row[];
    } catch (error) {
      throw this.#failure('read', error);
    }
    return rows.map((r) => this.#valid(r));
  }

  /** A row's record, checked (./journalFile.ts {@link rowEntry}). @throws JournalDamagedError */
  #valid(row: Row): JournalEntry {
    const entry = rowEntry(row);
    if ('problem' in entry) throw this.#damaged(entry.problem);
    return entry;
  }

  /** Runs `fn` in one write transaction ({@link #write}), then writes the summary. */
  async #change<T>(fn: (db: DatabaseSync) => T): Promise<T> {
    const { result, summary } = this.#write(await this.#ready(), fn);
    await this.#saveSummary(summary);
    failpoint('record.written', 'topups');
    return result;
  }

  /** Runs `fn` inside BEGIN IMMEDIATE … COMMIT (rolled back when it throws), counting the change; returns the summary after it. */
  #write<T>(db: DatabaseSync, fn: (db: DatabaseSync) => T): { result: T; summary: JournalSummary } {
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw this.#failure('lock', error);
    }
    try {
      const result = fn(db);
      db.exec(`INSERT INTO meta (key, value) VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`);
      const summary = this.#summary(db);
      db.exec('COMMIT');
      return { result, summary };
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

  /** The summary of the record as `db` sees it now. */
  #summary(db: DatabaseSync): JournalSummary {
    const unfinished = (db.prepare(UNFINISHED_SQL).all() as unknown as Row[]).map((r) => this.#valid(r));
    const { n } = db.prepare('SELECT count(*) AS n FROM topups').get() as { n: number };
    const generation = Number((db.prepare(`SELECT value FROM meta WHERE key = 'generation'`).get() as { value?: string } | undefined)?.value ?? 0);
    return summaryOf(unfinished, n, generation, new Date(this.#now()).toISOString());
  }

  /**
   * Writes `summary` unless the file holds a later one (another process's). A summary that cannot
   * be written is tried again at the next change or open: the change itself is committed.
   */
  async #saveSummary(summary: JournalSummary): Promise<void> {
    try {
      const onDisk = await readSummary(this.summaryPath);
      if (onDisk.kind === 'refused') return;
      if (onDisk.kind === 'summary' && onDisk.summary.generation > summary.generation) return;
      await writeFileAtomically(this.summaryPath, `${JSON.stringify(summary, null, 2)}\n`, 0o600);
      this.#held = { kind: 'summary', summary };
    } catch {
      // A full disk, a directory made read-only: the next change or open writes it again.
    }
  }

  /** Drops the oldest finished records beyond the bound (never an unfinished one). */
  #bound(db: DatabaseSync): void {
    const { n } = db.prepare('SELECT count(*) AS n FROM topups').get() as { n: number };
    const excess = n - this.#max;
    if (excess <= 0) return;
    db.prepare(`DELETE FROM topups WHERE seq IN (SELECT seq FROM topups WHERE state NOT IN ('awaiting_payment', 'verifying') ORDER BY seq LIMIT ?)`).run(excess);
  }

  #failure(what: 'read' | 'write' | 'lock', error: unknown): JournalError {
    if (error instanceof JournalError) return error;
    if (isDamagedSqlite(error)) return this.#damaged(sqliteProblem(error));
    const detail = error instanceof Error ? error.message : String(error);
    if (what === 'lock' || /locked|busy/i.test(detail)) {
      return new JournalError(`the top-up record ${this.path} stayed locked by another keydeck for ${BUSY_TIMEOUT_MS / 1000} s; try again.`, this.path);
    }
    return new JournalError(`cannot ${what} the top-up record ${this.path} (${detail}): check the directory's permissions.`, this.path);
  }

  /** The error of a record that cannot be trusted: `problem`, and what the summary says it held. */
  #damaged(problem: string): JournalDamagedError {
    return new JournalDamagedError(this.path, problem, heldSentence(this.#held, this.summaryPath));
  }

  #ready(): Promise<DatabaseSync> {
    if (this.#db) return Promise.resolve(this.#db);
    this.#opening ??= this.#openChecked().then(
      (db) => {
        this.#db = db;
        return db;
      },
      (error: unknown) => {
        this.#opening = undefined;
        throw error;
      },
    );
    return this.#opening;
  }

  /** Opens the database and checks it against its summary (the module's "Fail closed"). */
  async #openChecked(): Promise<DatabaseSync> {
    try {
      mkdirSync(path.dirname(this.path), { recursive: true, mode: 0o700 });
    } catch (error) {
      throw this.#failure('write', error);
    }
    for (const file of [this.path, `${this.path}-wal`, `${this.path}-shm`]) checkTrustedRecordFile(file);
    let held: SummaryRead;
    try {
      held = await readSummary(this.summaryPath);
    } catch (error) {
      throw new JournalError(`cannot read ${this.summaryPath} (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the directory's permissions.`, this.summaryPath);
    }
    if (held.kind === 'refused') throw new JournalError(`the summary of the top-up record: ${held.sentence}`, this.summaryPath);
    this.#held = held;
    // A record existed: a missing or empty file is its loss, not a new record.
    const existed = held.kind === 'unreadable' || (held.kind === 'summary' && held.summary.records > 0);
    const main = sizeOf(this.path);
    if (existed && main === undefined) throw this.#damaged('the file is missing');
    if (existed && main === 0 && !sizeOf(`${this.path}-wal`)) throw this.#damaged('the file is empty (0 bytes)');
    let db: DatabaseSync;
    try {
      db = connectJournal(this.path);
    } catch (error) {
      throw this.#failure('write', error);
    }
    try {
      const found = quickCheck(db);
      if (found !== undefined) throw this.#damaged(`SQLite finds it damaged: ${found}`);
      const entries = this.#rows(db, `SELECT ${ROW} FROM topups ORDER BY seq DESC`);
      if (existed && entries.length === 0) throw this.#damaged(`it holds no top-up, though its summary says it held ${held.kind === 'summary' ? held.summary.records : 'some'}`);
      if (held.kind === 'summary') {
        const ids = new Set(entries.map((e) => e.id));
        const lost = held.summary.unfinished.filter((h) => !ids.has(h.id)).length;
        if (lost > 0) throw this.#damaged(`${lost} unfinished top-up${lost === 1 ? '' : 's'} its summary names ${lost === 1 ? 'is' : 'are'} not in it`);
      }
      const now = this.#summary(db);
      if ((held.kind === 'summary' && held.summary.generation !== now.generation) || (held.kind !== 'summary' && entries.length > 0)) await this.#saveSummary(now);
    } catch (error) {
      db.close();
      throw this.#failure('read', error);
    }
    await this.#importLegacy(db);
    ownerOnly(this.path);
    return db;
  }

  /** Imports the older `topups.json` once (./journalLegacy.ts), then renames it `topups.json.imported`. */
  async #importLegacy(db: DatabaseSync): Promise<void> {
    const legacy = readLegacyJournal(this.path);
    if (legacy === undefined) return; // None, or unreadable: left where it is (./journalLegacy.ts).
    try {
      const { summary } = this.#write(db, () => insertLegacyEntries(db, legacy.entries));
      renameSync(legacy.file, `${legacy.file}.imported`);
      this.imported = legacy.entries.length;
      await this.#saveSummary(summary);
    } catch {
      // Another process imported it first (the file is gone), or the disk refused: try next time.
    }
  }
}
