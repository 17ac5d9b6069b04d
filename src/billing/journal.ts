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
 * ## States and transitions
 *
 * A top-up is `credited` or `refused` only on evidence that names it (src/billing/evidence.ts,
 * src/billing/verify.ts); {@link update} refuses every move this table does not list
 * ({@link TransitionError}). A patch that keeps the state is always allowed.
 *
 * | from               | to                 | when                                                                   |
 * |--------------------|--------------------|------------------------------------------------------------------------|
 * | (new)              | `awaiting_payment` | the service gave a deposit address (USDC) or a checkout session (card) |
 * | (new)              | `verifying`        | a card-on-file charge is sent; a verify for a hash not on record       |
 * | `awaiting_payment` | `verifying`        | a verify (USDC) is sent: its hash and the `totalTopUp` baseline saved first |
 * | `refused`          | `verifying`        | the user verifies again (say, with the amount actually sent)           |
 * | `verifying`        | `verifying`        | the answer was lost (timeout, connection, crash): outcome unknown; or another verify is sent (the first unknown verify's baseline kept) |
 * | `verifying`        | `credited`         | the verify answer for its hash; `tx_already_used` for its own hash after its own unknown verify while `totalTopUp` rose by ≥ its amount since that verify's baseline; the card charge's answer naming it credited |
 * | `awaiting_payment` | `credited`         | a service record names its checkout session (or payment) as paid       |
 * | `closed`           | `credited`         | the same evidence, after the user closed it (evidence beats the user's word) |
 * | `verifying`        | `refused`          | the service refused it for a reason about it (`amount_mismatch`; `tx_already_used` without the rule above) |
 * | `verifying`        | `awaiting_payment` | the service answered and credited nothing (`not_found`: not on chain yet), and no earlier verify is unresolved |
 * | `awaiting_payment` | `closed`           | the user closes it (nothing paid, or will not pay)                     |
 * | `verifying`        | `closed`           | the user closes it (after a warning: its outcome is unknown)           |
 * | `refused`          | `closed`           | the user closes it                                                     |
 * | `credited`         | —                  | final: nothing moves it                                                |
 *
 * A rise of `totalTopUp` that nothing names moves nothing: it is shown as what it is.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import { isLoopbackHost } from '../api/baseUrl.js';
import { TopUpMethodSchema, type TopUpMethod } from '../api/schemas.js';
import { dataDir } from '../config/paths.js';

/** Most records kept; beyond it the oldest finished ones are dropped (never an unfinished one). */
export const MAX_JOURNAL_ENTRIES = 10_000;
/** How long a change waits for another process's write lock, ms. */
export const BUSY_TIMEOUT_MS = 5_000;

/** State of a top-up: see the module's transition table. */
export const TopUpStateSchema = z.enum(['awaiting_payment', 'verifying', 'credited', 'refused', 'closed']);
/** See {@link TopUpStateSchema}. */
export type TopUpState = z.infer<typeof TopUpStateSchema>;

/**
 * Every move the record allows (the module's table, without the "(new)" rows), `from → to[]`.
 * Staying in the same state is always allowed.
 */
export const TRANSITIONS: Readonly<Record<TopUpState, readonly TopUpState[]>> = {
  awaiting_payment: ['verifying', 'credited', 'closed'],
  verifying: ['credited', 'refused', 'awaiting_payment', 'closed'],
  refused: ['verifying', 'closed'],
  closed: ['credited'],
  credited: [],
};

/** States a record may be created in. */
export const INITIAL_STATES: readonly TopUpState[] = ['awaiting_payment', 'verifying'];

/** True when the table allows `from → to` (or they are equal). */
export function canMove(from: TopUpState, to: TopUpState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** True for the states a top-up can still move on from by itself (it is reopened after a restart). */
export function isUnfinished(state: TopUpState): boolean {
  return state === 'awaiting_payment' || state === 'verifying';
}

/** One record. Amounts in USD; times ISO 8601. */
export const JournalEntrySchema = z.object({
  /** A random UUID of keydeck's own (not the service's). */
  id: z.string().min(1),
  createdAt: z.string(),
  updatedAt: z.string(),
  /**
   * USD of the top-up: the amount requested, except for USDC, where it is the instruction's
   * amount (what must be sent and is verified) when the service named another one.
   */
  amount: z.number(),
  /** USDC: the amount requested, USD, when the instruction named another (then `amount` is the instruction's). */
  requestedAmount: z.number().optional(),
  /** USDC: the amount the user says was actually sent, when it differs (used to verify), USD. */
  amountSent: z.number().optional(),
  method: TopUpMethodSchema,
  state: TopUpStateSchema,
  /** `host` (with port) of the service's base URL. */
  host: z.string(),
  /** The keydeck profile the top-up was made with. */
  profile: z.string().optional(),
  /** USDC: the deposit address (EIP-55) and chain of §2.5. */
  address: z.string().optional(),
  chain: z.string().optional(),
  /** USDC: the amount string of §2.5 as the service sent it. */
  instructedAmount: z.string().optional(),
  /** Card checkout: §2.4 session id and hosted page URL (to reopen it after a restart). */
  sessionId: z.string().optional(),
  sessionUrl: z.string().optional(),
  /** Card on file: the payment's id when the service's answer gave one. */
  paymentId: z.string().optional(),
  /** USDC: the transaction hash given by the user (`0x` + 64 hex, lower case). */
  txHash: z.string().optional(),
  /** `totalTopUp` (USD) when the top-up was requested: only to show a rise, never to credit. */
  baselineTotalTopUp: z.number().optional(),
  /**
   * `totalTopUp` (USD) read just before the first verify whose outcome is still unknown was sent
   * (kept while the state stays `verifying`): the baseline of the `tx_already_used` rule.
   */
  verifyBaselineTotalTopUp: z.number().optional(),
  /** The last refusal or problem, in words, and its stable code. */
  reason: z.string().optional(),
  reasonCode: z.string().optional(),
  /** What the service credited (USD) and the balance after it (USD), once known. */
  credited: z.number().optional(),
  balance: z.number().optional(),
  /** What named it credited, in words ("the verify answer", "the billing status names session …"). */
  evidence: z.string().optional(),
});
/** See {@link JournalEntrySchema}. */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

/** Fields given when a top-up is first recorded. */
export type NewJournalEntry = Omit<JournalEntry, 'id' | 'createdAt' | 'updatedAt'>;
/** Fields that may change later (a field set to undefined is removed). */
export type JournalPatch = Partial<Omit<JournalEntry, 'id' | 'createdAt' | 'method' | 'host' | 'profile'>>;

/** Which service and profile a query is about. */
export interface JournalScope {
  /** `host` of the base URL (see {@link hostOf}). */
  readonly host: string;
  /** The profile; records of another profile do not match. */
  readonly profile?: string;
}

/** The database's path: `$KEYDECK_DATA_DIR/topups.db` when set, else `<env-paths data dir>/topups.db`. */
export function journalPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'topups.db');
}

/** The issue-6 journal file beside the database (`topups.json`), imported once. */
export function legacyJournalPath(databasePath: string): string {
  return path.join(path.dirname(databasePath), 'topups.json');
}

export { hostOf } from '../api/baseUrl.js';

/**
 * True when two hosts are the same service: equal, or both loopback (the sandbox of
 * `keydeck --sandbox` gets a new free port on every start but keeps its database).
 */
export function sameService(a: string, b: string): boolean {
  if (a === b) return true;
  return isLoopbackHost(a) && isLoopbackHost(b);
}

/** True when `entry` belongs to `scope`. */
export function inScope(entry: JournalEntry, scope: JournalScope): boolean {
  if (!sameService(entry.host, scope.host)) return false;
  return entry.profile === undefined || scope.profile === undefined || entry.profile === scope.profile;
}

/** A record problem (unwritable data dir, database locked too long, …); `message` is one sentence naming the file. */
export class JournalError extends Error {
  override readonly name: string = 'JournalError';
  readonly code: string = 'journal_write_failed';
  readonly path: string;
  constructor(message: string, file: string) {
    super(message);
    this.path = file;
  }
}

/** A move the transition table does not allow (a bug, or evidence read wrong): nothing is written. */
export class TransitionError extends JournalError {
  override readonly name = 'TransitionError';
  override readonly code = 'invalid_transition';
  readonly from: TopUpState;
  readonly to: TopUpState;
  constructor(from: TopUpState, to: TopUpState, file: string) {
    super(`a top-up cannot go from ${stateLabel(from)} to ${stateLabel(to)}; nothing was changed.`, file);
    this.from = from;
    this.to = to;
  }
}

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

  /** Records of `scope` with `txHash` (any case), newest first. */
  async withHash(txHash: string, scope: JournalScope): Promise<JournalEntry[]> {
    return this.#rows('SELECT entry FROM topups WHERE tx_hash = ? ORDER BY seq DESC', txHash.toLowerCase()).filter((e) => inScope(e, scope));
  }

  /** The record of `scope` that was credited with `txHash` (case-insensitive), if any. */
  async creditedWithHash(txHash: string, scope: JournalScope): Promise<JournalEntry | undefined> {
    return (await this.withHash(txHash, scope)).find((e) => e.state === 'credited');
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
    const db = new DatabaseSync(this.path, { timeout: BUSY_TIMEOUT_MS });
    try {
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
      db.exec('BEGIN IMMEDIATE');
      db.exec(SCHEMA);
      db.exec('COMMIT');
    } catch (error) {
      try {
        db.close();
      } catch {
        // nothing to close
      }
      throw error;
    }
    return db;
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

/** The records of an issue-6 journal file (`{ version: 1, entries }`), oldest first, in today's states. */
export function legacyEntries(body: unknown): JournalEntry[] {
  const list = (body as { entries?: unknown })?.entries;
  if (!Array.isArray(list)) throw new Error('not a journal');
  const states: Record<string, TopUpState> = { submitted: 'verifying', abandoned: 'closed' };
  const out: JournalEntry[] = [];
  for (const raw of list) {
    if (!raw || typeof raw !== 'object') continue;
    const { outcomeUnknown: _dropped, ...rest } = raw as Record<string, unknown>;
    const state = typeof rest.state === 'string' ? (states[rest.state] ?? rest.state) : rest.state;
    const parsed = JournalEntrySchema.safeParse({ ...rest, state });
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The label of a state for humans: "awaiting payment", "verifying", "credited", "refused", "closed". */
export function stateLabel(state: TopUpState): string {
  return state.replace('_', ' ');
}

/** The label of a method for humans. */
export function methodLabel(method: TopUpMethod): string {
  return method === 'usdc' ? 'USDC on Base' : method === 'card_checkout' ? 'card checkout' : 'card direct';
}
