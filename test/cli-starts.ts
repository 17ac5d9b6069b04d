/**
 * How many times this test process started the built CLI, and how: in the test's own thread
 * (`runCli`'s default), as a child process (`runCli` in CI, `startCli`), or in a pseudo-terminal (`startApp`).
 * The three runners count here; `npm run test:cpu` (test/cpu-probe.ts) writes each file's counts
 * beside its CPU time, because about half the suite's CPU goes into the CLI's runs (the figures are
 * in docs/development.md, "How many files at once"). A file that starts the CLI some other way (the
 * keychain's D-Bus session, the packed package, the exporter's rig) is not counted.
 */

/** How the built CLI was started: `runCli`'s two ways (its `CliRunner`), or in a pseudo-terminal. */
export type CliStartKind = 'thread' | 'process' | 'pty';

const counts: Record<CliStartKind, number> = { thread: 0, process: 0, pty: 0 };

/** Counts one start of the built CLI. */
export function countCliStart(kind: CliStartKind): void {
  counts[kind] += 1;
}

/** The starts counted so far in this process (files share it: read it before and after). */
export function cliStarts(): Readonly<Record<CliStartKind, number>> {
  return { ...counts };
}
