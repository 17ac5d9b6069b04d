#!/usr/bin/env node
/**
 * keydeck's command line (dist/main.js): reads the package's version and hands argv to
 * src/cli/main.ts, which parses it with the program of src/cli/program.ts and hands over to one
 * face: the TUI, a scriptable command, or the sandbox server. It holds no logic of its own; every
 * face is imported lazily, so a command never pays for Ink and the TUI never pays for Fastify.
 * (The executable, src/bin.ts, checks the Node.js version first.)
 */
import { createRequire } from 'node:module';
import type { CompletionCommand } from './commands/completion.js';
import { exitQuietlyOnClosedPipe } from './terminal/closedPipe.js';

// Beside dist/main.js: the package's own package.json (a chunk under dist/chunks/ could not say `..`).
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const args = process.argv.slice(2);
/** The command tree the build wrote beside this file (scripts/build.mjs), when it is there. */
const completionTable = (): CompletionCommand | undefined => {
  try {
    return createRequire(import.meta.url)('./completion.json') as CompletionCommand;
  } catch {
    // no completion table (a build without it): the program answers instead
    return undefined;
  }
};
const table = args[0] === '__complete' && (args[1] === '--' || args.length === 1) ? completionTable() : undefined;
if (table !== undefined) {
  exitQuietlyOnClosedPipe(); // as every command (src/cli/main.ts)
  // A completion request (what Tab runs): the candidates from the tree the build took from the
  // program, without loading commander and the program (bench/oneshot.mjs; src/cli/profile.ts
  // answers the same from the program itself, and test/commands/runner.test.ts compares the two).
  const { runCompletion } = await import('./commands/completion.js');
  await runCompletion(table, args.slice(2), process.env.KEYDECK_BASE_URL);
} else if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // `keydeck --version` alone, as scripts ask it: what commander prints for it (src/cli/program.ts),
  // without loading commander and the program (~25 ms, bench/oneshot.mjs; test/commands/runner.test.ts
  // checks it against the program's answer).
  exitQuietlyOnClosedPipe(); // as every command (src/cli/main.ts)
  process.stdout.write(`${version}\n`);
} else {
  const { main } = await import('./cli/main.js');
  await main(version);
}
