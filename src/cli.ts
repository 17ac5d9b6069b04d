#!/usr/bin/env node
/**
 * keydeck's command line: parses argv with the program of src/cli/program.ts and hands over to one
 * face: the TUI, a scriptable command, or the sandbox server. It holds no logic of its own; every
 * face is imported lazily, so a command never pays for Ink and the TUI never pays for Fastify.
 * (The executable, src/bin.ts, checks the Node.js version and turns on the compile cache first.)
 */
import { createRequire } from 'node:module';
import { createProgram } from './cli/program.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

await createProgram(version).parseAsync(process.argv);
