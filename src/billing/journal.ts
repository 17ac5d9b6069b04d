/**
 * The local top-up journal (issue 6): every top-up keydeck starts, with its amount, method,
 * deposit address or checkout session, transaction hash when given, and state. It is what lets
 * a user finish a top-up that was paid but not yet credited (the worst thing that can happen
 * here) after a restart or a lost connection, and what stops keydeck from submitting a hash it
 * already saw credited.
 *
 * File: `<data dir>/topups.json`, the data dir being `KEYDECK_DATA_DIR` when set (tests), else
 * env-paths' `data` dir for `keydeck` (`~/.local/share/keydeck` on Linux). Written atomically
 * (write-file-atomic), mode 0600 in a 0700 directory. No secret is ever written: no token, no
 * key, only what the service's answers and the user's own transfer made public.
 *
 * Format: `{ "version": 1, "entries": [ … ] }`, oldest first, at most {@link MAX_JOURNAL_ENTRIES}
 * entries (finished ones are dropped first). A file that cannot be read as a journal is never
 * overwritten: it is moved aside to `topups.json.broken-<timestamp>` and a fresh journal starts.
 */
import { isLoopbackHost } from '../api/baseUrl.js';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../config/paths.js';
import { z } from 'zod';
import { TopUpMethodSchema, type TopUpMethod } from '../api/schemas.js';
import { writeFileAtomically } from '../config/atomic.js';

/** Most entries kept in the journal. */
export const MAX_JOURNAL_ENTRIES = 200;

/**
 * State of a top-up:
 * - `awaiting_payment`: the service gave a deposit address or a checkout session; not paid yet
 *   (as far as keydeck knows);
 * - `submitted`: a transaction hash was sent to verify-topup (or a card direct charge was sent)
 *   and the credit is not confirmed yet (not found yet, answer lost, …);
 * - `credited`: the service credited it (verify-topup answered, or the balance rose by the amount);
 * - `refused`: the service refused it for good (`reason` says why);
 * - `abandoned`: the user closed it, saying nothing was paid.
 */
export const TopUpStateSchema = z.enum(['awaiting_payment', 'submitted', 'credited', 'refused', 'abandoned']);
/** See {@link TopUpStateSchema}. */
export type TopUpState = z.infer<typeof TopUpStateSchema>;

/** True for the states a top-up can still move on from (it is reopened after a restart). */
export function isUnfinished(state: TopUpState): boolean {
  return state === 'awaiting_payment' || state === 'submitted';
}

/** One journal entry. Amounts in USD; times ISO 8601. */
export const JournalEntrySchema = z.object({
  /** A random UUID of keydeck's own (not the service's). */
  id: z.string().min(1),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** USD requested. */
  amount: z.number(),
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
  /** USDC: the transaction hash given by the user (`0x` + 64 hex, lower case). */
  txHash: z.string().optional(),
  /** `totalTopUp` (USD) before the top-up: it is credited once `totalTopUp` has risen by `amount`. */
  baselineTotalTopUp: z.number().optional(),
  /** The last refusal or problem, in words, and its stable code. */
  reason: z.string().optional(),
  reasonCode: z.string().optional(),
  /** The last verify-topup's outcome was unknown (connection lost after sending). */
  outcomeUnknown: z.boolean().optional(),
  /** §2.6 figures once credited, USD. */
  credited: z.number().optional(),
  balance: z.number().optional(),
});
/** See {@link JournalEntrySchema}. */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

/** The file's shape. */
export const JournalFileSchema = z.object({
  version: z.literal(1),
  entries: z.array(JournalEntrySchema),
});

/** Fields given when a top-up is first recorded. */
export type NewJournalEntry = Omit<JournalEntry, 'id' | 'createdAt' | 'updatedAt'>;
/** Fields that may change later. */
export type JournalPatch = Partial<Omit<JournalEntry, 'id' | 'createdAt' | 'method' | 'host' | 'profile'>>;

/** Which service and profile a journal query is about. */
export interface JournalScope {
  /** `host` of the base URL (see {@link hostOf}). */
  readonly host: string;
  /** The profile; entries of another profile do not match. */
  readonly profile?: string;
}

/**
 * The journal file's path: `$KEYDECK_DATA_DIR/topups.json` when set, else
 * `<env-paths('keydeck', { suffix: '' }).data>/topups.json`.
 */
export function journalPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'topups.json');
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

function inScope(entry: JournalEntry, scope: JournalScope): boolean {
  if (!sameService(entry.host, scope.host)) return false;
  return entry.profile === undefined || scope.profile === undefined || entry.profile === scope.profile;
}

/** A journal problem (unwritable data dir, …); `message` is one sentence naming the file. */
export class JournalError extends Error {
  override readonly name = 'JournalError';
  readonly code = 'journal_write_failed';
  readonly path: string;
  constructor(message: string, file: string) {
    super(message);
    this.path = file;
  }
}

/** Options of {@link TopUpJournal}. */
export interface TopUpJournalOptions {
  /** The file; default {@link journalPath}(`env`). */
  readonly path?: string;
  /** Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Most entries kept. Default {@link MAX_JOURNAL_ENTRIES}. */
  readonly maxEntries?: number;
  /** Clock, epoch ms (tests). Default Date.now. */
  readonly now?: () => number;
}

/**
 * The journal on disk. Every change re-reads the file and writes it back atomically, and the
 * changes of one process are applied one at a time (two keydeck processes writing in the same
 * instant: the last write wins). Methods reject with {@link JournalError} when the file cannot
 * be written; reads of a missing file give an empty journal.
 */
export class TopUpJournal {
  readonly path: string;
  readonly #max: number;
  readonly #now: () => number;
  #queue: Promise<unknown> = Promise.resolve();
  /** Where a broken file was moved, when one was. */
  movedAside?: string;

  constructor(options: TopUpJournalOptions = {}) {
    this.path = options.path ?? journalPath(options.env ?? process.env);
    this.#max = options.maxEntries ?? MAX_JOURNAL_ENTRIES;
    this.#now = options.now ?? Date.now;
  }

  /** Every entry, newest first. */
  async list(): Promise<JournalEntry[]> {
    await this.#queue.catch(() => {});
    return (await this.#read()).reverse();
  }

  /** Entries of `scope`, newest first, at most `limit`. */
  async recent(scope: JournalScope, limit = 10): Promise<JournalEntry[]> {
    return (await this.list()).filter((e) => inScope(e, scope)).slice(0, limit);
  }

  /** Unfinished entries (awaiting payment, submitted) of `scope`, newest first. */
  async unfinished(scope: JournalScope): Promise<JournalEntry[]> {
    return (await this.list()).filter((e) => inScope(e, scope) && isUnfinished(e.state));
  }

  /** One entry by id. */
  async get(id: string): Promise<JournalEntry | undefined> {
    return (await this.list()).find((e) => e.id === id);
  }

  /** The entry of `scope` that was credited with `txHash` (case-insensitive), if any. */
  async creditedWithHash(txHash: string, scope: JournalScope): Promise<JournalEntry | undefined> {
    const hash = txHash.toLowerCase();
    return (await this.list()).find((e) => inScope(e, scope) && e.state === 'credited' && e.txHash?.toLowerCase() === hash);
  }

  /** Records a new top-up; returns it with its id and times. */
  add(entry: NewJournalEntry): Promise<JournalEntry> {
    return this.#change((entries) => {
      const time = new Date(this.#now()).toISOString();
      const created: JournalEntry = { ...entry, id: randomUUID(), createdAt: time, updatedAt: time };
      entries.push(created);
      return created;
    });
  }

  /** Applies `patch` to entry `id`; returns the new entry (undefined when there is no such entry). */
  update(id: string, patch: JournalPatch): Promise<JournalEntry | undefined> {
    return this.#change((entries) => {
      const i = entries.findIndex((e) => e.id === id);
      if (i < 0) return undefined;
      const next: JournalEntry = { ...entries[i]!, ...patch, updatedAt: new Date(this.#now()).toISOString() };
      for (const [k, v] of Object.entries(patch)) if (v === undefined) delete (next as Record<string, unknown>)[k];
      entries[i] = next;
      return next;
    });
  }

  /** Runs one read-modify-write after the ones before it. */
  #change<T>(mutate: (entries: JournalEntry[]) => T): Promise<T> {
    const run = this.#queue.catch(() => {}).then(async () => {
      const entries = await this.#read();
      const result = mutate(entries);
      await this.#write(this.#bounded(entries));
      return result;
    });
    this.#queue = run;
    return run;
  }

  /** Drops the oldest finished entries (then the oldest of any) beyond the bound. */
  #bounded(entries: JournalEntry[]): JournalEntry[] {
    let excess = entries.length - this.#max;
    if (excess <= 0) return entries;
    const out = entries.filter((e) => {
      if (excess > 0 && !isUnfinished(e.state)) {
        excess--;
        return false;
      }
      return true;
    });
    return out.slice(Math.max(0, out.length - this.#max));
  }

  async #read(): Promise<JournalEntry[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new JournalError(`cannot read the top-up journal ${this.path} (${(error as NodeJS.ErrnoException).code ?? 'error'}).`, this.path);
    }
    let parsed: z.infer<typeof JournalFileSchema> | undefined;
    try {
      const result = JournalFileSchema.safeParse(JSON.parse(text));
      if (result.success) parsed = result.data;
    } catch {
      parsed = undefined;
    }
    if (parsed) return parsed.entries;
    // Never overwrite what may be the only record of a paid top-up: move it aside.
    const aside = `${this.path}.broken-${new Date(this.#now()).toISOString().replace(/[:.]/g, '-')}`;
    try {
      await rename(this.path, aside);
      this.movedAside = aside;
    } catch {
      throw new JournalError(`the top-up journal ${this.path} is not valid and cannot be moved aside: fix or move it.`, this.path);
    }
    return [];
  }

  async #write(entries: JournalEntry[]): Promise<void> {
    try {
      await mkdir(path.dirname(this.path), { recursive: true, mode: 0o700 });
      await writeFileAtomically(this.path, `${JSON.stringify({ version: 1, entries }, null, 2)}\n`, 0o600);
    } catch (error) {
      throw new JournalError(
        `cannot write the top-up journal ${this.path} (${(error as NodeJS.ErrnoException).code ?? 'error'}): check the directory's permissions.`,
        this.path,
      );
    }
  }
}

/** The label of a state for humans: "awaiting payment", "submitted", "credited", "refused", "abandoned". */
export function stateLabel(state: TopUpState): string {
  return state.replace('_', ' ');
}

/** The label of a method for humans. */
export function methodLabel(method: TopUpMethod): string {
  return method === 'usdc' ? 'USDC on Base' : method === 'card_checkout' ? 'card checkout' : 'card direct';
}
