/**
 * `--to-file PATH[:VAR]`: the key written into a dotenv file, trusted as keydeck trusts
 * its own files (src/config/trust.ts, as ssh does): the file must be a regular file of this user
 * that group and others can neither read nor write (else the `chmod` that fixes it is named), and
 * its directory, and every directory above it, must be this user's (or root's) and not writable by
 * group or others (src/config/strictModes.ts: another user could swap the file or a directory on
 * the way). A symbolic link named as the file is resolved once, when the directory holding it
 * passes the same check, and its target is checked the same way; the write itself follows no link
 * (src/config/atomic.ts).
 *
 * A missing file is created with mode 0600; an existing one keeps its mode and has only the
 * variable's assignment replaced (./dotenv.ts). The write is atomic (a temp file in the same
 * directory, renamed over the file: a reader sees the old text or the new one, never half) and
 * holds keydeck's cross-process lock of the data dir (src/config/lock.ts), so two keydeck processes
 * never lose each other's edit. Note for users: a rename gives the file a new inode, so a program
 * that watches the file itself (not its directory) or a container that bind-mounts the single file
 * keeps seeing the old one.
 */
import { randomBytes } from 'node:crypto';
import { lstat, open, realpath, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { UnsafePathError, writeFileAtomically } from '../config/atomic.js';
import { withConfigLock } from '../config/lock.js';
import { checkDirectoryChain } from '../config/strictModes.js';
import { readTrustedFile, type TrustProblem } from '../config/trust.js';
import { visible } from '../terminal/sanitize.js';
import { DeliveryError, type Destination } from './destinations.js';
import { DotenvEditError, setDotenvVariable } from './dotenv.js';

/** What writing the key into a file did. */
export interface FileDelivery {
  /** The file written (symbolic links resolved). */
  readonly path: string;
  /** True when the file did not exist and was created (mode 0600). */
  readonly created: boolean;
  /** 1-based lines whose assignment was replaced (the variable was there); empty when appended. */
  readonly replacedLines: readonly number[];
  /** Permission bits of the file after the write (0o600 for a new one). */
  readonly mode: number;
}

type FileDestination = Extract<Destination, { kind: 'file' }>;

function refused(sentence: string): DeliveryError {
  return new DeliveryError('destination_refused', sentence);
}

/** The refusal of an existing dotenv file, worded for a file that will hold a consumption key. */
function fileRefusal(problem: TrustProblem): DeliveryError {
  const f = problem.path;
  switch (problem.code) {
    case 'not_owner':
      return refused(`${visible(f)} belongs to another user, so keydeck does not write a key into it: fix it with \`chown $(id -u) ${visible(f)}\`, or choose another file`);
    case 'group_or_other_readable':
    case 'group_or_other_writable':
      return refused(
        `${visible(f)} can be ${problem.code === 'group_or_other_readable' ? 'read' : 'written'} by group or others, so a key written there would not be yours alone: fix it with \`chmod 600 ${visible(f)}\`, then run the command again`,
      );
    default:
      return refused(`${visible(f)} is not a regular file (a directory, a FIFO, a device?), so keydeck does not write into it: name the dotenv file itself`);
  }
}

/**
 * The directory `dir` checked with every directory above it (src/config/strictModes.ts); its real path.
 * @throws DeliveryError `destination_refused` naming the directory at fault, or that it is missing
 */
function trustedDir(dir: string): string {
  try {
    return checkDirectoryChain(dir).dir;
  } catch (err) {
    if (err instanceof UnsafePathError) throw refused(visible(err.message));
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw refused(`the directory ${visible(dir)} does not exist (keydeck does not create directories for a key file): create it, or name another file`);
    }
    throw refused(`cannot look at the directory ${visible(dir)}: ${code ?? 'error'}`);
  }
}

/**
 * The real path the key would be written to, after checking its directory and those above it
 * (see the module comment).
 * @throws DeliveryError `destination_refused`: the directory is missing, not a directory, someone
 *   else's, or writable by group or others, or one above it is; a symbolic link leads nowhere.
 */
export async function resolveTarget(d: FileDestination): Promise<string> {
  let target = d.path;
  let st;
  try {
    st = await lstat(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw refused(`cannot look at ${visible(d.given)}: ${code ?? 'error'}`);
  }
  if (st?.isSymbolicLink()) {
    // The link is followed only when nobody else could have put it there.
    trustedDir(path.dirname(target));
    try {
      target = await realpath(target);
    } catch {
      throw refused(`${visible(d.given)} is a symbolic link to a file that does not exist: name the real file`);
    }
  }
  return path.join(trustedDir(path.dirname(target)), path.basename(target));
}

/**
 * The file's current text (undefined when missing) and mode, after the trust checks.
 * @throws DeliveryError `destination_refused` (not trusted, not readable)
 */
export async function readTarget(file: string): Promise<{ text?: string; mode: number }> {
  let read;
  try {
    read = await readTrustedFile(file, 'key file');
  } catch (err) {
    throw refused(`cannot read ${visible(file)}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (read.kind === 'refused') throw fileRefusal(read.problem);
  if (read.kind === 'missing') return { mode: 0o600 };
  return { text: read.text, mode: (await stat(file)).mode & 0o777 };
}

/**
 * Proves that a file can be created in `dir` (the atomic write's temp file is made there) by
 * making one and removing it: permission bits say nothing to root, nor of a read-only mount.
 * @throws DeliveryError `destination_refused` naming the directory and the system's reason
 */
async function probeWritable(dir: string, d: FileDestination): Promise<void> {
  const probe = path.join(dir, `.keydeck-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(probe, 'wx', 0o600);
    await handle.close();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw refused(`keydeck cannot create files in ${visible(dir)} (${code}), so ${visible(d.given)} cannot be written: choose a directory you can write to`);
  }
  await unlink(probe).catch(() => undefined); // the probe file may be gone already; writing worked
}

/**
 * Checks, before any key exists, that `d` can receive one (the directory and the file's trust, and
 * that the file's text reads as dotenv and can take the variable). Writes nothing.
 * @throws DeliveryError `destination_refused` (see {@link resolveTarget}, the file's trust, an
 *   edit the dotenv reader would not read back).
 */
export async function checkFileDestination(d: FileDestination): Promise<void> {
  const file = await resolveTarget(d);
  const { text } = await readTarget(file);
  await probeWritable(path.dirname(file), d);
  try {
    // A stand-in value of the key's form: the edit is the same for the real one.
    setDotenvVariable(text ?? '', d.variable, 'sk_check');
  } catch (err) {
    if (err instanceof DotenvEditError) throw refused(`${visible(d.given)}: ${err.message}`);
    throw err;
  }
}

/**
 * Writes `key` into the dotenv file of `d` (see the module comment), holding the lock of `lockDir`
 * (keydeck's data dir).
 * @throws DeliveryError `destination_refused` (the checks of {@link checkFileDestination}, made
 *   again under the lock), `delivery_failed` (the write failed: the file is unchanged).
 */
export async function writeKeyToFile(d: FileDestination, key: string, lockDir: string): Promise<FileDelivery> {
  return withConfigLock(lockDir, async () => {
    const file = await resolveTarget(d);
    const { text, mode } = await readTarget(file);
    let edit;
    try {
      edit = setDotenvVariable(text ?? '', d.variable, key);
    } catch (err) {
      if (err instanceof DotenvEditError) throw refused(`${visible(d.given)}: ${err.message}`);
      throw err;
    }
    try {
      await writeFileAtomically(file, edit.text, mode);
    } catch (err) {
      if (err instanceof UnsafePathError) throw refused(`${visible(err.message)}; the file is unchanged`);
      throw new DeliveryError('delivery_failed', `could not write ${visible(d.given)} (${(err as NodeJS.ErrnoException).code ?? 'error'}); the file is unchanged`);
    }
    const after = (await stat(file)).mode & 0o777;
    return { path: file, created: text === undefined, replacedLines: edit.replacedLines, mode: after };
  });
}
