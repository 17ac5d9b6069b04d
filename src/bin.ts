/**
 * The `keydeck` executable (`dist/cli.js`, the package's `bin`): checks the Node.js version, then
 * loads the real command line (`dist/main.js`, built from src/cli.ts).
 *
 * scripts/build.mjs builds it apart from the bundle, for an old target, so that any Node.js from
 * 14 on can run it: on a Node older than 22.13 it prints one line (what it needs, what it found,
 * how to get a newer one) and exits 1, before anything that needs a newer Node (ink 8, got 16,
 * `node:sqlite`, `module.enableCompileCache`) is loaded. Keep it so: plain syntax, no static
 * imports but src/node-version.ts (inlined by the build), nothing from the bundle.
 *
 * Node's compile cache (V8's compiled code of the bundle kept between runs, in the OS temp dir;
 * off with NODE_DISABLE_COMPILE_CACHE=1) is turned on here, before the command line itself loads,
 * so that commander and the program's definition load from it too: a one-shot command (`--version`,
 * a completion request, `keys list`) pays for compiling nothing it ran before (bench/oneshot.mjs).
 * Not when an argument names a resident command (src/cli/main.ts RESIDENT_COMMANDS says why); a
 * word that only looks like one (a key named `monitor`) costs that run the cache, nothing else.
 */
import { nodeIsRecentEnough, OLD_NODE_EXIT_CODE, oldNodeLine } from './node-version.js';

/** The bundled src/cli.ts, beside this file in dist/ (a variable, so the build leaves it alone). */
const MAIN = './main.js';
/** The commands left open for hours, started without the compile cache (src/cli/main.ts RESIDENT_COMMANDS). */
const RESIDENT = ['monitor', 'exporter'];

if (!nodeIsRecentEnough(process.versions.node)) {
  process.stderr.write(`${oldNodeLine(process.versions.node, process.argv.slice(2), new Date().toISOString())}\n`);
  process.exit(OLD_NODE_EXIT_CODE);
}

const resident = process.argv.slice(2).some((arg) => RESIDENT.indexOf(arg) >= 0);
void import('node:module')
  .then((nodeModule) => {
    if (!resident) nodeModule.enableCompileCache?.();
  })
  .then(() => import(MAIN));
