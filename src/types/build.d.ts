/**
 * package.json's version, written into the built files by scripts/build.mjs (esbuild's `define`):
 * what `keydeck --version` prints (src/bin.ts, src/cli.ts). Only those entries
 * read it; a module run unbuilt (the suites import src/ directly) has no such name.
 */
declare const PACKAGE_VERSION: string;
