/**
 * The TUI's lines for the events of a key operation (src/operations/events.ts), in the words of
 * the operations' wording table (src/operations/wording.ts) and sanitised: a destination's
 * outcome as `✓ …` / `✕ …` (./delivery/useKeyDelivery.ts), a warning as `! …`, the rest as
 * sentences.
 */
import { eventPhrases, eventWords, type OperationEvent } from '../../operations/index.js';
import { visible } from '../../terminal/sanitize.js';
import { outcomeLines } from './delivery/useKeyDelivery.js';

/** See the module comment. */
export function eventLines(event: OperationEvent): string[] {
  if (event.type === 'delivery') return outcomeLines([event.outcome]);
  if (event.type === 'salvaged') return eventPhrases(event, 'tui').map((p) => `! ${visible(p)}`);
  return eventWords(event, 'tui').map((line) => visible(line));
}
