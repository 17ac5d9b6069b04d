/**
 * A completion request's entry (dist/complete.js): what the executable (src/bin.ts) loads for
 * `keydeck __complete -- WORDS…`, the command the completion scripts run on every Tab
 * (src/commands/completion.ts). It prints the candidates from the command tree the build wrote
 * beside it (dist/completion.json, taken from the program: scripts/build.mjs) without loading
 * dist/main.js, commander or the program, and writes them without making a stream for stdout
 * (src/terminal/closedPipe.ts `writeStdoutNow`): a Tab waits for all of it (bench/oneshot.mjs;
 * docs/performance.md, "One-shot commands"). src/cli/profile.ts answers the same from the program
 * itself, and test/commands/runner.test.ts compares the two. Without the table (a build without
 * it), the program answers.
 */
import { readFileSync } from 'node:fs';
import { runCompletion, type CompletionCommand } from './commands/completion.js';
import { writeStdoutNow } from './terminal/closedPipe.js';

/** The command tree beside this file, when it is there. */
function completionTable(): CompletionCommand | undefined {
  try {
    return JSON.parse(readFileSync(new URL('./completion.json', import.meta.url), 'utf8')) as CompletionCommand;
  } catch {
    // no completion table (a build without it): the program answers instead
    return undefined;
  }
}

const table = completionTable();
if (table !== undefined) {
  // The words after `__complete --` (src/bin.ts sends `__complete` alone here too: no words).
  await runCompletion(table, process.argv.slice(4), process.env.KEYDECK_BASE_URL, writeStdoutNow);
} else {
  // The command line itself (dist/main.js), which answers it from the program.
  await import('./cli.js');
}
