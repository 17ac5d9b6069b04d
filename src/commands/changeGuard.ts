/**
 * The commands' half of the one read-only check (src/config/profileMarks.ts): every command that
 * changes the account calls {@link ensureCanChange} first, before any question and before anything
 * is sent; a read-only profile ends it with exit 3 and one sentence, whatever `--yes` says. (The
 * client of a read-only profile refuses every change before sending too: the last line.)
 */
import { resolveProfile, type ResolvedProfile } from '../config/profile.js';
import { ensureWritable } from '../config/profileMarks.js';
import type { GlobalOptions } from './output.js';

/**
 * The check every change a command makes calls first, before any question and before anything is
 * sent (src/config/profileMarks.ts): resolves the profile of `globals` and refuses `action` (an
 * infinitive: `delete a key`) when it is read-only. Returns the profile, for its other marks.
 * @throws ReadOnlyError (exit 3); ConfigError as {@link resolveProfile}
 */
export async function ensureCanChange(globals: GlobalOptions, action: string, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedProfile> {
  const profile = await resolveProfile(globals, env);
  ensureWritable(profile, action);
  return profile;
}
