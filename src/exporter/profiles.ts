/**
 * Which profiles the exporter watches, read from the config file (src/config/) at
 * start and again on SIGHUP: `--all-profiles` (every profile of the file, following it as it
 * changes), the `--profile NAME` list, or else the current profile (`KEYDECK_PROFILE`, the file's
 * `currentProfile`, else `default`). Each profile's service is its `baseUrl` in the file.
 */
import { ConfigError, DEFAULT_RUNAWAY_FACTOR, DEFAULT_RUNAWAY_FLOOR_USD_PER_HOUR, normalizeBaseUrl, readConfigProfiles, type KeydeckConfig } from '../config/config.js';
import type { WatchedProfile } from './profile.js';

/**
 * `--all-profiles`, `--profile NAME…`, or neither; `plus`: a profile that is not in the file
 * first (`keydeck --sandbox exporter`: the sandbox), then those `rest` picks, if any.
 */
export type ProfileSelection =
  | { readonly kind: 'all' }
  | { readonly kind: 'names'; readonly names: readonly string[] }
  | { readonly kind: 'current'; readonly envProfile?: string | undefined }
  | { readonly kind: 'plus'; readonly first: WatchedProfile; readonly rest?: ProfileSelection };

/**
 * The profiles `selection` picks from `config`, in name order (a named profile absent from the file
 * is watched without a service); a profile of `invalid` (its entry refused) is watched with the
 * error's sentence, never polled.
 */
export function selectProfiles(config: KeydeckConfig, selection: ProfileSelection, invalid: ReadonlyMap<string, ConfigError> = new Map()): WatchedProfile[] {
  if (selection.kind === 'plus') {
    const rest = selection.rest ? selectProfiles(config, selection.rest, invalid).filter((p) => p.name !== selection.first.name) : [];
    return [selection.first, ...rest];
  }
  const names =
    selection.kind === 'all'
      ? [...Object.keys(config.profiles), ...invalid.keys()]
      : selection.kind === 'names'
        ? [...new Set(selection.names)]
        : [selection.envProfile?.trim() || config.currentProfile || 'default'];
  return names.sort().map((name) => {
    const refused = invalid.get(name);
    if (refused) return { name, invalid: refused.message };
    const entry = config.profiles[name];
    let baseUrl: string | undefined;
    try {
      baseUrl = entry?.baseUrl !== undefined ? normalizeBaseUrl(entry.baseUrl) : undefined;
    } catch {
      baseUrl = undefined; // The schema already refused a bad URL; nothing else reaches here.
    }
    return {
      name,
      baseUrl,
      alertBelowUsd: entry?.alertBelowUsd,
      runaway: { factor: entry?.runawayFactor ?? DEFAULT_RUNAWAY_FACTOR, floorUsdPerHour: entry?.runawayFloorUsdPerHour ?? DEFAULT_RUNAWAY_FLOOR_USD_PER_HOUR },
      topUpMethods: entry?.topUpMethods,
      autoTopUp: entry?.autoTopUp,
      ...(entry?.readOnly === true && { readOnly: true }),
    };
  });
}

/** What {@link loadProfiles} read. */
export interface LoadedProfiles {
  readonly profiles: WatchedProfile[];
  /** Fields of the file this keydeck does not know, ignored (dotted paths). */
  readonly unknownFields: readonly string[];
  /** The watched profiles whose entry has a value keydeck refuses, with the sentence saying why. */
  readonly invalid: ReadonlyMap<string, string>;
}

/**
 * Reads the config file and picks the profiles. `atStart`: a profile whose entry has a value
 * keydeck refuses is watched as down (`config_invalid`) and the others as usual, since there is no
 * last good config to keep; otherwise (a reload) such a file is refused whole.
 * @throws ConfigError when the file is unreadable, untrusted, not JSON or invalid at its top level,
 *   or (not `atStart`) a profile's entry is invalid (one sentence naming the file and field)
 */
export async function loadProfiles(configPath: string, selection: ProfileSelection, atStart = false): Promise<LoadedProfiles> {
  const read = await readConfigProfiles(configPath);
  const refused = read.invalid.values().next();
  if (!atStart && !refused.done) throw refused.value;
  const profiles = selectProfiles(read.config, selection, read.invalid);
  const invalid = new Map(profiles.flatMap((p) => (p.invalid !== undefined ? [[p.name, p.invalid] as const] : [])));
  return { profiles, unknownFields: read.unknown.paths, invalid };
}

export { ConfigError };
