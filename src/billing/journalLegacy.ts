/**
 * The older top-up journal, the JSON file `topups.json` beside the database that came before it
 * (`{ version: 1, entries }`): found, read in today's states, and inserted into the database once
 * by ./journal.ts, which then renames the file `topups.json.imported`. An unreadable or untrusted
 * file is left where it is for the user; nothing is lost.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { JournalEntrySchema, type JournalEntry, type TopUpState } from './journalEntry.js';
import { checkTrustedRecordFile } from './journalFile.js';

/** The older journal file beside the database (`topups.json`). */
function legacyJournalPath(databasePath: string): string {
  return path.join(path.dirname(databasePath), 'topups.json');
}

/** The records of the older journal file (`{ version: 1, entries }`), oldest first, in today's states. */
function legacyEntries(body: unknown): JournalEntry[] {
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

/**
 * The older journal file beside the database at `databasePath` and its records (states
 * `submitted` → `verifying`, `abandoned` → `closed`); undefined when there is none, or when it
 * cannot be read or trusted (./journalFile.ts {@link checkTrustedRecordFile}).
 */
export function readLegacyJournal(databasePath: string): { readonly file: string; readonly entries: JournalEntry[] } | undefined {
  const file = legacyJournalPath(databasePath);
  if (!existsSync(file)) return undefined;
  try {
    checkTrustedRecordFile(file);
    return { file, entries: legacyEntries(JSON.parse(readFileSync(file, 'utf8'))) };
  } catch {
    return undefined; // Unreadable or untrusted: left where it is for the user; nothing is lost.
  }
}

/** Inserts `entries` into the `topups` table of `db`, each unless its id is there already; the caller holds the write transaction. */
export function insertLegacyEntries(db: DatabaseSync, entries: readonly JournalEntry[]): void {
  const insert = db.prepare('INSERT OR IGNORE INTO topups (id, state, tx_hash, entry) VALUES (?, ?, ?, ?)');
  for (const e of entries) insert.run(e.id, e.state, e.txHash?.toLowerCase() ?? null, JSON.stringify(e));
}
