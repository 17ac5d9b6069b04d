/**
 * The `keydeck` executable (`dist/cli.js`, the package's `bin`): checks the Node.js version, then
 * loads the real command line (`dist/main.js`, built from src/cli.ts).
 *
 * scripts/build.mjs builds it apart from the bundle, for an old target, so that any Node.js from
 * 14 on can run it: on a Node older than 22.13 it prints one line (what it needs, what it found,
 * how to get a newer one) and exits 1, before anything that needs a newer Node (ink 8, got 16,
 * `node:sqlite`, `module.enableCompileCache`) is loaded. Keep it so: plain syntax, no static
 * imports but src/node-version.ts (inlined by the build), nothing from the bundle.
 */
import { nodeIsRecentEnough, oldNodeSentence } from './node-version.js';

/** The bundled src/cli.ts, beside this file in dist/ (a variable, so the build leaves it alone). */
const MAIN = './main.js';

if (!nodeIsRecentEnough(process.versions.node)) {
  process.stderr.write(`${oldNodeSentence(process.versions.node)}\n`);
  process.exit(1);
}

// Node keeps V8's compiled code of the bundle between runs (a cache in the OS temp dir; off with
// NODE_DISABLE_COMPILE_CACHE=1): main.js and every chunk it imports (Ink, React, zod, got, the TUI)
// then load without being compiled again (bench/startup.mjs).
import('node:module')
  .then((m: { enableCompileCache?: () => unknown }) => {
    m.enableCompileCache?.();
  })
  .then(() => import(MAIN));
