/**
 * src/words: the faces' words for what the layers below report. A lower layer throws or returns a
 * stable code and its facts and knows no face (docs/architecture.md, "The error type"); the
 * sentences here name what a user of a face does next: a command and its flags on the command
 * line (the commands, and the TUI's own lines on stderr before it draws), a key or a pane in the
 * TUI. Where the faces differ, each has its own function, named for it.
 *
 * May import: any layer below the faces (src/config, src/billing, src/terminal, src/api…).
 * Imported by: the faces only (src/commands, src/tui, src/exporter).
 */
export { belowSentence, noSuchProfileSentence, readOnlySentence } from './account.js';
export { recordDamagedLine, recordDamagedSentence } from './topUpRecord.js';
