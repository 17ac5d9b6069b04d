// Bundles the CLI and the library entry into dist/ with esbuild.
// NODE_ENV is production (React's production build, smaller and faster to start);
// react-devtools-core is aliased to an empty module (ink imports it only when DEV is set).
// string-width is replaced by src/tui/fastStringWidth.ts (same results, faster; see there).
// Dynamic imports become separate chunks, so non-TUI commands never load Ink.
// `bundleOptions(emptyModule)` is exported so that the benchmarks bundle their fixtures (the
// bare Ink app, the soak entry) exactly the same way; the build runs only when this file is
// the program (`node scripts/build.mjs`).
import { build } from 'esbuild';
import { rm, mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const empty = `${dist}/.empty.js`;

/** src/tui/fastStringWidth.ts: string-width with the same results, faster on keydeck's frames. */
const fastStringWidth = fileURLToPath(new URL('../src/tui/fastStringWidth.ts', import.meta.url));

/**
 * esbuild plugin: every `string-width` import in the bundle (Ink's and its helpers' included)
 * gets src/tui/fastStringWidth.ts, which itself imports the real string-width.
 */
export const fastStringWidthPlugin = {
  name: 'keydeck-fast-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, (args) => (args.importer === fastStringWidth ? undefined : { path: fastStringWidth }));
  },
};

/**
 * keydeck's esbuild options without entry points and output dir; `emptyModule` is the path of
 * an `export default {}` file that react-devtools-core is aliased to.
 */
export function bundleOptions(emptyModule) {
  return {
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    legalComments: 'none',
    minifySyntax: true,
    minifyWhitespace: true,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    alias: { 'react-devtools-core': emptyModule },
    plugins: [fastStringWidthPlugin],
    // Native or optional at run time: never bundled.
    external: ['keytar', '@lydell/node-pty', 'node-pty'],
    banner: {
      // Bundled CommonJS dependencies use require(), __filename and __dirname (write-file-atomic
      // names its temp files from __filename): give every output file real ones.
      js: [
        "import { createRequire as __keydeckCreateRequire } from 'node:module';",
        "import { fileURLToPath as __keydeckFileURLToPath } from 'node:url';",
        'const require = __keydeckCreateRequire(import.meta.url);',
        'const __filename = __keydeckFileURLToPath(import.meta.url);',
        "const __dirname = __keydeckFileURLToPath(new URL('.', import.meta.url));",
      ].join(' '),
    },
    logLevel: 'warning',
  };
}

/** The entry points of dist/ (output name → source); the benchmarks build the same set privately. */
export const ENTRY_POINTS = { cli: 'src/cli.ts', index: 'src/index.ts', sandbox: 'src/sandbox/index.ts' };

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  await writeFile(empty, 'export default {};\n');
  await build({
    ...bundleOptions(empty),
    entryPoints: ENTRY_POINTS,
    outdir: 'dist',
  });
}
