// Bundles the CLI and the library entry into dist/ with esbuild.
// NODE_ENV is production (React's production build, smaller and faster to start);
// react-devtools-core is aliased to an empty module (ink imports it only when DEV is set).
// Dynamic imports become separate chunks, so non-TUI commands never load Ink.
import { build } from 'esbuild';
import { rm, mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist`;
const empty = `${dist}/.empty.js`;

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await writeFile(empty, 'export default {};\n');

await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli.ts', index: 'src/index.ts' },
  outdir: 'dist',
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
  alias: { 'react-devtools-core': empty },
  // Native or optional at run time: never bundled.
  external: ['keytar', '@lydell/node-pty', 'node-pty'],
  banner: {
    // Some bundled CommonJS dependencies call require(); give them one.
    js: "import { createRequire as __keydeckCreateRequire } from 'node:module'; const require = __keydeckCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
