#!/usr/bin/env node
/**
 * keydeck's command line (dist/main.js): reads the package's version and hands argv to
 * src/cli/main.ts, which parses it with the program of src/cli/program.ts and hands over to one
 * face: the TUI, a scriptable command, or the sandbox server. It holds no logic of its own; every
 * face is imported lazily, so a command never pays for Ink and the TUI never pays for Fastify.
 * (The executable, src/bin.ts, checks the Node.js version first.)
 */
import { createRequire } from 'node:module';
import { main } from './cli/main.js';

// Beside dist/main.js: the package's own package.json (a chunk under dist/chunks/ could not say `..`).
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

await main(version);
