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
