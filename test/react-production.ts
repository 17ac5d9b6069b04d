/**
 * A setup file of every suite (vitest.config.ts): the components the suites render in their own
 * thread (ink-testing-library, the TUI in the crash walks) run on React's production build, as
 * the built app does (scripts/build.mjs bundles with NODE_ENV=production), not its development
 * build, which costs two to three times the CPU for each render (its checks and warnings print to
 * the console and fail no test). React, its reconciler and Ink choose their build by NODE_ENV
 * when first loaded: they are loaded here under `production`, once per worker (`isolate: false`),
 * and NODE_ENV is then put back, so that nothing else the tests start (npm, the CLI as a
 * process) sees it. The JSX of the suites and sources is compiled for that build too
 * (vitest.config.ts, `oxc.jsx.development`).
 */
const previous = process.env.NODE_ENV;
process.env.NODE_ENV = 'production';
try {
  for (const name of ['react', 'react/jsx-runtime', 'react-reconciler', 'scheduler', 'ink']) await import(name);
} finally {
  if (previous === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = previous;
}
