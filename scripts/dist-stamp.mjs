// What dist/ was built from, so that a build can be skipped when dist/ is provably current.
//   node scripts/dist-stamp.mjs [args…]   (`npm run build`, `prepare`)
// runs `node scripts/build.mjs [args…]` and then records, in node_modules/.cache/keydeck/dist-stamp.json, the digest of
// its inputs taken BEFORE it started beside the digest of the dist/ it left. The suites' global set-up
// (test/global-setup.ts) skips its own build when the inputs' digest now is the recorded one and
// the dist/ it snapshots has the recorded content, byte for byte; otherwise it builds (and records).
//
// The inputs are everything scripts/build.mjs reads: the sources (src/), the build scripts
// (scripts/), package.json, the TypeScript configs, and node_modules as npm installed it (the lock
// file it installed from and the one npm keeps of the tree it installed, node_modules/.package-lock.json),
// with the Node.js version that runs the build. A content digest, never a timestamp: a file saved
// again unchanged keeps the build, a change of one byte anywhere in them, or in dist/, redoes it.
// Taken before the build, a change made while it runs is not credited to it (the next look differs).
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where the stamp is kept: in node_modules, which a fresh `npm ci` starts anew (with the build it runs). */
export const STAMP = join(root, 'node_modules', '.cache', 'keydeck', 'dist-stamp.json');

/** Folders (under the root) whose every file is an input of the build. */
const INPUT_DIRS = ['src', 'scripts'];
/** Single files (under the root) that are inputs of the build. */
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.types.json', join('node_modules', '.package-lock.json')];

/** Every file under `dir`, as paths relative to `base` with `/` separators, sorted. */
function filesUnder(dir, base) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(relative(base, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** SHA-256, hex, of each file's path and content, in order (a missing file counts as such). */
function digestOf(base, files, extra = '') {
  const hash = createHash('sha256').update(extra);
  for (const file of files) {
    let content;
    try {
      content = readFileSync(join(base, file));
    } catch (error) {
      if (error?.code !== 'ENOENT') throw error;
    }
    hash.update(`${file}\0${content === undefined ? 'missing' : content.length}\0`);
    if (content !== undefined) hash.update(content);
  }
  return hash.digest('hex');
}

/**
 * The digest of the build's inputs in the clone at `base` (see the file's comment), for a run of
 * scripts/build.mjs with `args` (`--no-types` builds another dist/).
 */
export function inputsDigest(args = [], base = root) {
  const files = [...INPUT_DIRS.flatMap((d) => filesUnder(join(base, d), base)), ...INPUT_FILES.map((f) => f.split(sep).join('/'))];
  return digestOf(base, files, `${JSON.stringify([process.version, ...args])}\0`);
}

/** The digest of a dist/ folder's every file (path and content). */
export function distDigest(dist) {
  return digestOf(dist, filesUnder(dist, dist));
}

/** The recorded stamp, or undefined when there is none (or it cannot be read). */
export function readStamp() {
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    return typeof stamp?.inputs === 'string' && typeof stamp?.dist === 'string' ? stamp : undefined;
  } catch {
    return undefined;
  }
}

/** Records that `dist` (its digest) was built from `inputs` (a digest taken before the build started). */
export function writeStamp(inputs, dist) {
  mkdirSync(join(STAMP, '..'), { recursive: true });
  const tmp = `${STAMP}.${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify({ inputs, dist })}\n`);
  renameSync(tmp, STAMP);
}

/**
 * Where a build of dist/ keeps esbuild's metafile of its bundle (scripts/build.mjs), with the digest
 * of its inputs taken before it started ({@link metafileKey}): test/house/oneshot.test.ts reads the
 * shipped bundle's import graph from it instead of bundling the program again (~10 s of esbuild's CPU).
 */
export const METAFILE = join(root, 'node_modules', '.cache', 'keydeck', 'dist-metafile.json');

/** The key of {@link METAFILE}: the build's inputs now (the sources, the scripts, the installed packages, Node's version). */
export function metafileKey(base = root) {
  return inputsDigest(['dist-metafile'], base);
}

/** Keeps `metafile` under `key` (a {@link metafileKey} taken before the build that made it started). */
export function keepMetafile(key, metafile) {
  mkdirSync(join(METAFILE, '..'), { recursive: true });
  const tmp = `${METAFILE}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ key, metafile }));
  renameSync(tmp, METAFILE);
}

/**
 * The metafile kept by the last build, when its key is the inputs' digest now (nothing changed
 * since that build started); undefined otherwise (none kept, not readable, or stale).
 */
export function keptMetafile() {
  try {
    const kept = JSON.parse(readFileSync(METAFILE, 'utf8'));
    return kept?.key === metafileKey() && typeof kept.metafile === 'object' && kept.metafile !== null ? kept.metafile : undefined;
  } catch {
    return undefined;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const inputs = inputsDigest(args);
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), ...args], { cwd: root, stdio: 'inherit' });
  if (run.error) throw run.error;
  if (run.status !== 0) process.exit(run.status ?? 1);
  writeStamp(inputs, distDigest(join(root, 'dist')));
}
