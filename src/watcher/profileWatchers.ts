/**
 * Every profile's account at once (the TUI's Accounts pane, `keydeck monitor --all-profiles`): one
 * account watcher (./accountWatcher.ts) per profile of the config file, each on its own schedule
 * (the profile's `pollIntervalSeconds`), its own client and connection, its own balance history
 * series and its own usage tracker (the usage read budget is per credential: usage reads stay per
 * account). Nothing waits on another: a stopped service holds its own watcher only, which says so
 * at its first failed poll (the client's deadline, retries included).
 *
 * The credential of each is looked up in keydeck's credential store (src/credentials/: keychain,
 * then the 0600 file) under the profile's service origin, at its first poll and again after a
 * refusal; `KEYDECK_TOKEN` only for the profile the process runs with (`envProfile`), since it
 * names no profile. A profile without a stored credential is `no_credential` (asked again at most
 * every {@link MISSING_CREDENTIAL_RECHECK_MS}, never an error per poll); one without a service
 * address is `no_base_url`.
 *
 * These watchers only read: no key list, no billing status, no auto top-up (the account the TUI
 * shows keeps its own watcher for that).
 */
import { KeydeckClient, type ClientNotice } from '../api/client.js';
import type { TransportName } from '../api/http.js';
import { HistoryRecorder } from '../billing/historyRecorder.js';
import type { BalanceHistoryStore } from '../billing/historyStore.js';
import { KeyHistory } from '../billing/keyHistory.js';
import { credentialIdOf, UsageBudget } from '../billing/usageBudget.js';
import { UsageTracker } from '../billing/usageTracker.js';
import type { KeydeckConfig } from '../config/config.js';
import { resolveFromConfig, type ResolvedProfile } from '../config/profile.js';
import { listProfiles, readOnlyReason } from '../config/profileMarks.js';
import { originOf, originTarget, type CredentialStore } from '../credentials/index.js';
import { AccountWatcher } from './accountWatcher.js';
import { pollIntervalMs } from './schedule.js';
import type { Unavailable, WatchConnection } from './types.js';

/** How long a profile found without a credential is not asked about again, ms (the keychain is a child process). */
export const MISSING_CREDENTIAL_RECHECK_MS = 60_000;

/** One profile and its watcher. */
export interface ProfileWatch {
  readonly profile: ResolvedProfile;
  /** The service's origin (`https://host[:port]`), undefined without a base URL. */
  readonly origin?: string;
  readonly watcher: AccountWatcher;
}

/** Options of {@link watchProfiles}. */
export interface ProfileWatchersOptions {
  /** The profiles, resolved from the config file (src/config/profile.ts `resolveFromConfig`). */
  readonly profiles: readonly ResolvedProfile[];
  readonly store: CredentialStore;
  /** The profile `KEYDECK_TOKEN` may serve (the one the process runs with); others read only what is stored. */
  readonly envProfile?: string | undefined;
  /** A credential the face holds itself for a profile (the embedded sandbox's demo token), used when nothing is stored. */
  readonly fallbackToken?: (profile: string) => string | undefined;
  /** The history database (balance history and usage budget); absent: memory only, no usage read. */
  readonly history?: () => BalanceHistoryStore | undefined;
  /** The clients' deadline of each call, ms (default the client's, 10 s). */
  readonly timeoutMs?: number | undefined;
  readonly allowInsecureHttp?: boolean;
  /** Notices of the clients (key values hidden). */
  readonly onNotice?: (notice: ClientNotice) => void;
  /** What the clients send through (src/api/client.ts `transport`). Default `got`; the TUI's Accounts pane: `node:http`. */
  readonly transport?: TransportName;
  /** Clock (epoch ms). Default Date.now. */
  readonly now?: () => number;
}

/**
 * Every profile of `config` (src/config/profileMarks.ts `listProfiles`, in name order), each
 * resolved as `--profile NAME` would resolve it from the file alone (no `--base-url`, no
 * `KEYDECK_BASE_URL`: those are the running profile's), then `first` (the profile the process
 * runs with, as resolved with its flags) in place of its own entry, or added when the file has
 * none (`--sandbox`'s). A profile whose entry cannot be resolved is left out.
 */
export function allProfiles(config: KeydeckConfig, configPath: string, first?: ResolvedProfile): ResolvedProfile[] {
  const env = { ...process.env, KEYDECK_BASE_URL: undefined, KEYDECK_PROFILE: undefined };
  const resolved = listProfiles(config).flatMap((listing): ResolvedProfile[] => {
    if (listing.name === first?.name) return [first];
    try {
      return [resolveFromConfig(config, configPath, { profile: listing.name }, env)];
    } catch {
      // a profile that does not resolve is left out of the view; `keydeck profile list` names it
      return [];
    }
  });
  return first && !resolved.includes(first) ? [first, ...resolved] : resolved;
}

/** The origin of `baseUrl`, or undefined when it is none. */
function originOrUndefined(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined;
  try {
    return originOf(baseUrl);
  } catch {
    // not a URL: the profile has no origin, its row says no base URL
    return undefined;
  }
}

/**
 * One watcher per profile of `options.profiles` (not started: `start()` each, `stop()` each when
 * done). Never throws for a profile: what cannot be used is the watcher's `unavailable`.
 */
export function watchProfiles(options: ProfileWatchersOptions): ProfileWatch[] {
  const now = options.now ?? Date.now;
  return options.profiles.map((profile) => {
    const origin = originOrUndefined(profile.baseUrl);
    let missingSince: { at: number; said: Unavailable } | undefined;
    const connect = async (): Promise<WatchConnection | Unavailable> => {
      const baseUrl = profile.baseUrl;
      if (baseUrl === undefined || origin === undefined) return { unavailable: 'no_base_url', detail: 'no service address' };
      if (missingSince && now() - missingSince.at < MISSING_CREDENTIAL_RECHECK_MS) return missingSince.said;
      let token: string | undefined;
      try {
        const stored = await options.store.get(profile.name, { ...originTarget(baseUrl, profile.savedBaseUrl), ignoreEnv: profile.name !== options.envProfile });
        token = stored?.token ?? options.fallbackToken?.(profile.name);
      } catch (error) {
        return { unavailable: 'credential_error', detail: error instanceof Error ? error.message : String(error) };
      }
      if (token === undefined) {
        missingSince = { at: now(), said: { unavailable: 'no_credential', detail: 'no stored credential' } };
        return missingSince.said;
      }
      missingSince = undefined;
      let client: KeydeckClient;
      try {
        const readOnly = readOnlyReason(profile);
        client = new KeydeckClient({
          baseUrl,
          token,
          transport: options.transport ?? 'got',
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
          ...(options.allowInsecureHttp && { allowInsecureHttp: true }),
          ...(options.onNotice && { onNotice: options.onNotice }),
          ...(readOnly !== undefined && { readOnly }),
        });
      } catch (error) {
        return { unavailable: 'client_error', detail: error instanceof Error ? error.message : String(error) };
      }
      const store = options.history?.();
      const usage = store
        ? () => {
            const series = store.series(profile.name, origin);
            return new UsageTracker({
              client,
              budget: new UsageBudget(store.database),
              credential: credentialIdOf(origin, token),
              origin,
              keyHistory: new KeyHistory(store.database, series.id),
              settings: { factor: profile.runawayFactor, floorUsdPerHour: profile.runawayFloorUsdPerHour },
            });
          }
        : undefined;
      return { client, ...(usage && { usage }), close: () => client.close() };
    };
    const watcher = new AccountWatcher({
      connect,
      intervalMs: pollIntervalMs(profile.pollIntervalSeconds),
      history: (onError) => {
        const store = origin !== undefined ? options.history?.() : undefined;
        return new HistoryRecorder({ series: store?.series(profile.name, origin!), now: now(), onError });
      },
      alertBelowUsd: profile.alertBelowUsd,
      runaway: { factor: profile.runawayFactor, floorUsdPerHour: profile.runawayFloorUsdPerHour },
      now,
    });
    return { profile, ...(origin !== undefined && { origin }), watcher };
  });
}
