/**
 * Which profiles the exporter watches (issue 24), read from the config file (src/config/) at
 * start and again on SIGHUP: `--all-profiles` (every profile of the file, following it as it
 * changes), the `--profile NAME` list, or else the current profile (`KEYDECK_PROFILE`, the file's
 * `currentProfile`, else `default`). Each profile's service is its `baseUrl` in the file.
 */
import { ConfigError, DEFAULT_RUNAWAY_FACTOR, DEFAULT_RUNAWAY_FLOOR_USD_PER_HOUR, normalizeBaseUrl, readConfig, type KeydeckConfig } from '../config/config.js';
import type { WatchedProfile } from './watcher.js';

/**
 * `--all-profiles`, `--profile NAME…`, or neither; `plus`: a profile that is not in the file
 * first (`keydeck --sandbox exporter`: the sandbox, issue 44), then those `rest` picks, if any.
 */
export type ProfileSelection =
  | { readonly kind: 'all' }
  | { readonly kind: 'names'; readonly names: readonly string[] }
  | { readonly kind: 'current'; readonly envProfile?: string | undefined }
  | { readonly kind: 'plus'; readonly first: WatchedProfile; readonly rest?: ProfileSelection };

/** The profiles `selection` picks from `config`, in name order (a named profile absent from the file is watched without a service). */
export function selectProfiles(config: KeydeckConfig, selection: ProfileSelection): WatchedProfile[] {
  if (selection.kind === 'plus') {
    const rest = selection.rest ? selectProfiles(config, selection.rest).filter((p) => p.name !== selection.first.name) : [];
    return [selection.first, ...rest];
  }
  const names =
    selection.kind === 'all'
      ? Object.keys(config.profiles)
      : selection.kind === 'names'
        ? [...new Set(selection.names)]
        : [selection.envProfile?.trim() || config.currentProfile || 'default'];
  return names.sort().map((name) => {
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
    };
  });
}

/**
 * Reads the config file and picks the profiles.
 * @throws ConfigError when the file is unreadable, untrusted, not JSON or invalid (one sentence naming the file and field)
 */
export async function loadProfiles(configPath: string, selection: ProfileSelection): Promise<WatchedProfile[]> {
  const { config } = await readConfig(configPath);
  return selectProfiles(config, selection);
}

export { ConfigError };
