/**
 * `keydeck monitor --all-profiles`: every profile's account in one table (the TUI's Accounts pane
 * without the rest of the app), for a tmux pane: one account watcher per profile of the config
 * file (src/watcher/profileWatchers.ts), each on its own schedule (the profile's
 * `pollIntervalSeconds`, or `--interval` for all), its own client and usage budget, none waiting
 * on another; a profile whose service is down shows "down" and why, one without a stored
 * credential "no key". `q` or ctrl-c leaves. The live view is an Ink component of the TUI layer,
 * handed in by src/cli/monitor.ts as `renderAll` (commands never import the TUI).
 *
 * It only reads: `--auto-topup`, `--metrics` and the notification flags belong to one account
 * (`keydeck monitor`) or to the exporter (`keydeck exporter --all-profiles`), and are refused here.
 *
 * Exit codes: 0 after `q`; 2 bad usage (a flag refused, no terminal); 3 the config file refused.
 */
import { parseWatchFlags } from '../billing/settings.js';
import { BalanceHistoryStore } from '../billing/historyStore.js';
import { readConfig } from '../config/config.js';
import { resolveProfile } from '../config/profile.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { createCredentialStore } from '../credentials/index.js';
import { allProfiles, watchProfiles, type ProfileWatch } from '../watcher/profileWatchers.js';
import { ExitCode, fail, warn, type GlobalOptions } from './output.js';
import type { MonitorFlags } from './monitor.js';
import { billingWords } from './wordingBilling.js';

/** The live view of every profile: renders until the user leaves, resolves with the exit code. */
export type AccountsRenderer = (input: {
  /** One started watcher per profile; stopped by the command once the view resolves. */
  readonly watches: readonly ProfileWatch[];
  /** The profile the flags chose (marked in the table). */
  readonly current: string;
}) => Promise<number>;

/** Dependencies of {@link monitorAllProfiles}. */
export interface MonitorAllDeps {
  readonly renderAll: AccountsRenderer;
  /** Default: stdin and stdout are terminals. */
  readonly isTerminal?: boolean;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Runs `keydeck monitor --all-profiles`. Flags are checked before anything is read or sent.
 * @throws CommandFailure exit 2 for a refused flag or no terminal; ConfigError when the config file cannot be read
 */
export async function monitorAllProfiles(globals: GlobalOptions, flags: MonitorFlags, deps: MonitorAllDeps): Promise<number> {
  const parsed = parseWatchFlags(flags);
  if (!parsed.ok) fail(ExitCode.usage, parsed.reason, 'usage');
  const single = (
    [
      ['--auto-topup', flags.autoTopup],
      ['--metrics', flags.metrics],
      ['--on-low', flags.onLow],
      ['--on-anomaly', flags.onAnomaly],
      ['--on-auto-topup', flags.onAutoTopup],
      ['--desktop-notifications', flags.desktopNotifications],
    ] as const
  ).find(([, value]) => value !== undefined && value !== false);
  if (single) fail(ExitCode.usage, billingWords.usageAllProfilesOnly, { flag: single[0] });
  const env = deps.env ?? process.env;
  const terminal = deps.isTerminal ?? Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (!terminal || env.TERM === 'dumb') fail(ExitCode.usage, billingWords.needsTerminalMonitorAllProfiles);
  const start = await resolveProfile({ profile: globals.profile, profileSource: globals.profileSource, baseUrl: globals.baseUrl, readOnly: globals.readOnly }, env);
  const { config } = await readConfig(start.configPath);
  const profiles = allProfiles(config, start.configPath, start).map((p) => ({
    ...p,
    ...(parsed.value.intervalSeconds !== undefined && { pollIntervalSeconds: parsed.value.intervalSeconds }),
    ...(parsed.value.alertBelowUsd !== undefined && { alertBelowUsd: parsed.value.alertBelowUsd }),
  }));
  let store: BalanceHistoryStore | undefined;
  let storeFailed = false;
  const watches = watchProfiles({
    profiles,
    store: createCredentialStore({ env }),
    envProfile: start.name,
    ...(globals.sandboxToken !== undefined && { fallbackToken: (name: string) => (name === start.name ? globals.sandboxToken : undefined) }),
    history: () => {
      if (store || storeFailed) return store;
      try {
        return (store = BalanceHistoryStore.open({ env }));
      } catch (error) {
        storeFailed = true;
        warn(`the balance history is kept in memory only: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    },
    ...clientTimeoutFromEnv(env),
    allowInsecureHttp: globals.allowInsecureHttp === true,
  });
  for (const w of watches) w.watcher.start();
  try {
    return await deps.renderAll({ watches, current: start.name });
  } finally {
    await Promise.all(watches.map((w) => w.watcher.stop()));
    store?.close();
  }
}
