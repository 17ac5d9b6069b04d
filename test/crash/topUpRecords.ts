/**
 * The top-up record a crash walk's world holds (the data dir its `env` names), read the way a
 * keydeck process reads it and closed at once: what the walks' invariants are judged on.
 */
import { TopUpJournal, type JournalEntry } from '../../src/billing/journal.js';

/** Every entry of the top-up record under `env` (KEYDECK_DATA_DIR…), newest first. */
export async function topUpRecords(env: NodeJS.ProcessEnv): Promise<JournalEntry[]> {
  const journal = new TopUpJournal({ env });
  try {
    return await journal.list();
  } finally {
    journal.close();
  }
}
