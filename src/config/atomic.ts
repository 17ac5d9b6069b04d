/**
 * Atomic writes that follow no link: every file keydeck writes for a user (the config file, the
 * plaintext key file, the JSON records, a dotenv destination and its copy, a token file and its
 * backup) goes through {@link writeFileAtomically}. keydeck's own code rather than
 * write-file-atomic, which resolves a link at the target and opens its temporary file without
 * `O_EXCL`/`O_NOFOLLOW` (and sets owner and mode by path): a local user who could write the
 * directory could have keydeck write, and chown, a file of their choosing elsewhere.
 *
 * The steps:
 * 1. the directory and every directory above it are checked (./strictModes.ts, ssh's StrictModes);
 *    from then on the directory's real path is used;
 * 2. a symbolic link, directory, FIFO or device at the target's name is refused, never followed;
 * 3. a temporary file with an unpredictable name is created in that directory with
 *    `O_CREAT|O_EXCL|O_NOFOLLOW` (an existing name or a link there fails, it is never opened) and
 *    mode 0600; its owner (`fchown`) and then its mode (`fchmod`) are set on the open descriptor,
 *    before a byte is written; the data is written and fsynced;
 * 4. the target's name is looked at again (`lstat`): a link or non-regular file that appeared
 *    meanwhile is refused (the temporary file removed);
 * 5. the temporary file is renamed over the target (a reader sees the old file or the new one,
 *    never half). A rename replaces the name itself and never follows a link there.
 *
 * Owner: a process writes its own files; root keeps the owner of the file it replaces (or takes
 * `chown`); root writing in another user's directory (`asDirectoryOwner`, the token file of a
 * service user) writes as that user: the files it creates there belong to the directory's owner.
 * The directory is not fsynced: a kill at any point leaves the old file or the new one; a power
 * cut right after the rename may leave the old one.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, rename, unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { failpoint, fileDetail } from '../failpoints/index.js';
import { checkDirectoryChain, effectiveUid, UnsafePathError, type TrustedDirectory } from './strictModes.js';

export { UnsafePathError } from './strictModes.js';

/**
 * `node:crypto`, loaded by the first write: Node's crypto is ~20 internal modules (5–15 ms of a
 * command's start), and a command that only reads keydeck's files (`keys list`, a completion)
 * never writes one (docs/performance.md, "One-shot commands").
 */
const nodeCrypto = (): typeof import('node:crypto') => createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');

/** `O_NOFOLLOW` where the platform has it (not on Windows, which has no such links to follow). */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Options of {@link writeFileAtomically}. */
export interface AtomicWriteOptions {
  /** The new file's owner (root only): `mgmt-keys rotate --token-file` keeps a service user's file theirs. */
  readonly chown?: { readonly uid: number; readonly gid: number };
  /** The name of its `file.renamed` failpoint when the file's own name varies from run to run (default: the file's name). */
  readonly failpointDetail?: string;
  /** Root may write in another user's directory, as its owner (./strictModes.ts); refused otherwise. */
  readonly asDirectoryOwner?: boolean;
}

async function lstatOrUndefined(file: string): Promise<Stats | undefined> {
  try {
    return await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Refuses what is at `file` unless it is nothing or a regular file. */
function refuseUnlessRegular(file: string, st: Stats | undefined): void {
  if (st === undefined || st.isFile()) return;
  const what = st.isSymbolicLink() ? 'a symbolic link' : st.isDirectory() ? 'a directory' : 'not a regular file (a FIFO, a socket or a device)';
  throw new UnsafePathError(file, `${file} is ${what}: keydeck writes no file through a link nor over anything but a regular file; move it away`);
}

/** Whom the new file belongs to (undefined: the writer, as created). */
function ownerOf(file: string, trust: TrustedDirectory, before: Stats | undefined, chown: AtomicWriteOptions['chown']): { uid: number; gid: number } | undefined {
  if (trust.actAs) {
    const uid = trust.actAs.uid;
    if (chown && chown.uid !== uid) {
      throw new UnsafePathError(file, `${file} would belong to uid ${chown.uid} in a directory of uid ${uid}, who could take it: keydeck writes there only as the directory's owner`);
    }
    return { uid, gid: chown?.gid ?? (before !== undefined && before.uid === uid ? before.gid : trust.actAs.gid) };
  }
  if (chown) return chown;
  // Root keeps the owner of the file it replaces (the file stays theirs, as before).
  if (before !== undefined && effectiveUid() === 0) return { uid: before.uid, gid: before.gid };
  return undefined;
}

/**
 * Writes `data` to `file` atomically with permission bits `mode` (e.g. 0o600), following no
 * link (see the module comment). The directory must exist.
 * @throws UnsafePathError (no `code`; its message one sentence naming the fix) when the directory,
 *   one above it, or what is at the target's name is refused; the fs error (`code` set) when the
 *   write fails. The target is then unchanged.
 */
export async function writeFileAtomically(file: string, data: string, mode: number, options: AtomicWriteOptions = {}): Promise<void> {
  const trust = checkDirectoryChain(path.dirname(path.resolve(file)), { ...(options.asDirectoryOwner && { asOwner: true }) });
  const target = path.join(trust.dir, path.basename(file));
  const before = await lstatOrUndefined(target);
  refuseUnlessRegular(target, before);
  const owner = ownerOf(target, trust, before, options.chown);
  const temp = path.join(trust.dir, `.${path.basename(file)}.${nodeCrypto().randomBytes(12).toString('hex')}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o600);
  try {
    try {
      if (owner !== undefined && process.platform !== 'win32') await handle.chown(owner.uid, owner.gid);
      await handle.chmod(mode & 0o7777);
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    refuseUnlessRegular(target, await lstatOrUndefined(target));
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined); // the temp file may be gone; the first error is the one thrown
    throw err;
  }
  failpoint('file.renamed', options.failpointDetail ?? fileDetail(file));
}
