/**
 * Atomic file writes (write-file-atomic: a temp file in the same directory, created with the final
 * mode, fsynced, then renamed over the target), shared by the config file and the key file.
 */
import writeFileAtomic from 'write-file-atomic';
import { failpoint, fileDetail } from '../failpoints/index.js';

/**
 * Writes `data` to `file` atomically with permission bits `mode` (e.g. 0o600). The directory
 * must exist. Rejects with the fs error (`code` set) on failure; the target is then unchanged.
 * `failpointDetail`: the name of its `file.renamed` failpoint when the file's own name varies
 * from run to run (default: the file's name).
 */
export async function writeFileAtomically(file: string, data: string, mode: number, failpointDetail?: string): Promise<void> {
  await writeFileAtomic(file, data, { mode });
  failpoint('file.renamed', failpointDetail ?? fileDetail(file));
}
