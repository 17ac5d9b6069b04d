/**
 * The profile names of `config.json`, for shell completion (src/commands/completion.ts): read as
 * ./config.ts reads the file (its dir and the file trusted as ssh trusts its own, ./trust.ts), but
 * without the config's schema, whose zod is a third of what a Tab press would load
 * (bench/oneshot.mjs). Names that are not valid profile names are left out; a file that cannot be
 * read, is refused or is not JSON gives none. Never throws.
 */
import path from 'node:path';
import { configFilePath } from './paths.js';
import { checkTrustedDir, readTrustedFileSync } from './trust.js';

/** A profile name: 1–64 letters, digits, `.`, `_` or `-`, starting with a letter or digit (./config.ts ProfileNameSchema). */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The names of the profiles in the config file `file` (default: keydeck's own), sorted; [] when there are none to give. */
export async function configProfileNames(file: string = configFilePath()): Promise<string[]> {
  try {
    if (checkTrustedDir(path.dirname(file), 'config dir') !== undefined) return [];
    const read = readTrustedFileSync(file, 'config file');
    if (read.kind !== 'text') return [];
    const profiles = (JSON.parse(read.text) as { profiles?: unknown } | null)?.profiles;
    if (typeof profiles !== 'object' || profiles === null || Array.isArray(profiles)) return [];
    return Object.keys(profiles)
      .filter((name) => PROFILE_NAME.test(name))
      .sort();
  } catch {
    // a config that cannot be read names no profile to complete
    return [];
  }
}
