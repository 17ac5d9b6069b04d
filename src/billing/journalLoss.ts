/**
 * Starting a new top-up record once the old one cannot be trusted (`keydeck billing history
 * --accept-loss`): the only way past {@link JournalDamagedError}, by the user's word, after they
 * have checked at the service what the damaged record held. Nothing is deleted: the damaged file
 * (with its `-wal` and `-shm`) and its summary are moved aside, named with the time, for repair
 * (`sqlite3 FILE .recover`) or inspection. Run under the data dir's lock (src/config/lock.ts), so
 * two of them at once move one record aside.
 */
import { renameSync } from 'node:fs';
import path from 'node:path';
import { withConfigLock } from '../config/lock.js';
import { JournalDamagedError, TopUpJournal } from './journal.js';
import { sizeOf } from './journalFile.js';

/** What {@link acceptJournalLoss} did. */
export type AcceptedLoss =
  /** The record can be read: nothing was moved. */
  | { readonly kind: 'readable' }
  /** Moved aside: the files' new paths, and the sentence that had stopped every charge. */
  | { readonly kind: 'moved'; readonly aside: readonly string[]; readonly damage: string };

/**
 * Checks the record at `journal.path` and, when it cannot be trusted, moves it and its summary
 * aside (`<name>.damaged-<time>`); the next use of the record starts a new one. `now`: epoch ms.
 * @throws JournalError when the record cannot be opened for another reason, or a file cannot be moved
 */
export async function acceptJournalLoss(journal: TopUpJournal, now: number = Date.now()): Promise<AcceptedLoss> {
  return withConfigLock(path.dirname(journal.path), async () => {
    const probe = new TopUpJournal({ path: journal.path });
    try {
      await probe.check();
      return { kind: 'readable' } as const;
    } catch (error) {
      if (!(error instanceof JournalDamagedError)) throw error;
      const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
      const aside: string[] = [];
      for (const file of [journal.path, `${journal.path}-wal`, `${journal.path}-shm`, journal.summaryPath]) {
        if (sizeOf(file) === undefined) continue;
        const to = `${file}.damaged-${stamp}`;
        renameSync(file, to);
        aside.push(to);
      }
      return { kind: 'moved', aside, damage: error.message } as const;
    } finally {
      probe.close();
      journal.close();
    }
  });
}
