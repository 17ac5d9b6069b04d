/**
 * Where a management key that `mgmt-keys rotate` replaces lives:
 * keydeck's own store for a profile (the OS keychain, or the consented plaintext file), or a token
 * file that another program reads (the exporter's `--token-file`). Each place is read and written
 * as a whole (an atomic write, read back), and keeps the key it replaces in a backup beside it
 * until the rotation ends, so that an undo can put the old key back after a kill at any step
 * (the only copy of the old key's value is keydeck's; the record holds no secret):
 *
 * | place           | the key                                   | the backup, while a rotation runs                     |
 * |-----------------|-------------------------------------------|-------------------------------------------------------|
 * | store           | `<profile>@<origin>` (keychain, or file)  | `<profile>#previous@<origin>`, in the same store (`#` is in no profile name) |
 * | token file PATH | PATH: the key, and a newline if it had one | `.<name>.keydeck-previous` beside PATH                |
 *
 * A token file keeps its owner and mode across the write (a temp file in its directory, renamed
 * over it: src/config/atomic.ts); it is trusted as the exporter trusts it (src/config/trust.ts:
 * this user's or root's, no access for group or others), and root may rotate a service user's
 * file (root's cron, the exporter's user). No link is followed, at the token file's name, the
 * backup's or the temporary file's, and its directory and those above are checked as ssh's
 * StrictModes does (src/config/strictModes.ts). Root on a directory of another user (the
 * exporter's `tokens/`, theirs) reads and writes there as that user: the token file must be
 * theirs, the files written are theirs, and every directory above must be root's, else the
 * rotation is refused before anything is created (`sudo -u` that user instead). A copy systemd handed over
 * (`$CREDENTIALS_DIRECTORY`, read-only) is refused: the file to rotate is the one its
 * `LoadCredential=` names.
 */
import { constants } from 'node:fs';
import { access, lstat, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../config/atomic.js';
import { checkDirectoryChain, UnsafePathError, type TrustedDirectory } from '../config/strictModes.js';
import { trustProblemOf } from '../config/trust.js';
import { checkCredentialToken, credentialAccount, type CredentialStore, type OriginTarget } from '../credentials/index.js';
import type { CredentialTarget } from './mgmtRotationRecord.js';
import { KeydeckError } from '../errors/index.js';

/** A place refused or failing: one sentence naming it (never the key); code `credential_place_failed`. */
export class CredentialPlaceError extends KeydeckError {
  override readonly name = 'CredentialPlaceError';
  constructor(message: string) {
    super('credential_place_failed', message);
  }
}

/** A place that holds a management key (see the module comment). */
export interface CredentialPlace {
  /** What the rotation record says of it. */
  readonly target: CredentialTarget;
  /** Where it is, in words: `the keychain (account "default@https://…")`, `the token file /etc/keydeck/prod`. */
  describe(): string;
  /** What a write kept, in words after {@link describe} once the new key is stored: ` (mode 0600, as before)`. */
  readonly keptOnWrite: string;
  /**
   * The key there now; undefined when there is none.
   * @throws CredentialPlaceError when it cannot be read or trusted
   */
  read(): Promise<string | undefined>;
  /**
   * Replaces the key with `token` and reads it back.
   * @throws CredentialPlaceError when it could not be written or does not give `token` back
   */
  write(token: string): Promise<void>;
  /** The key kept in the backup; undefined when there is none. */
  readBackup(): Promise<string | undefined>;
  /** Keeps `token` in the backup. @throws CredentialPlaceError */
  writeBackup(token: string): Promise<void>;
  /** Removes the backup (nothing when there is none). @throws CredentialPlaceError */
  dropBackup(): Promise<void>;
  /**
   * Checks, before anything is created, that the place can be written as the rotation will
   * (a token file: a regular file it may replace with the same owner; no foreign backup).
   * @throws CredentialPlaceError naming what is in the way
   */
  preflight(): Promise<void>;
}

function sentenceOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code ?? (err instanceof Error ? err.message.replace(/\.$/, '') : String(err));
}

/** The profile name of the backup: `#` is in no profile name (src/config/config.ts), so it cannot be one. */
function backupProfile(profile: string): string {
  return `${profile}#previous`;
}

/**
 * keydeck's store for `profile` at `origin` (./credentials): the keychain, or the plaintext file
 * when `insecureStorage` (the key came from there).
 */
export function storePlace(store: CredentialStore, profile: string, origin: OriginTarget, insecureStorage: boolean, filePath?: string): CredentialPlace {
  let where: 'keychain' | 'file' = insecureStorage ? 'file' : 'keychain';
  const get = async (name: string, target: OriginTarget): Promise<string | undefined> => {
    try {
      return (await store.get(name, { ...target, ignoreEnv: true }))?.token;
    } catch (err) {
      throw new CredentialPlaceError(`the stored key cannot be read: ${sentenceOf(err)}`);
    }
  };
  const set = async (name: string, token: string, target: OriginTarget): Promise<'keychain' | 'file'> => {
    try {
      return (await store.set(name, token, { ...target, insecureStorage })).source;
    } catch (err) {
      throw new CredentialPlaceError(sentenceOf(err));
    }
  };
  const backupTarget: OriginTarget = { origin: origin.origin, legacy: false };
  return {
    target: { kind: 'store', storedIn: where },
    describe: () => (where === 'keychain' ? `the keychain (account "${credentialAccount(profile, origin.origin)}")` : `the plaintext key file${filePath ? ` ${filePath}` : ''}`),
    get keptOnWrite() {
      return where === 'file' ? ' (mode 0600, as before)' : '';
    },
    read: () => get(profile, origin),
    async write(token) {
      where = await set(profile, token, origin);
      if ((await get(profile, origin)) !== token) throw new CredentialPlaceError('the store does not give the new key back');
    },
    readBackup: () => get(backupProfile(profile), backupTarget),
    async writeBackup(token) {
      await set(backupProfile(profile), token, backupTarget);
      if ((await get(backupProfile(profile), backupTarget)) !== token) throw new CredentialPlaceError('the store does not give the kept key back');
    },
    async dropBackup() {
      try {
        await store.delete(backupProfile(profile), backupTarget);
      } catch (err) {
        throw new CredentialPlaceError(`the kept copy of the old key cannot be removed: ${sentenceOf(err)}`);
      }
    },
    preflight: async () => undefined,
  };
}

/** The backup beside a token file: `.<name>.keydeck-previous` (hidden, never a profile's file name). */
export function tokenFileBackupPath(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.keydeck-previous`);
}

/**
 * The token file's directory, checked (src/config/strictModes.ts; root may act there as its owner).
 * @throws CredentialPlaceError naming the directory at fault; the fs error when it cannot be looked at
 */
function tokenDirectory(file: string): TrustedDirectory {
  try {
    return checkDirectoryChain(path.dirname(file), { asOwner: true });
  } catch (err) {
    if (err instanceof UnsafePathError) throw new CredentialPlaceError(err.message);
    throw err;
  }
}

/**
 * Reads the key file `file` as ssh trusts its own (src/config/trust.ts: a regular file, no access
 * for group or others, this user's or root's), except that root may read another user's file:
 * the token file of a service user (`nobody`, `keydeck`), rotated by root's cron. Its directory
 * is checked first ({@link tokenDirectory}); in a directory of another user, the file must be
 * that user's. Opened non-blocking and without following a link (`O_NOFOLLOW`), checked on the
 * descriptor. Undefined when missing.
 * @throws CredentialPlaceError when it is not trusted; the Node error when it cannot be read
 */
async function readOwnKeyFile(file: string): Promise<string | undefined> {
  let dir: TrustedDirectory;
  try {
    dir = tokenDirectory(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
  const at = path.join(dir.dir, path.basename(file));
  let handle;
  try {
    handle = await open(at, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP') throw new CredentialPlaceError(`${file} is a symbolic link: keydeck reads no key through a link; name the file itself`);
    throw err;
  }
  try {
    const st = await handle.stat();
    const me = typeof process.getuid === 'function' ? process.getuid() : undefined;
    const problem = trustProblemOf(file, 'key file', st, me === 0 ? st.uid : me);
    if (problem) throw new CredentialPlaceError(problem.sentence);
    if (dir.actAs && st.uid !== dir.actAs.uid) throw new CredentialPlaceError(foreignInOwnersDir(file, st.uid, dir.actAs.uid));
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The refusal of a file that is not its directory owner's, when root acts as that owner. */
function foreignInOwnersDir(file: string, uid: number, owner: number): string {
  return `${file} belongs to uid ${uid}, but its directory to uid ${owner}, who could have put it there: in another user's directory keydeck (as root) reads and writes only that user's files; \`chown ${owner} ${file}\` if it is theirs`;
}

/** True when `file` is inside `dir`. */
function inside(dir: string | undefined, file: string): boolean {
  if (!dir) return false;
  const rel = path.relative(path.resolve(dir), file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * The token file `file` (made absolute). `env`: for `CREDENTIALS_DIRECTORY` (a systemd copy is refused).
 */
export function tokenFilePlace(file: string, env: NodeJS.ProcessEnv = process.env): CredentialPlace {
  const target = path.resolve(file);
  const backup = tokenFileBackupPath(target);
  /** Whether the file ended with a newline when last read (kept on write). */
  let newline = true;

  const readKey = async (at: string, what: string): Promise<{ token: string; text: string } | undefined> => {
    let text: string;
    try {
      const read = await readOwnKeyFile(at);
      if (read === undefined) return undefined;
      text = read;
    } catch (err) {
      if (err instanceof CredentialPlaceError) throw err;
      throw new CredentialPlaceError(`${what} ${at} cannot be read (${sentenceOf(err)})`);
    }
    try {
      return { token: checkCredentialToken(text, `${what} ${at}`), text };
    } catch (err) {
      throw new CredentialPlaceError((err as Error).message.replace(/\.$/, ''));
    }
  };
  /** The token file's mode and owner, which every write keeps. */
  const owner = async () => {
    let st;
    try {
      st = await lstat(target);
    } catch (err) {
      throw new CredentialPlaceError(`the token file ${target} cannot be read (${sentenceOf(err)})`);
    }
    if (!st.isFile()) throw new CredentialPlaceError(`the token file ${target} is not a regular file (a link?): keydeck writes no key through a link`);
    return { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  };
  const writeAs = async (at: string, token: string, what: string): Promise<void> => {
    const { mode, uid, gid } = await owner();
    try {
      await writeFileAtomically(at, `${token}${newline ? '\n' : ''}`, mode, { chown: { uid, gid }, asDirectoryOwner: true });
    } catch (err) {
      throw new CredentialPlaceError(`${what} ${at} cannot be written (${sentenceOf(err)})`);
    }
    if ((await readKey(at, what))?.token !== token) throw new CredentialPlaceError(`${what} ${at} does not give the new key back`);
  };

  return {
    target: { kind: 'token_file', path: target },
    describe: () => `the token file ${target}`,
    keptOnWrite: ' (its owner, mode and final newline kept)',
    async read() {
      const found = await readKey(target, 'the token file');
      if (found) newline = found.text.endsWith('\n');
      return found?.token;
    },
    write: (token) => writeAs(target, token, 'the token file'),
    readBackup: async () => (await readKey(backup, 'the kept copy of the old key'))?.token,
    writeBackup: (token) => writeAs(backup, token, 'the kept copy of the old key'),
    async dropBackup() {
      try {
        await unlink(backup);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new CredentialPlaceError(`the kept copy of the old key ${backup} cannot be removed (${sentenceOf(err)})`);
      }
    },
    async preflight() {
      if (inside(env.CREDENTIALS_DIRECTORY, target)) {
        throw new CredentialPlaceError(`the token file ${target} is systemd's read-only copy (in $CREDENTIALS_DIRECTORY): rotate the file its LoadCredential= line names, then restart the unit`);
      }
      const dir = tokenDirectory(target);
      const st = await lstat(target).catch((err: unknown) => {
        throw new CredentialPlaceError(`the token file ${target} cannot be read (${sentenceOf(err)})`);
      });
      if (!st.isFile()) throw new CredentialPlaceError(`the token file ${target} is not a regular file (a link?): give the file itself`);
      if (dir.actAs && st.uid !== dir.actAs.uid) throw new CredentialPlaceError(foreignInOwnersDir(target, st.uid, dir.actAs.uid));
      const me = typeof process.getuid === 'function' ? process.getuid() : undefined;
      if (me !== undefined && me !== 0 && st.uid !== me) {
        throw new CredentialPlaceError(
          `the token file ${target} belongs to uid ${st.uid}, and only root can write a file that keeps another user as its owner: run the rotation as that user or as root`,
        );
      }
      try {
        await access(path.dirname(target), constants.W_OK | constants.X_OK);
      } catch {
        throw new CredentialPlaceError(`the directory ${path.dirname(target)} is not writable, so the token file cannot be replaced atomically there: nothing was created`);
      }
      const kept = await lstat(backup).then(
        () => true,
        () => false,
      );
      if (kept) throw new CredentialPlaceError(`${backup} exists, and no rotation of ${target} is recorded: move it away (it may hold a key), then rotate again`);
    },
  };
}
