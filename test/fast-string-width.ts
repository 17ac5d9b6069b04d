/**
 * A setup file of every suite (vitest.config.ts), before test/react-production.ts loads Ink: the
 * libraries the suites load from node_modules (Ink, and its helpers widest-line, wrap-ansi,
 * cli-truncate, slice-ansi) get src/tui/fastStringWidth.ts for `string-width`, as the built app's do
 * (scripts/build.mjs `fastStringWidthPlugin`). So the components rendered in the test's own thread
 * (ink-testing-library, the TUI of the crash walks) measure their lines as the app ships, and
 * without string-width's segmenter and emoji regex on every line of every frame: ~12 % of the CPU
 * of the TUI's crash walk (test/crash/tui-keys.test.ts, `--cpu-prof`). A Node.js resolve hook
 * (`module.registerHooks`), once per worker (`isolate: false`), for the imports those libraries
 * make: the suites' and the sources' own `string-width` stay string-width (the one
 * test/tui/fastStringWidth.test.ts checks fastStringWidth against), and fastStringWidth's own
 * import of it too.
 */
import { registerHooks } from 'node:module';

const INSTALLED = Symbol.for('keydeck.test.fast-string-width');
const global = globalThis as unknown as Record<symbol, boolean | undefined>;

if (!global[INSTALLED]) {
  global[INSTALLED] = true;
  const fast = new URL('../src/tui/fastStringWidth.ts', import.meta.url).href;
  // The libraries of the app's frames. Not every importer in node_modules: a tool that resolves
  // imports for others from there (dpdm, reading src/tui/fastStringWidth.ts in test/house) must
  // get the real string-width.
  const INK = /\/node_modules\/(ink|ink-table|widest-line|wrap-ansi|cli-truncate|slice-ansi)\//;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier === 'string-width' && INK.test(context.parentURL ?? '')) return { url: fast, shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}
