/**
 * The faces' words for a top-up record that cannot be trusted (src/billing/journalEntry.ts
 * `JournalDamagedError`, `record_damaged`): the way past it is the user's word, given on the
 * command line (`billing history --accept-loss`, src/billing/journalLoss.ts); the TUI has none of
 * its own, so it names that command.
 */
import type { JournalDamagedError } from '../billing/journalEntry.js';

/** The commands' sentence: the record's facts, then checking with the service and accepting the loss. */
export function recordDamagedSentence(error: JournalDamagedError): string {
  return `${error.message}: check those top-ups with the service first (keydeck billing status, the card statement), then keydeck billing history --accept-loss moves it aside and starts a new record.`;
}

/** The TUI's line: what is wrong, that money actions are refused, the way out, then the file (cut first on a narrow screen). */
export function recordDamagedLine(error: JournalDamagedError): string {
  return `top-up record damaged: no top-up or verify (billing history --accept-loss) · ${error.problem} · ${error.path}`;
}
