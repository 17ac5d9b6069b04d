#!/usr/bin/env node
/**
 * keydeck's command line (dist/main.js): hands argv to src/cli/main.ts, which parses it with the
 * program of src/cli/program.ts and hands over to one face: the TUI, a scriptable command, or the
 * sandbox server. It holds no logic of its own; every face is imported lazily, so a command never
 * pays for Ink and the TUI never pays for Fastify. (The executable, src/bin.ts, checks the Node.js
 * version first, answers a lone `--version` itself and sends a completion request to
 * src/complete.ts.)
 */

const { main } = await import('./cli/main.js');
await main(PACKAGE_VERSION);
