/**
 * Profile resolution: which profile a command uses and with which settings.
 *
 * Precedence: the profile name is `--profile`, else `KEYDECK_PROFILE`, else a directory rule (a
 * `.keydeck` file, else `profileRules`), else the config file's `currentProfile`, else `default`
 * (./profileChoice.ts, which also says which rule chose it). The base URL is `--base-url`, else
 * `KEYDECK_BASE_URL`, else the profile's `baseUrl` (none on first use with the real service: the
 * caller asks for it). The marks: `readOnly` (the profile's, or `--read-only`) and `protected`
 * (./profileMarks.ts).
 */
import {
  DEFAULT_CONFIRM_ABOVE_USD,
  DEFAULT_POLL_INTERVAL_SECONDS,
  DEFAULT_RUNAWAY_FACTOR,
  DEFAULT_RUNAWAY_FLOOR_USD_PER_HOUR,
  ConfigError,
  normalizeBaseUrl,
  readConfig,
  type KeydeckConfig,
} from './config.js';
import { configFilePath, dataDir } from './paths.js';
import { chooseProfile, type ProfileChoice, type ProfileSource } from './profileChoice.js';
import type { ReadOnlyMark } from './profileMarks.js';
import { checkTrustedDir } from './trust.js';
import type { AutoTopUpPolicy } from './autoTopUp.js';
import type { Guardrails } from './guardrailRules.js';

/** The settings a command runs with. Units: seconds, USD. */
export interface ResolvedProfile {
  /** The profile name (also the keychain account of its key). */
  readonly name: string;
  /** The service's base URL, without trailing slash; undefined when neither flag, env nor profile gives one. */
  readonly baseUrl?: string;
  /** Where `baseUrl` came from. */
  readonly baseUrlSource?: 'flag' | 'profile';
  /** The profile's own saved base URL (whatever the flag says), normalised; undefined when none. */
  readonly savedBaseUrl?: string;
  /** Seconds between balance polls (default 15, min 2). */
  readonly pollIntervalSeconds: number;
  /** Low-balance threshold in USD, when the profile sets one. */
  readonly alertBelowUsd?: number;
  /** Top-up ceiling, USD: an amount above it must be typed again to confirm (default 500). */
  readonly confirmAboveUsd: number;
  /** The top-up method names by kind, when the profile sets any (`topUpMethods`; default the seed's). */
  readonly topUpMethods?: Readonly<Partial<Record<'card_checkout' | 'card_direct' | 'usdc', string>>>;
  /** A key spending this many times its own 7-day median is a runaway (default 5). */
  readonly runawayFactor: number;
  /** The least rate that can be a runaway, USD/hour (default 1). */
  readonly runawayFloorUsdPerHour: number;
  /** The profile's chain RPC URL (`chainRpc`), when it sets one. */
  readonly chainRpc?: string;
  /** False when the profile turned the chain checks off (`chainChecks: false`); default true. */
  readonly chainChecks: boolean;
  /** The auto top-up policy, when the profile sets one. */
  readonly autoTopUp?: AutoTopUpPolicy;
  /** The per-key guardrails `keydeck apply` stored, when there are any. */
  readonly guardrails?: Guardrails;
  /** The config file the profile was read from (it may not exist yet). */
  readonly configPath: string;
  /** True when the config file has an entry for this profile. */
  readonly inConfig: boolean;
  /** The rule that chose this profile (./profileChoice.ts). */
  readonly chosenBy: ProfileChoice;
  /** Set when keydeck must change nothing on this account: the profile's `readOnly`, or `--read-only` (./profileMarks.ts). */
  readonly readOnly?: ReadOnlyMark;
  /** True when deleting or deactivating a key asks for its name to be typed (the profile's `protected`). */
  readonly protected: boolean;
}

/** Command-line inputs of {@link resolveProfile} (commander's global options). */
export interface ProfileOverrides {
  /** `--profile` (commander already falls back to `KEYDECK_PROFILE`). */
  readonly profile?: string;
  /** Where `profile` came from (default `flag`): `env` when commander filled it from `KEYDECK_PROFILE`, `sandbox` for `--sandbox`'s own. */
  readonly profileSource?: ProfileSource;
  /** `--base-url` (commander already falls back to `KEYDECK_BASE_URL`). */
  readonly baseUrl?: string;
  /** `--read-only`: the profile is read-only for this run, whatever its config says. */
  readonly readOnly?: boolean;
  /** The directory the directory rules are looked up from (default `process.cwd()`). */
  readonly cwd?: string;
}

/**
 * Resolves the profile for a command from the flags, the environment and the config file.
 * `env` supplies `KEYDECK_PROFILE`, `KEYDECK_BASE_URL` and `KEYDECK_CONFIG_DIR` when the flags
 * are absent (so library callers get the same behaviour as the CLI).
 * The data dir (the top-up record, the usage history, delivery records, the sandbox's database)
 * is trusted as the config dir is, before any command or the full-screen app uses it.
 * @throws ConfigError when the config file is unreadable or invalid (naming file and field),
 *   the profile name is invalid, or the base URL is not an http(s) URL; `config_untrusted` or
 *   `data_untrusted` when the config dir or file, or the data dir, is writable by others (./trust.ts).
 */
export async function resolveProfile(overrides: ProfileOverrides = {}, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedProfile> {
  const configPath = configFilePath(env);
  const { config } = await readConfig(configPath);
  const dataProblem = checkTrustedDir(dataDir(env), 'data dir');
  if (dataProblem) throw new ConfigError('data_untrusted', `${dataProblem.sentence}.`, { path: dataProblem.path });
  return resolveFromConfig(config, configPath, overrides, env);
}

/**
 * The pure part of {@link resolveProfile}: the same rules applied to an already-read config.
 * It reads the directories from the working directory up for a `.keydeck` file (./profileChoice.ts)
 * when neither `--profile` nor `KEYDECK_PROFILE` chose the profile.
 * @throws ConfigError `invalid_profile_name`, `invalid_base_url`; `config_untrusted` and
 *   `no_such_profile` from a directory rule (./profileChoice.ts).
 */
export function resolveFromConfig(config: KeydeckConfig, configPath: string, overrides: ProfileOverrides = {}, env: NodeJS.ProcessEnv = process.env): ResolvedProfile {
  const { name, chosenBy } = chooseProfile(config, configPath, { profile: overrides.profile, source: overrides.profileSource, cwd: overrides.cwd }, env);
  const entry = config.profiles[name];
  const readOnly: ReadOnlyMark | undefined = overrides.readOnly === true ? { by: 'flag' } : entry?.readOnly === true ? { by: 'profile' } : undefined;
  const flagUrl = nonEmpty(overrides.baseUrl) ?? nonEmpty(env.KEYDECK_BASE_URL);
  const savedBaseUrl = entry?.baseUrl !== undefined ? normalizeBaseUrl(entry.baseUrl) : undefined;
  const baseUrl = flagUrl !== undefined ? normalizeBaseUrl(flagUrl) : savedBaseUrl;
  return {
    name,
    ...(savedBaseUrl !== undefined && { savedBaseUrl }),
    ...(baseUrl !== undefined && { baseUrl, baseUrlSource: flagUrl !== undefined ? ('flag' as const) : ('profile' as const) }),
    pollIntervalSeconds: entry?.pollIntervalSeconds ?? DEFAULT_POLL_INTERVAL_SECONDS,
    ...(entry?.alertBelowUsd !== undefined && { alertBelowUsd: entry.alertBelowUsd }),
    confirmAboveUsd: entry?.confirmAboveUsd ?? DEFAULT_CONFIRM_ABOVE_USD,
    ...(entry?.topUpMethods !== undefined && { topUpMethods: entry.topUpMethods }),
    runawayFactor: entry?.runawayFactor ?? DEFAULT_RUNAWAY_FACTOR,
    runawayFloorUsdPerHour: entry?.runawayFloorUsdPerHour ?? DEFAULT_RUNAWAY_FLOOR_USD_PER_HOUR,
    ...(entry?.chainRpc !== undefined && { chainRpc: entry.chainRpc.trim() }),
    chainChecks: entry?.chainChecks ?? true,
    ...(entry?.autoTopUp !== undefined && { autoTopUp: entry.autoTopUp }),
    ...(entry?.guardrails !== undefined && { guardrails: entry.guardrails }),
    configPath,
    inConfig: entry !== undefined,
    chosenBy,
    ...(readOnly !== undefined && { readOnly }),
    protected: entry?.protected === true,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}
