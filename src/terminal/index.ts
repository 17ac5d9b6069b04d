/**
 * src/terminal: what both faces share about terminals, without Ink: the one sanitiser of
 * outside text (./sanitize.ts), OSC sequences (./osc.ts: clipboard, notifications, links), the
 * colour rule (./color.ts), the guard on what reaches stdout (./outputGuard.ts), notifications
 * (./notify.ts; how the user's hook commands run: ./userHook.ts), the one filter of keydeck's
 * secrets out of a child's environment (./secretEnv.ts: hooks and destination commands), a
 * closed pipe ending a command quietly
 * (./closedPipe.ts), the spinner, name collation (./collate.ts), and command hints that carry
 * the run's `--sandbox` (./commandHint.ts).
 *
 * May import: src/api and node only; never a face, src/billing or src/config.
 * Imported by: src/cli, src/commands, src/tui, src/billing, src/delivery, src/exporter.
 */
export {};
