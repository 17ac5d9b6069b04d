/**
 * The `keydeck` executable (`dist/cli.js`, the package's `bin`): checks the Node.js version, then
 * loads the real command line (`dist/main.js`, built from src/cli.ts).
 *
 * scripts/build.mjs builds it apart from the bundle, for an old target, so that any Node.js from
 * 14 on can run it: on a Node older than 22.13 it prints one line (what it needs, what it found,
 * how to get a newer one) and exits 1, before anything that needs a newer Node (ink 8, got 16,
 * `node:sqlite`, `module.enableCompileCache`) is loaded. Keep it so: plain syntax, no static
 * imports but src/node-version.ts (inlined by the build), nothing from the bundle. (Node's
 * compile cache is turned on by src/cli.ts once the command is known.)
 */
import { nodeIsRecentEnough, OLD_NODE_EXIT_CODE, oldNodeLine } from './node-version.js';

/** The bundled src/cli.ts, beside this file in dist/ (a variable, so the build leaves it alone). */
const MAIN = './main.js';

if (!nodeIsRecentEnough(process.versions.node)) {
  process.stderr.write(`${oldNodeLine(process.versions.node, process.argv.slice(2), new Date().toISOString())}\n`);
  process.exit(OLD_NODE_EXIT_CODE);
}

void import(MAIN);
