/**
 * Atomic file writes (write-file-atomic: a temp file in the same directory, created with the final
 * mode, fsynced, then renamed over the target), shared by the config file and the key file.
 */
import writeFileAtomic from 'write-file-atomic';
import { failpoint, fileDetail } from '../failpoints/index.js';

/**
 * Writes `data` to `file` atomically with permission bits `mode` (e.g. 0o600). The directory
 * must exist. The new file keeps the owner of the one it replaces (write-file-atomic's default),
 * or takes `options.chown` (root only, for another user's file: `mgmt-keys rotate --token-file`).
 * `options.failpointDetail`: the name of its `file.renamed` failpoint when the file's own name
 * varies from run to run (default: the file's name).
 * Rejects with the fs error (`code` set) on failure; the target is then unchanged.
 */
export async function writeFileAtomically(
  file: string,
  data: string,
  mode: number,
  options: { readonly chown?: { readonly uid: number; readonly gid: number }; readonly failpointDetail?: string } = {},
): Promise<void> {
  await writeFileAtomic(file, data, { mode, ...(options.chown && { chown: { uid: options.chown.uid, gid: options.chown.gid } }) });
  failpoint('file.renamed', options.failpointDetail ?? fileDetail(file));
}
