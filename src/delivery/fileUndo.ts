/**
 * What a dotenv destination held before keydeck wrote a key into it, and putting it back (
 * I3): before the first write of an operation, the file's content is copied beside it
 * (`<file>.keydeck-before-<operation>`, mode 0600, written atomically) — or, for a file that did
 * not exist, nothing is copied and the record says so. Undo reads the file first: only when it
 * still holds the operation's key (by fingerprint, ./fingerprint.ts) is anything changed; when
 * nothing else changed since keydeck's write, the previous content comes back byte for byte (or
 * the file keydeck created goes); when someone changed other lines since, only the variable is
 * set back (or removed), their changes kept. The copy is removed when the operation ends.
 *
 * The copy holds what the file held (the old key, perhaps): it is the same secret with the same
 * protection, beside it, for the length of the operation only.
 */
import { readFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../config/atomic.js';
import { withConfigLock } from '../config/lock.js';
import { visible } from '../terminal/sanitize.js';
import { describeDestination, type Destination } from './destinations.js';
import { readDotenvVariable, removeDotenvVariable, setDotenvVariable } from './dotenv.js';
import { keyFingerprint } from './fingerprint.js';
import { readTarget, resolveTarget } from './fileTarget.js';

type FileDestination = Extract<Destination, { kind: 'file' }>;

/** Where a file destination's previous content is kept: its real path, and the copy (none: the file did not exist). */
export interface FileBefore {
  /** The file written (symbolic links resolved). */
  readonly target: string;
  /** The copy of its previous content; undefined when the file did not exist before. */
  readonly backup?: string;
}

/** `<dir>/<name>.keydeck-before-<first 8 characters of operationId>`. */
export function backupPathOf(target: string, operationId: string): string {
  return path.join(path.dirname(target), `${path.basename(target)}.keydeck-before-${operationId.slice(0, 8)}`);
}

/**
 * Where `d`'s previous content will be kept (nothing written: the record names it first).
 * @throws DeliveryError `destination_refused` (the checks of ./fileTarget.ts)
 */
export async function planBackup(d: FileDestination, operationId: string): Promise<FileBefore> {
  const target = await resolveTarget(d);
  const { text } = await readTarget(target);
  return text === undefined ? { target } : { target, backup: backupPathOf(target, operationId) };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    // no such file (or no access): not there
    return false;
  }
}

/**
 * Copies the file's current content to `before.backup` (mode 0600) unless the copy exists already
 * (a resumed operation keeps the first one: it is what the file held before keydeck). Nothing
 * when the file did not exist.
 * @throws DeliveryError from reading the file; the fs error from writing the copy
 */
export async function writeBackup(before: FileBefore, lockDir: string): Promise<void> {
  const backup = before.backup;
  if (backup === undefined) return;
  await withConfigLock(lockDir, async () => {
    if (await exists(backup)) return;
    const { text } = await readTarget(before.target);
    if (text === undefined) return;
    await writeFileAtomically(backup, text, 0o600, { failpointDetail: `${path.basename(before.target)}.keydeck-before` });
  });
}

/** The value of `d`'s variable as dotenv reads the file now (undefined: no file, or no such variable). */
export async function readFileKey(d: FileDestination, target?: string): Promise<string | undefined> {
  try {
    const { text } = await readTarget(target ?? (await resolveTarget(d)));
    return text === undefined ? undefined : readDotenvVariable(text, d.variable);
  } catch {
    // unreadable: nothing known to be there
    return undefined;
  }
}

/** True when `d` holds the key whose fingerprint is `fingerprint`. */
export async function fileHolds(d: FileDestination, fingerprint: string, target?: string): Promise<boolean> {
  const value = await readFileKey(d, target);
  return value !== undefined && keyFingerprint(value) === fingerprint;
}

/** What {@link restoreFile} did. */
export interface FileRestore {
  /** The file no longer holds the operation's key (put back, or it held another value already). */
  readonly released: boolean;
  /** The file held the operation's key when looked at (something was put back, or could not be). */
  readonly held: boolean;
  /** One sentence, never a value from the file. */
  readonly sentence: string;
}

/**
 * Puts back what `d` held before (see the module comment), if it still holds the key of
 * `fingerprint`. Holds keydeck's lock of `lockDir`. Never throws: trouble is a sentence, with
 * `released` false when the file still holds the key.
 */
export async function restoreFile(d: FileDestination, before: FileBefore, fingerprint: string, lockDir: string): Promise<FileRestore> {
  const name = describeDestination(d);
  try {
    return await withConfigLock(lockDir, async () => {
      const { text, mode } = await readTarget(before.target);
      const value = text === undefined ? undefined : readDotenvVariable(text, d.variable);
      if (text === undefined || value === undefined || keyFingerprint(value) !== fingerprint) {
        return { released: true, held: false, sentence: `${name} does not hold the new key (any more): left as it is` };
      }
      let previous = '';
      if (before.backup !== undefined) {
        try {
          previous = await readFile(before.backup, 'utf8');
        } catch {
          // the backup is gone: said in the sentence returned
          return { released: false, held: true, sentence: `${name} holds the new key, and the copy of its previous content (${visible(before.backup)}) is gone: set ${d.variable} there by hand` };
        }
      }
      // Exactly what keydeck wrote, nothing else changed since: the previous bytes come back.
      if (setDotenvVariable(previous, d.variable, value).text === text) {
        if (before.backup === undefined) {
          await unlink(before.target);
          return { released: true, held: true, sentence: `removed ${name}: keydeck had created it` };
        }
        await writeFileAtomically(before.target, previous, mode);
        return { released: true, held: true, sentence: `put back ${name} as it was before` };
      }
      const old = readDotenvVariable(previous, d.variable);
      let edited: string;
      try {
        edited = old !== undefined ? setDotenvVariable(text, d.variable, old).text : removeDotenvVariable(text, d.variable);
      } catch {
        // the file changed: said in the sentence returned
        const where = before.backup === undefined ? 'it did not exist before' : `its previous content is in ${visible(before.backup)}`;
        return { released: false, held: true, sentence: `${name} changed since keydeck wrote it and ${d.variable} could not be set back safely: ${where}` };
      }
      await writeFileAtomically(before.target, edited, mode);
      return {
        released: true,
        held: true,
        sentence:
          `${old !== undefined ? 'set' : 'removed'} ${d.variable} in ${visible(d.given)} ${old !== undefined ? 'back to its previous value' : ''} (the file's other changes since are kept)`.replace(
            '  (',
            ' (',
          ),
      };
    });
  } catch (err) {
    return { released: false, held: true, sentence: `${name} could not be put back: ${(err as Error).message}` };
  }
}

/** Removes a copy made by {@link writeBackup} (the operation ended); nothing when it is gone. */
export async function removeBackup(backup: string | undefined): Promise<void> {
  if (backup === undefined) return;
  await unlink(backup).catch(() => undefined); // already gone: nothing to remove
}
