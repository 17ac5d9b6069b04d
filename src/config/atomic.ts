/**
 * Atomic file writes (write-file-atomic: a temp file in the same directory, created with the final
 * mode, fsynced, then renamed over the target), shared by the config file and the key file.
 */
import writeFileAtomic from 'write-file-atomic';

/**
 * Writes `data` to `file` atomically with permission bits `mode` (e.g. 0o600). The directory
 * must exist. Rejects with the fs error (`code` set) on failure; the target is then unchanged.
 */
export function writeFileAtomically(file: string, data: string, mode: number): Promise<void> {
  return writeFileAtomic(file, data, { mode });
}
