/**
 * The old key's spend at the handover of `keys rotate` (the figures of the usage record): its
 * spend over the shortest period the service gives and its spend rate between the last reads of
 * the per-key history. Usage reads are rationed (12 per 12 hours, src/billing/usageBudget.ts): a
 * read is spent only when the schedule would spend one (`auto`); otherwise the kept figures are
 * used with their age, and the line says that no read was spent and when the next one is allowed.
 * `spending` is true when the history shows the key spending in an interval that ends after the
 * successor was delivered.
 */
import { keepsFigures, readUsageList } from '../billing/usageReads.js';
import { nextReadWords } from '../billing/usageWords.js';
import { oldKeySpend } from '../delivery/oldKeySpend.js';
import { sentence } from '../operations/index.js';
import { CommandFailure, type Session } from './output.js';
import { openUsageRig } from './usage.js';

/** What the usage figures say of the old key. */
export interface OldKeyUsage {
  /** Sentences for the terminal (no key value). */
  readonly lines: string[];
  /** The key spent in an interval ending after `deliveredAt`. */
  readonly spending: boolean;
}

/** See the module comment. Never throws: trouble becomes a line. */
export async function oldKeyUsage(session: Session, keyId: string, deliveredAt: number): Promise<OldKeyUsage> {
  let rig;
  try {
    rig = openUsageRig(session);
  } catch (err) {
    return { lines: [`Usage figures: ${err instanceof CommandFailure ? err.message : String(err)}.`], spending: false };
  }
  try {
    const read = await readUsageList(session.client, { budget: rig.budget, credential: rig.credential, origin: rig.origin, mode: 'auto' });
    if (read.fresh && read.data) rig.keyHistory.record(read.data, read.at!);
    const notSpent =
      read.fresh || read.error !== undefined
        ? ''
        : read.declined === 'recent'
          ? ` (no usage read spent: the last is recent; reads are rationed to 12 per 12 h)`
          : ` (no usage read left now: the next is allowed ${nextReadWords(read.budget)})`;
    if (read.error !== undefined && !keepsFigures(read.error)) return { lines: ['Usage figures: the service refused the read.'], spending: false };
    if (!read.data || read.at === undefined) return { lines: [`Usage figures: none yet${notSpent}.`], spending: false };
    const entry = read.data.keys.find((k) => k.id === keyId);
    const spend = oldKeySpend({ periods: entry?.periods, samples: rig.keyHistory.samples(keyId), at: read.at, now: read.budget.now, deliveredAt, note: notSpent });
    return { lines: [sentence(spend.line)], spending: spend.spending };
  } catch (err) {
    return { lines: [`Usage figures: could not be read (${err instanceof Error ? err.message : String(err)}).`], spending: false };
  } finally {
    rig.store.close();
  }
}
