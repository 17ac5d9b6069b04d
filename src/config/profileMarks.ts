/**
 * The marks a profile carries (docs/credentials.md "Read-only and protected profiles"):
 *
 * - `readOnly` (the profile's `readOnly: true`, or `--read-only` for one run): keydeck changes
 *   nothing on that account. Every change (create, rename, enable, disable, delete, rotate, top-up,
 *   verify, cancel, auto top-up, and any later one such as guardrail changes) calls
 *   {@link ensureWritable} at the entry of its command or TUI action, before any question; the
 *   refusal is one sentence naming why, exit 3 for a command (`--yes` does not pass it), a status
 *   line in the TUI. The API client built for such a profile refuses POST, PUT and DELETE before
 *   sending as a last line (src/api/core.ts `readOnly`), with {@link readOnlyReason}'s words.
 * - `protected`: deleting or deactivating a key asks for its name to be typed, as GitHub asks for
 *   a repository's; a script's `--yes` must come with `--confirm-name NAME`.
 *
 * {@link listProfiles} lists every profile of the config file with its service origin, its marks,
 * and whether it is the default: what a view of every account at once starts from.
 */
import { normalizeBaseUrl as normalizeUrl } from '../api/baseUrl.js';
import type { KeydeckConfig } from './config.js';
import { KeydeckError } from '../errors/index.js';

/** Why a profile is read-only: its config entry (`profile`) or `--read-only` (`flag`). */
export interface ReadOnlyMark {
  readonly by: 'profile' | 'flag';
}

/** What {@link ensureWritable} reads of a profile (src/config/profile.ts `ResolvedProfile` has it). */
export interface MarkedProfile {
  readonly name: string;
  readonly readOnly?: ReadOnlyMark | undefined;
  /** The config file, named in the sentence of a profile marked there. */
  readonly configPath?: string | undefined;
}

/**
 * A change refused because the profile is read-only. `message` is one sentence: what was not
 * done, why, and that nothing was sent; how to lift it is each face's to say (src/words/account.ts).
 * Commands exit 3 with it (src/commands/output.ts).
 */
export class ReadOnlyError extends KeydeckError {
  override readonly name = 'ReadOnlyError';
  override readonly code = 'read_only' as const;
  readonly profile: string;
  readonly action: string;
  /** Why it is read-only: its config entry, or `--read-only` for this run. */
  readonly by: ReadOnlyMark['by'];
  /** The config file that marks it, when it does. */
  readonly configPath?: string;
  constructor(profile: MarkedProfile, action: string) {
    const reason = readOnlyReason(profile) ?? `the profile "${profile.name}" is read-only`;
    super('read_only', `read_only: ${readOnlyRefusal(reason, action)}`, { exitClass: 'stopped', nothingSent: true });
    this.profile = profile.name;
    this.action = action;
    this.by = profile.readOnly?.by ?? 'profile';
    if (profile.configPath !== undefined) this.configPath = profile.configPath;
  }
}

/**
 * Why `profile` is read-only, as a clause (`the profile "prod" is read-only (readOnly in
 * /c/config.json)`, `--read-only was given`); undefined when it is not. The API client's refusal
 * uses the same words.
 */
export function readOnlyReason(profile: MarkedProfile): string | undefined {
  if (profile.readOnly === undefined) return undefined;
  if (profile.readOnly.by === 'flag') return `--read-only was given for profile "${profile.name}"`;
  return `the profile "${profile.name}" is read-only (readOnly in ${profile.configPath ?? 'the config file'})`;
}

/**
 * The refusal of `action` (an infinitive: `delete a key`) for `reason` ({@link readOnlyReason}), as
 * the TUI's status line and the commands say it: `the profile "prod" is read-only (…), so keydeck
 * does not delete a key; nothing was sent` (no final period).
 */
export function readOnlyRefusal(reason: string, action: string): string {
  return `${reason}, so keydeck does not ${action}; nothing was sent`;
}

/**
 * The one check every change makes before anything is asked or sent.
 * @throws ReadOnlyError when `profile` is read-only
 */
export function ensureWritable(profile: MarkedProfile, action: string): void {
  if (profile.readOnly !== undefined) throw new ReadOnlyError(profile, action);
}

/** True for a {@link ReadOnlyError} (from any copy of this module). */
export function isReadOnlyError(error: unknown): error is ReadOnlyError {
  return error instanceof ReadOnlyError || (error instanceof Error && error.name === 'ReadOnlyError' && (error as { code?: unknown }).code === 'read_only');
}

/** One profile of the config file as {@link listProfiles} lists it. */
export interface ProfileListing {
  readonly name: string;
  /** The saved base URL, normalised; undefined when none (or a refused one). */
  readonly baseUrl?: string;
  /** `https://host[:port]`: the service's origin (what stored keys are kept by); undefined without a base URL. */
  readonly origin?: string;
  readonly readOnly: boolean;
  readonly protected: boolean;
  /** True for the default profile (`currentProfile`, else `default`). */
  readonly isDefault: boolean;
}

/** Every profile of `config`, in name order, with its origin, marks and whether it is the default. */
export function listProfiles(config: KeydeckConfig): ProfileListing[] {
  const current = config.currentProfile ?? 'default';
  return Object.entries(config.profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, entry]) => {
      let baseUrl: string | undefined;
      try {
        baseUrl = entry.baseUrl !== undefined ? normalizeUrl(entry.baseUrl) : undefined;
      } catch {
        // a bad base URL is said where the profile is used
        baseUrl = undefined;
      }
      return {
        name,
        ...(baseUrl !== undefined && { baseUrl, origin: new URL(baseUrl).origin }),
        readOnly: entry.readOnly === true,
        protected: entry.protected === true,
        isDefault: name === current,
      };
    });
}
