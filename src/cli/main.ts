/**
 * keydeck's command line as one call: builds the program of ./program.ts and runs what argv asks
 * for. src/cli.ts (dist/main.js) calls it once per process; it is also an entry of its own in
 * dist/ (dist/program.js, not an export of the package), which the suites' in-thread CLI runs call
 * once per run with the modules already loaded (test/credentials/thread.ts).
 *
 * Before a command's action runs, Node's compile cache is turned on (V8's compiled code of the
 * bundle kept between runs, in the OS temp dir; off with NODE_DISABLE_COMPILE_CACHE=1): the chunks
 * the command imports (Ink, React, zod, got, the TUI) then load without being compiled again
 * (bench/startup.mjs). Not for {@link RESIDENT_COMMANDS}: Node keeps every loaded module's cache
 * data in memory for the life of the process (its `CompileCacheEntry`, to write it back at exit),
 * about 1.7 bytes per byte of code loaded, 2 MB for `keydeck monitor` (bench/memory.mjs); a process
 * left open for hours pays that all along to save a few tens of ms once.
 */
import { enableCompileCache } from 'node:module';
import { commandTreeOf, type CompletionCommand } from '../commands/completion.js';
import { exitQuietlyOnClosedPipe } from '../terminal/closedPipe.js';
import { createProgram } from './program.js';
import { startWithFlags } from './startFlags.js';

/** The commands left open for hours, which start without the compile cache (above). */
const RESIDENT_COMMANDS: ReadonlySet<string> = new Set(['monitor', 'exporter']);

/**
 * Parses `argv` (Node's shape: the executable, the script, then the arguments) and runs the
 * command it names; `version` is what `--version` prints. Settles when the command's action does;
 * most actions end the process themselves (`process.exit` with the command's exit code), usage
 * errors exit 2.
 */
export async function main(version: string, argv: readonly string[] = process.argv): Promise<void> {
  // `keydeck … | head -1`: a closed pipe ends any command quietly (exit 141), never a stack trace.
  exitQuietlyOnClosedPipe();
  // Only the command this run invokes is defined (./program.ts), with every global option.
  const program = createProgram(version, argv.slice(2));
  program.hook('preAction', (_program, action) => {
    // A resident command may start again with V8's flags for it (./startFlags.ts), before it loads anything.
    if (action === program || action.parent === program) startWithFlags(action.name());
    if (!RESIDENT_COMMANDS.has(action.name())) enableCompileCache();
  });
  await program.parseAsync(argv);
}

/**
 * The command tree completion reads (src/commands/completion.ts), from the program itself: the
 * build writes it into dist/completion.json (scripts/build.mjs), so that a completion request
 * answers without loading commander and the program (src/complete.ts).
 */
export function completionTable(): CompletionCommand {
  return commandTreeOf(createProgram('0.0.0'));
}
