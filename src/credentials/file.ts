/**
 * The consented fallback: `<configDir>/credentials.json`, a JSON map profile name → token,
 * mode 0600, written atomically (src/config/atomic.ts: the temp file is created with mode 0600
 * and follows no link, so the secret is never readable by others, not even for a moment). Used only when the user passed
 * `--insecure-storage`; the file is deleted when its last entry is removed.
 */
import { mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from '../api/zod.js';
import { UnsafePathError, writeFileAtomically } from '../config/atomic.js';
import { describeJsonSyntaxError } from '../config/json.js';
import { withConfigLock } from '../config/lock.js';
import { readTrustedFile } from '../config/trust.js';
import { CredentialStoreError } from './store.js';

const FileSchema = z.record(z.string(), z.string());

/** The plaintext key file of {@link createCredentialStore}'s fallback. */
export class CredentialFile {
  /** @param path absolute path of the file (see `credentialsFilePath()` in src/config/paths.ts). */
  constructor(readonly path: string) {}

  /**
   * All entries (profile → token); `{}` when the file does not exist.
   * @throws CredentialStoreError `file_error` when it cannot be read or is not a JSON map of
   *   strings (the sentence names the file, never its content).
   */
  async readAll(): Promise<Record<string, string>> {
    let text: string;
    try {
      // Trusted as ssh trusts a private key (src/config/trust.ts): a regular file of this user,
      // readable by nobody else; a FIFO is refused at once, never read.
      const read = await readTrustedFile(this.path, 'key file');
      if (read.kind === 'missing') return {};
      if (read.kind === 'refused') throw new CredentialStoreError('file_untrusted', `${read.problem.sentence}.`);
      text = read.text;
    } catch (err) {
      if (err instanceof CredentialStoreError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      throw new CredentialStoreError('file_error', `cannot read the key file ${this.path} (${code ?? 'error'}): check its permissions.`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new CredentialStoreError('file_error', `the key file ${this.path} is not valid JSON (${describeJsonSyntaxError(err)}): delete it and log in again.`);
    }
    const parsed = FileSchema.safeParse(data);
    if (!parsed.success) {
      throw new CredentialStoreError('file_error', `the key file ${this.path} is not a map of profile names to keys: delete it and log in again.`);
    }
    return parsed.data;
  }

  /** The token stored for `profile`, or undefined. @throws CredentialStoreError `file_error`. */
  async get(profile: string): Promise<string | undefined> {
    const all = await this.readAll();
    return Object.hasOwn(all, profile) ? all[profile] : undefined;
  }

  /**
   * Stores `token` for `profile` (other profiles' entries are kept). The directory is created
   * with mode 0700 when missing; the file is written atomically with mode 0600.
   * @throws CredentialStoreError `file_error`.
   */
  async set(profile: string, token: string): Promise<void> {
    await this.locked(async () => {
      const all = await this.readAll();
      all[profile] = token;
      await this.write(all);
    });
  }

  /** Runs a read-modify-write of the file under the config dir's cross-process lock (src/config/lock.ts). */
  private async locked<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await withConfigLock(path.dirname(this.path), body);
    } catch (err) {
      if (err instanceof CredentialStoreError) throw err;
      throw new CredentialStoreError('file_error', `cannot update the key file ${this.path}: ${(err as Error).message}.`);
    }
  }

  /**
   * Removes `profile`'s entry; deletes the file when no entry remains. Returns whether there was one.
   * @throws CredentialStoreError `file_error`.
   */
  async delete(profile: string): Promise<boolean> {
    // Nothing to remove needs no lock (and no lock file in a config dir that may not exist).
    if (!Object.hasOwn(await this.readAll(), profile)) return false;
    return this.locked(() => this.deleteUnlocked(profile));
  }

  private async deleteUnlocked(profile: string): Promise<boolean> {
    const all = await this.readAll();
    if (!Object.hasOwn(all, profile)) return false;
    delete all[profile];
    if (Object.keys(all).length === 0) {
      try {
        await unlink(this.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new CredentialStoreError('file_error', `cannot delete the key file ${this.path}: remove it by hand.`);
        }
      }
    } else {
      await this.write(all);
    }
    return true;
  }

  private async write(all: Record<string, string>): Promise<void> {
    try {
      await mkdir(path.dirname(this.path), { recursive: true, mode: 0o700 });
      await writeFileAtomically(this.path, `${JSON.stringify(all, null, 2)}\n`, 0o600);
    } catch (err) {
      if (err instanceof UnsafePathError) throw new CredentialStoreError('file_error', `cannot write the key file ${this.path}: ${err.message}.`);
      throw new CredentialStoreError('file_error', `cannot write the key file ${this.path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): check the directory's permissions.`);
    }
  }
}
