#!/usr/bin/env node
/**
 * keydeck's command line: parses argv with the program of src/cli/program.ts and hands over to one
 * face: the TUI, a scriptable command, or the sandbox server. It holds no logic of its own; every
 * face is imported lazily, so a command never pays for Ink and the TUI never pays for Fastify.
 * (The executable, src/bin.ts, checks the Node.js version first.)
 *
 * Before a command's action runs, Node's compile cache is turned on (V8's compiled code of the
 * bundle kept between runs, in the OS temp dir; off with NODE_DISABLE_COMPILE_CACHE=1): the chunks
 * the command imports (Ink, React, zod, got, the TUI) then load without being compiled again
 * (bench/startup.mjs). Not for {@link RESIDENT_COMMANDS}: Node keeps every loaded module's cache
 * data in memory for the life of the process (its `CompileCacheEntry`, to write it back at exit),
 * about 1.7 bytes per byte of code loaded, 2 MB for `keydeck monitor` (bench/memory.mjs); a process
 * left open for hours pays that all along to save a few tens of ms once.
 */
import { createRequire, enableCompileCache } from 'node:module';
import { createProgram } from './cli/program.js';

/** The commands left open for hours, which start without the compile cache (above). */
const RESIDENT_COMMANDS: ReadonlySet<string> = new Set(['monitor', 'exporter']);

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const program = createProgram(version);
program.hook('preAction', (_program, action) => {
  if (!RESIDENT_COMMANDS.has(action.name())) enableCompileCache();
});
await program.parseAsync(process.argv);
