/**
 * The directories keydeck writes in, checked as ssh's StrictModes checks the path of
 * `authorized_keys`: the directory and every directory above it must belong to the user running
 * keydeck or to root, and none may be writable by group or others — else another local user could
 * move a directory away and put a link in its place, and keydeck would write where they chose.
 *
 * - A shared directory with the sticky bit (`/tmp`, mode 1777) is accepted above the directory
 *   written in, when the entry keydeck goes through in it belongs to the user or root: the sticky
 *   bit lets only an entry's owner (or root) rename or remove it, so nobody else can swap it. The
 *   directory that holds the file itself is never accepted writable by others, sticky or not:
 *   another user could take the names keydeck writes (the temporary file, a backup) first.
 * - Both the path as given and its real path (symbolic links resolved) are checked, so a link in
 *   the path is only followed when the directory holding it is trusted too.
 * - Root on another user's directory (`asOwner`, for a token file in a service user's directory):
 *   keydeck writes as that directory's owner (./atomic.ts: the files created there are the
 *   owner's), and only when every directory above it belongs to root: the owner could otherwise
 *   move their directory away and have root write, or read, elsewhere. Without `asOwner`, root is
 *   refused another user's directory as any user is.
 *
 * The walk is synchronous (a dozen `lstat` calls, microseconds), so that the SQLite openers, which
 * open synchronously, use it too. Skipped on Windows (no POSIX modes).
 */
import { lstatSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { KeydeckError } from '../errors/index.js';

/** A directory refused (one sentence naming it and the fix), or a path that cannot be trusted: code `unsafe_path`. */
export class UnsafePathError extends KeydeckError {
  override readonly name = 'UnsafePathError';
  /** The directory (or entry) at fault. */
  readonly path: string;
  constructor(at: string, sentence: string) {
    super('unsafe_path', sentence, { exitClass: 'refused' });
    this.path = at;
  }
}

/** A directory that passed {@link checkDirectoryChain}. */
export interface TrustedDirectory {
  /** Its real path (symbolic links resolved): what keydeck writes in from then on. */
  readonly dir: string;
  /** Its owner and group (undefined on Windows). */
  readonly uid?: number;
  readonly gid?: number;
  /** Set when root writes there as the directory's owner (`asOwner`): the owner's uid and the directory's group. */
  readonly actAs?: { readonly uid: number; readonly gid: number };
}

/** Options of {@link checkDirectoryChain}. */
export interface ChainOptions {
  /** Root may write in another user's directory, as its owner (see the module comment). */
  readonly asOwner?: boolean;
}

/** The effective uid, or undefined where there are no POSIX owners (Windows). */
export function effectiveUid(): number | undefined {
  if (process.platform === 'win32' || typeof process.geteuid !== 'function') return undefined;
  return process.geteuid();
}

function octal(mode: number): string {
  return `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;
}

/** The absolute prefixes of `abs`, from the root down: `/`, `/a`, `/a/b`. */
function prefixes(abs: string): string[] {
  const root = path.parse(abs).root;
  const out = [root];
  let at = root;
  for (const part of abs
    .slice(root.length)
    .split(path.sep)
    .filter((p) => p !== '')) {
    at = path.join(at, part);
    out.push(at);
  }
  return out;
}

/**
 * Checks the directories above `dir` (each of `chain`, the last one excluded) for `trusted`
 * owners: each may be written by its owner only, or be sticky with the next entry trusted.
 */
function checkAncestors(chain: readonly string[], trusted: ReadonlySet<number>, actingFor: number | undefined): void {
  let below: Stats | undefined;
  let belowPath = '';
  // From the directory written in up to the root: `below` is the entry each one holds on the way.
  for (let i = chain.length - 1; i >= 0; i--) {
    const at = chain[i]!;
    const st = lstatSync(at);
    const isTarget = i === chain.length - 1;
    if (!isTarget && !st.isSymbolicLink()) {
      if (!st.isDirectory()) throw new UnsafePathError(at, `${at} is not a directory`);
      const runAs = actingFor === undefined ? '' : ` (run keydeck as that user instead: sudo -u '#${actingFor}' keydeck …)`;
      if (!trusted.has(st.uid)) {
        throw new UnsafePathError(
          at,
          `the directory ${at} belongs to uid ${st.uid}, who could move ${belowPath} away and put a link in its place: keydeck writes only where every directory above belongs to ${actingFor === undefined ? 'you or root' : 'root'}${runAs}`,
        );
      }
      if ((st.mode & 0o022) !== 0) {
        const sticky = (st.mode & 0o1000) !== 0;
        if (!sticky) {
          throw new UnsafePathError(
            at,
            `the directory ${at} can be written by group or others (mode ${octal(st.mode)}), who could move ${belowPath} away and put a link in its place: fix it with \`chmod go-w ${at}\`, or use a directory elsewhere`,
          );
        }
        if (below !== undefined && !trusted.has(below.uid)) {
          throw new UnsafePathError(
            belowPath,
            `${belowPath} belongs to uid ${below.uid} in the shared directory ${at}, where its owner can move it away and put a link in its place: keydeck writes only where every directory above belongs to ${actingFor === undefined ? 'you or root' : 'root'}${runAs}`,
          );
        }
      }
    }
    below = st;
    belowPath = at;
  }
}

/**
 * Checks the directory `dir` that keydeck is about to write in, and every directory above it (see
 * the module comment), and says where to write.
 * @returns its real path, owner, and whom root writes as there (`asOwner`)
 * @throws UnsafePathError naming the directory at fault and the fix; the fs error (ENOENT,
 *   ENOTDIR, EACCES) when it cannot be looked at
 */
export function checkDirectoryChain(dir: string, options: ChainOptions = {}): TrustedDirectory {
  const given = path.resolve(dir);
  const me = effectiveUid();
  if (me === undefined) return { dir: realpathSync(given) };
  const real = realpathSync(given);
  const st = lstatSync(real);
  if (!st.isDirectory()) throw new UnsafePathError(real, `${real} is not a directory`);
  let actAs: { uid: number; gid: number } | undefined;
  if (st.uid !== me && st.uid !== 0) {
    if (me !== 0 || !options.asOwner) {
      throw new UnsafePathError(real, `the directory ${real} belongs to another user (uid ${st.uid}), who could replace what keydeck writes there: write in a directory of yours`);
    }
    actAs = { uid: st.uid, gid: st.gid };
  }
  if ((st.mode & 0o022) !== 0) {
    throw new UnsafePathError(
      real,
      `the directory ${real} can be written by group or others (mode ${octal(st.mode)}), who could put a link where keydeck writes: fix it with \`chmod go-w ${real}\`, or use a directory elsewhere`,
    );
  }
  // Root writing as another user trusts only root above that user's directory.
  const trusted = new Set(actAs === undefined ? [me, 0] : [0]);
  const actingFor = actAs?.uid;
  checkAncestors(prefixes(given), trusted, actingFor);
  if (real !== given) checkAncestors(prefixes(real), trusted, actingFor);
  return { dir: real, uid: st.uid, gid: st.gid, ...(actAs && { actAs }) };
}
