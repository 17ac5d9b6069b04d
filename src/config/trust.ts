/**
 * Local files trusted the way ssh trusts its own (docs/architecture.md, "Boundaries": local files → keydeck):
 * the config dir and `config.json` must not be writable by group or others (another local user
 * could point `baseUrl` at their server and receive the key), nor the data dir (another
 * user could replace the top-up record, the usage history or the sandbox's database in it), `credentials.json` must not be
 * readable or writable by them, each must belong to the user running keydeck, and each must be
 * what it claims (a directory, a regular file): a FIFO, a device or a directory in a file's place
 * is refused at once, never opened for a blocking read. A `.keydeck` file (the profile a directory
 * uses: ./profileChoice.ts) is trusted as the config file is. Every refusal is one sentence naming the
 * file and the `chmod` (or what else) that fixes it. Skipped on Windows (no POSIX modes).
 */
// `promises` is read where a file is read, not at load: in the bundle it is then loaded only by
// a command that reads a file this way (scripts/build.mjs builtinsByRequirePlugin), not by a
// completion request, which reads its config with readTrustedFileSync.
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fsPromises, readFileSync, statSync } from 'node:fs';
import { checkDirectoryChain, UnsafePathError } from './strictModes.js';

/**
 * What a file is for: decides the modes accepted and the words of the refusal. The last three are
 * keydeck's SQLite files (./sqlite.ts `openStore`), named as their stores name themselves.
 */
export type TrustedKind = 'config dir' | 'data dir' | 'config file' | 'key file' | 'profile file' | StoreKind;

/** keydeck's SQLite files, by what they hold: the top-up record, the balance history, the sandbox's database. */
export type StoreKind = 'top-up record' | 'balance history' | 'sandbox database';

/** A refusal: the path, a stable code, and one sentence. */
export interface TrustProblem {
  readonly path: string;
  readonly code: 'not_regular' | 'not_directory' | 'group_or_other_writable' | 'group_or_other_readable' | 'not_owner' | 'unsafe_ancestor';
  readonly sentence: string;
}

/** Mode bits that must be clear: group/other write for the config; group/other anything for the key file. */
const FORBIDDEN_BITS: Readonly<Record<TrustedKind, number>> = {
  'config dir': 0o022,
  'data dir': 0o022,
  'config file': 0o022,
  'key file': 0o077,
  'profile file': 0o022,
  'top-up record': 0o022,
  'balance history': 0o022,
  'sandbox database': 0o022,
};

const CHMOD: Readonly<Record<TrustedKind, string>> = {
  'config dir': '700',
  'data dir': '700',
  'config file': '600',
  'key file': '600',
  'profile file': '644',
  'top-up record': '600',
  'balance history': '600',
  'sandbox database': '600',
};

/** What another user could do with a file of each kind they could write. */
const HARM: Readonly<Record<TrustedKind, string>> = {
  'config dir': 'another user could point keydeck at their server and receive the key',
  'config file': 'another user could point keydeck at their server and receive the key',
  'data dir': 'another user could replace the records keydeck keeps in it (the top-up record, the usage history, the sandbox’s database)',
  'key file': 'anyone who can read it can manage the account',
  'profile file': 'another user could choose which of your profiles keydeck uses in this directory',
  'top-up record': 'another user could change the records keydeck keeps in it',
  'balance history': 'another user could change the records keydeck keeps in it',
  'sandbox database': 'another user could change the records keydeck keeps in it',
};

/** True for the kinds of keydeck's SQLite files (opened through ./sqlite.ts, never read as text). */
const isStoreKind = (kind: TrustedKind): kind is StoreKind => kind === 'top-up record' || kind === 'balance history' || kind === 'sandbox database';

/** True for the kinds that are directories. */
const isDirKind = (kind: TrustedKind): boolean => kind === 'config dir' || kind === 'data dir';

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/** The POSIX checks, or none on Windows. `uid` defaults to the process's. */
function posix(): { uid: number } | undefined {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return undefined;
  return { uid: process.getuid() };
}

/**
 * The problem with `stats` of `file` used as a `kind`, or undefined when it may be trusted.
 * Pure apart from the process's uid (exported for tests).
 */
export function trustProblemOf(
  file: string,
  kind: TrustedKind,
  stats: { isFile(): boolean; isDirectory(): boolean; mode: number; uid: number },
  uid: number | undefined = posix()?.uid,
): TrustProblem | undefined {
  if (isDirKind(kind) ? !stats.isDirectory() : !stats.isFile()) {
    return {
      path: file,
      code: isDirKind(kind) ? 'not_directory' : 'not_regular',
      sentence: isDirKind(kind)
        ? `the ${kind} ${file} is not a directory: move it away (keydeck creates the directory itself)`
        : isStoreKind(kind)
          ? `the ${kind} ${file} is not a regular file (a link or a directory): move it away`
          : `the ${kind} ${file} is not a regular file (a FIFO, a device or a directory?): keydeck does not read it; move it away`,
    };
  }
  if (uid === undefined) return undefined;
  if (stats.uid !== uid && stats.uid !== 0) {
    return {
      path: file,
      code: 'not_owner',
      sentence: `the ${kind} ${file} belongs to another user (uid ${stats.uid}), so keydeck does not trust it: fix it with \`chown $(id -u) ${file}\`, or move it away`,
    };
  }
  const bad = stats.mode & FORBIDDEN_BITS[kind];
  if (bad !== 0) {
    const readable = kind === 'key file' && (bad & 0o044) !== 0;
    return {
      path: file,
      code: readable ? 'group_or_other_readable' : 'group_or_other_writable',
      sentence:
        kind === 'key file'
          ? `the key file ${file} is ${readable ? 'readable' : 'writable'} by group or others (mode ${octal(stats.mode)}): anyone who can read it can manage the account, so keydeck does not use it; fix it with \`chmod 600 ${file}\``
          : `the ${kind} ${file} is writable by group or others (mode ${octal(stats.mode)}): ${HARM[kind]}, so keydeck does not use it; fix it with \`chmod ${CHMOD[kind]} ${file}\``,
    };
  }
  return undefined;
}

/**
 * The directories above `dir` (src/config/strictModes.ts, ssh's StrictModes): undefined when each
 * belongs to this user or root and only its owner may write it (or it is sticky, like /tmp).
 */
function ancestorProblem(dir: string): TrustProblem | undefined {
  try {
    checkDirectoryChain(dir);
    return undefined;
  } catch (err) {
    if (err instanceof UnsafePathError) return { path: err.path, code: 'unsafe_ancestor', sentence: err.message };
    return undefined;
  }
}

/**
 * Checks the directory `dir` (when it exists) as the config dir, or as `kind`, and the directories
 * above it. Undefined when it is fine or does not exist yet. Synchronous: one stat and the walk
 * above (microseconds, ./strictModes.ts), for every caller, awaiting or not.
 */
export function checkTrustedDir(dir: string, kind: 'config dir' | 'data dir' = 'config dir'): TrustProblem | undefined {
  let stats;
  try {
    stats = statSync(dir);
  } catch {
    // does not exist yet: nothing to distrust
    return undefined;
  }
  return trustProblemOf(dir, kind, stats) ?? (posix() ? ancestorProblem(dir) : undefined);
}

/**
 * Checks the file `file` as a `kind` without opening it (for keydeck's SQLite files, which SQLite
 * opens itself: ./sqlite.ts): the entry at that name, not what a link there points to, so a link
 * is refused. Undefined when it may be trusted or does not exist yet.
 */
export function checkTrustedFileSync(file: string, kind: StoreKind): TrustProblem | undefined {
  let stats;
  try {
    stats = lstatSync(file);
  } catch {
    // does not exist yet (or cannot be read): the opener creates it 0600, or fails on open
    return undefined;
  }
  return trustProblemOf(file, kind, stats);
}

/** What {@link readTrustedFile} found. */
export type TrustedRead = { kind: 'missing' } | { kind: 'text'; text: string } | { kind: 'refused'; problem: TrustProblem };

/** The flags a trusted file is opened with: read only, and non-blocking (a FIFO opens at once, never waits for a writer). */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What a failed open of `file` means: `missing`, `refused` (a directory there), else the error is thrown. */
function openFailure(file: string, kind: Exclude<TrustedKind, 'config dir' | StoreKind>, err: unknown): TrustedRead {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
  if (code === 'EISDIR') return { kind: 'refused', problem: trustProblemOf(file, kind, lstatSync(file))! };
  throw err;
}

/**
 * Reads `file` as a `kind` without ever blocking on it: opened non-blocking (a FIFO opens at once),
 * checked on the open descriptor (no race between the check and the read), read only when it
 * is a regular file with trusted modes. A missing file (or missing directory) is `missing`.
 * @throws the Node error when it exists but cannot be opened or read (EACCES, EIO…)
 */
export async function readTrustedFile(file: string, kind: Exclude<TrustedKind, 'config dir' | StoreKind>): Promise<TrustedRead> {
  let handle;
  try {
    handle = await fsPromises.open(file, READ_FLAGS);
  } catch (err) {
    return openFailure(file, kind, err);
  }
  try {
    const problem = trustProblemOf(file, kind, await handle.stat());
    if (problem) return { kind: 'refused', problem };
    return { kind: 'text', text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

/**
 * {@link readTrustedFile} without waiting, for the config file (./config.ts, ./profileNames.ts): a
 * file of a few kilobytes, read once by a command. No request of libuv's thread pool, so a one-shot
 * command that reads only its config never starts the pool's threads (docs/performance.md,
 * "One-shot commands"). The same checks, on the open descriptor, and the same results.
 * @throws the Node error when it exists but cannot be opened or read (EACCES, EIO…)
 */
export function readTrustedFileSync(file: string, kind: Exclude<TrustedKind, 'config dir' | StoreKind>): TrustedRead {
  let fd;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (err) {
    return openFailure(file, kind, err);
  }
  try {
    const problem = trustProblemOf(file, kind, fstatSync(fd));
    if (problem) return { kind: 'refused', problem };
    return { kind: 'text', text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}
