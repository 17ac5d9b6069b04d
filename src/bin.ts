/**
 * The `keydeck` executable (`dist/cli.js`, the package's `bin`): checks the Node.js version,
 * answers a lone `--version` itself, sends a completion request to dist/complete.js (built from
 * src/complete.ts) and everything else to the command line, dist/main.js (built from src/cli.ts).
 *
 * scripts/build.mjs builds it apart from the bundle, for an old target, so that any Node.js from
 * 14 on can run it: on a Node older than 22.13 it prints one line (what it needs, what it found,
 * how to get a newer one) and exits 5, before anything that needs a newer Node (ink 8, got 16,
 * `node:sqlite`, `module.enableCompileCache`) is loaded. Keep it so: plain syntax, no static
 * imports but src/node-version.ts and src/terminal/closedPipe.ts (both without imports, inlined
 * by the build), nothing from the bundle.
 *
 * `keydeck --version` (or `-V`) alone, as scripts ask it, is answered here, before anything is
 * loaded: the version is package.json's, written into this file by the build (PACKAGE_VERSION),
 * the same that the program's commander prints for `--version` among other words
 * (test/commands/runner.test.ts compares the two): 1.00–1.07× `node -e 0` (docs/performance.md,
 * "One-shot commands"). A completion request (`keydeck __complete -- WORDS…`, what Tab runs) goes
 * straight to its own entry, which loads neither main.js nor the program.
 *
 * Node's compile cache (V8's compiled code of the bundle kept between runs, in the OS temp dir;
 * off with NODE_DISABLE_COMPILE_CACHE=1) is turned on here, before the command line or the
 * completion loads, so that commander and the program's definition load from it too: a one-shot
 * command (a completion request, `keys list`) pays for compiling nothing it ran before
 * (bench/oneshot.mjs). Not when an argument names a resident command (src/cli/main.ts
 * RESIDENT_COMMANDS says why), unless it is a word of a completion request; a word that only looks
 * like one (a key named `monitor`) costs that run the cache, nothing else.
 */
import { nodeIsRecentEnough, OLD_NODE_EXIT_CODE, oldNodeLine } from './node-version.js';
import { writeStdoutNow } from './terminal/closedPipe.js';

/** The bundled src/cli.ts, beside this file in dist/ (a variable, so the build leaves it alone). */
const MAIN = './main.js';
/** The bundled src/complete.ts: a completion request's entry. */
const COMPLETE = './complete.js';
/** The commands left open for hours, started without the compile cache (src/cli/main.ts RESIDENT_COMMANDS). */
const RESIDENT = ['monitor', 'exporter'];

const args = process.argv.slice(2);
if (!nodeIsRecentEnough(process.versions.node)) {
  process.stderr.write(`${oldNodeLine(process.versions.node, args, new Date().toISOString())}\n`);
  process.exit(OLD_NODE_EXIT_CODE);
}

if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // What commander prints for it (src/cli/program.ts); with other words, the program answers.
  // The process ends once stdout has written it (no `process.exit` here).
  void writeStdoutNow(`${PACKAGE_VERSION}\n`);
} else {
  // `__complete -- WORDS…` as the completion scripts ask (src/commands/completion.ts), or `__complete` alone.
  const completion = args[0] === '__complete' && (args[1] === '--' || args.length === 1);
  // A completion of `keydeck monitor …` names one among its words, and answers at once.
  const resident = !completion && args.some((arg) => RESIDENT.indexOf(arg) >= 0);
  void import('node:module')
    .then((nodeModule) => {
      if (!resident) nodeModule.enableCompileCache?.();
    })
    .then(() => import(completion ? COMPLETE : MAIN));
}
