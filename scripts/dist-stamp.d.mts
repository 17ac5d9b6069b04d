// Types of scripts/dist-stamp.mjs, which test/global-setup.ts imports.

/** Where the stamp is kept (node_modules/.cache/keydeck/dist-stamp.json). */
export const STAMP: string;
/** The digest of the build's inputs now, for a run of scripts/build.mjs with `args`. */
export function inputsDigest(args?: readonly string[], base?: string): string;
/** The digest of a dist/ folder's every file (path and content). */
export function distDigest(dist: string): string;
/** The recorded stamp: the inputs' digest taken before the last build, and the digest of the dist/ it made. */
export function readStamp(): { inputs: string; dist: string } | undefined;
/** Records that `dist` (its digest) was built from `inputs` (a digest taken before the build started). */
export function writeStamp(inputs: string, dist: string): void;
/** Where a build of dist/ keeps esbuild's metafile of its bundle, with its key. */
export const METAFILE: string;
/** The key of a kept metafile: the digest of the build's inputs now. */
export function metafileKey(base?: string): string;
/** Keeps `metafile` under `key` (taken before the build that made it started). */
export function keepMetafile(key: string, metafile: unknown): void;
/** The metafile kept by the last build when its key is the inputs' digest now; else undefined. */
export function keptMetafile(): import('esbuild').Metafile | undefined;
