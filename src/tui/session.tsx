/**
 * The app's half of the TUI's start (src/tui/run.tsx draws the first frame, then loads this): the
 * services the app runs on (API clients per service and key, the credential store, the balance
 * history database, notifications, the clipboard) and the app itself, inside what runs around it
 * (./accounts/AccountsRoot.tsx: every profile's watcher, and the profile the app shows, each
 * profile's services built when it is first shown). Everything heavy the first
 * frame does not need lives behind this module: got and zod's schemas (the client), node:sqlite
 * (the history), the panes. Loaded once per run, right after the first frame.
 */
import type { ReactElement } from 'react';
import { hostname } from 'node:os';
import { dataDir } from '../config/paths.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { KeyHistory } from '../billing/keyHistory.js';
import { UsageBudget } from '../billing/usageBudget.js';
import { KeydeckClient, type ClientNotice } from '../api/client.js';
import { cardMethodNames, clientTimeoutFromEnv, pauseAutoTopUpPolicy, readAutoTopUpPolicy, readOnlyReason, settleBounds, updateConfig, type ResolvedProfile } from '../config/index.js';
import { createCredentialStore } from '../credentials/index.js';
import { createTerminalNotifier } from '../terminal/notify.js';
import { AccountsRoot } from './accounts/AccountsRoot.js';
import { isLocalSandbox } from '../api/sandboxProbe.js';
import { clearCopied, copyText } from './clipboard.js';
import type { Lifecycle } from './lifecycle.js';
import type { TuiGlobals } from './globals.js';
import type { AppServices } from './services.js';
import type { ChainSettings } from '../billing/chainSettings.js';

/** What the start path (run.tsx) hands over: the settings it resolved and the exit site it made. */
export interface SessionStart {
  readonly globals: TuiGlobals;
  readonly profile: ResolvedProfile;
  /** The embedded sandbox (`--sandbox`): its URL and the demo user's session token. */
  readonly sandbox?: { readonly url: string; readonly token: string } | undefined;
  /** SANDBOX or LIVE in the header: `sandbox` with --sandbox, or when a keydeck sandbox answers at the base URL (run.tsx). */
  readonly target: 'sandbox' | 'live';
  /** --allow-insecure-http or KEYDECK_ALLOW_INSECURE_HTTP=1, already checked against the profile's URL. */
  readonly allowInsecureHttp: boolean;
  readonly lifecycle: Lifecycle;
  /** Clears Ink's last frame so that the next one is drawn whole (AppServices `redraw`). */
  readonly redraw: () => void;
  /** Sentences of the start (a sandbox joined in another dialect), said once on the status line. */
  readonly notices?: readonly string[];
}

/**
 * Builds the app's services for one run and returns the app to render (`<AccountsRoot>` around `<App services>`).
 * Registers its own clean-ups (clients closed, history database closed) with `lifecycle`.
 */
export function sessionApp({ globals, profile, sandbox, target, allowInsecureHttp, lifecycle, redraw, notices = [] }: SessionStart): ReactElement {
  /** One client (one keep-alive connection) per service and token: setup's verify and create, and the session after it, share it. */
  const clients = new Map<string, KeydeckClient>();
  /** KEYDECK_TIMEOUT_MS: the deadline of each call (ms, retries included); unset = the client's 10 s. */
  const clientTimeout = clientTimeoutFromEnv();
  lifecycle.onCleanup(() => {
    for (const c of clients.values()) c.close();
  });
  /** Notices of the clients (key values hidden), for the status line; kept until the shell listens. */
  const noticeListeners = new Set<(message: string) => void>();
  const unheardNotices: string[] = [...notices];
  const start = profile;
  const onNotice = (notice: ClientNotice) => {
    if (noticeListeners.size === 0) unheardNotices.push(notice.message);
    for (const listener of noticeListeners) listener(notice.message);
  };

  /** The history database, opened on first use (the Billing pane's mount), closed at exit. */
  let historyStore: BalanceHistoryStore | undefined;
  lifecycle.onCleanup(() => historyStore?.close());

  /** The app's services for `profile`: the one the run started with (its flags applied), or one opened on the Accounts pane. */
  const servicesFor = (profile: ResolvedProfile, target: 'sandbox' | 'live'): AppServices => {
    const isStart = profile === start;
    const readOnly = readOnlyReason(profile);
    const notifier = createTerminalNotifier(globals, {
      profile: profile.name,
      origin: profile.baseUrl !== undefined ? originOf(profile.baseUrl) : '',
      onProblem: (sentence) => lifecycle.onCleanup(() => void process.stderr.write(`keydeck: ${sentence}\n`)),
      // The next steps a notification names: the TUI's pane where it has one, else the command.
      steps: { signIn: 'keydeck auth login', autoTopUpStatus: 'the Billing pane', autoTopUpResume: 'keydeck autotopup resume', billingStatus: 's on the Billing pane' },
    });

    const chainSettingsByUrl = new Map<string, Promise<ChainSettings>>();
    return {
      profile: {
        name: profile.name,
        ...(profile.baseUrl !== undefined && { baseUrl: profile.baseUrl }),
        ...(profile.savedBaseUrl !== undefined && { savedBaseUrl: profile.savedBaseUrl }),
        pollIntervalSeconds: (isStart ? globals.intervalSeconds : undefined) ?? profile.pollIntervalSeconds,
        ...(((isStart ? globals.alertBelowUsd : undefined) ?? profile.alertBelowUsd) !== undefined && { alertBelowUsd: (isStart ? globals.alertBelowUsd : undefined) ?? profile.alertBelowUsd }),
        confirmAboveUsd: profile.confirmAboveUsd,
        runawayFactor: profile.runawayFactor,
        runawayFloorUsdPerHour: profile.runawayFloorUsdPerHour,
        ...(readOnly !== undefined && { readOnly }),
        ...(profile.protected && { protected: true }),
        ...(profile.guardrails !== undefined && { guardrails: profile.guardrails.rules }),
      },
      target,
      // Once per service for the session: the USDC step's watch and each verify share the answer
      // (a local service is asked GET /sandbox/chain once, not at every step).
      chainSettings: (baseUrl) => {
        let settings = chainSettingsByUrl.get(baseUrl);
        if (!settings) {
          settings = import('../billing/chainSettings.js').then(({ resolveChainSettings }) => resolveChainSettings({ noChain: globals.noChain, chainRpc: globals.chainRpc, profile, baseUrl }));
          chainSettingsByUrl.set(baseUrl, settings);
        }
        return settings;
      },
      store: createCredentialStore(),
      createClient: (baseUrl, token, credential) => {
        const key = `${profile.name}\0${baseUrl}\0${token}\0${credential?.label ?? ''}`;
        let client = clients.get(key);
        if (!client) {
          client = new KeydeckClient({
            // Node's own client (src/api/nodeHttp.ts): got allocates several times more per request,
            // garbage that a poll every few seconds promotes into V8's old space (docs/performance.md,
            // "The TUI's memory (round 6)").
            transport: 'node:http',
            ...clientTimeout,
            ...(profile.topUpMethods !== undefined && { methodNames: profile.topUpMethods }),
            onNotice,
            baseUrl,
            token,
            allowInsecureHttp,
            ...(credential && { credential }),
            // A read-only profile's clients refuse every change before sending: the last line behind each action's own check.
            ...(readOnly !== undefined && { readOnly }),
          });
          clients.set(key, client);
        }
        return client;
      },
      ...(!(sandbox && isStart) && {
        saveBaseUrl: async (baseUrl: string) => {
          await updateConfig(profile.configPath, (config) => {
            config.profiles[profile.name] = { ...config.profiles[profile.name], baseUrl };
          });
        },
      }),
      ...(sandbox && isStart && { demoToken: sandbox.token }),
      insecureStorage: globals.insecureStorage === true,
      allowInsecureHttp,
      hostname: hostname(),
      dataDir: dataDir(),
      openHistory: (baseUrl) => {
        historyStore ??= BalanceHistoryStore.open();
        return historyStore.series(profile.name, originOf(baseUrl));
      },
      openUsage: (baseUrl) => {
        historyStore ??= BalanceHistoryStore.open();
        return { budget: new UsageBudget(historyStore.database), keyHistory: new KeyHistory(historyStore.database, historyStore.series(profile.name, originOf(baseUrl)).id) };
      },
      copy: (text) => copyText(text),
      clearCopied: (secret, via) => clearCopied(secret, via),
      // keydeck's own sequences (notifications) go to the real stdout, past the guard on Ink's output.
      notify: (event) => notifier.notify(event),
      redraw,
      exit: (code, message) => void lifecycle.exit(code, message),
      waitUntil: lifecycle.waitUntil,
      // --auto-topup: the policy read afresh at each balance read (another shell may set, pause or remove it).
      ...(globals.autoTopup &&
        isStart && {
          autoTopUp: {
            readPolicy: () => readAutoTopUpPolicy(profile.configPath, profile.name),
            pausePolicy: (pause) => pauseAutoTopUpPolicy(profile.configPath, profile.name, pause),
            cardMethodNames: cardMethodNames(profile.topUpMethods),
            settle: settleBounds(process.env),
          },
        }),
      registerSecret: (value) => lifecycle.addSecret(value),
      onClientNotice: (listener) => {
        noticeListeners.add(listener);
        for (const message of unheardNotices.splice(0)) listener(message);
        return () => noticeListeners.delete(listener);
      },
    };
  };

  /** Every profile of the config file, each with its own watcher (the Accounts pane); read after the first frame. */
  const watchAll = async () => {
    const [{ readConfig }, { allProfiles, watchProfiles }] = await Promise.all([import('../config/config.js'), import('../watcher/profileWatchers.js')]);
    const { config } = await readConfig(start.configPath);
    return watchProfiles({
      profiles: allProfiles(config, start.configPath, start),
      store: accountsStore,
      envProfile: start.name,
      ...(sandbox && { fallbackToken: (name: string) => (name === start.name ? sandbox.token : undefined) }),
      history: () => {
        try {
          return (historyStore ??= BalanceHistoryStore.open());
        } catch {
          // no balance history for the other accounts: their rows show no burn rate, the app's own store says why
          return undefined;
        }
      },
      ...clientTimeout,
      allowInsecureHttp,
      onNotice,
      // The other profiles are polled from the start: through Node's own client, as the app's own.
      transport: 'node:http',
    });
  };
  const accountsStore = createCredentialStore();
  const targets = new Map<ResolvedProfile, 'sandbox' | 'live'>([[start, target]]);
  const servicesOf = (p: ResolvedProfile) => servicesFor(p, targets.get(p) ?? 'live');
  return (
    <AccountsRoot
      start={start}
      servicesFor={servicesOf}
      targetOf={async (p) => {
        if (!targets.has(p)) targets.set(p, p.baseUrl !== undefined && (await isLocalSandbox(p.baseUrl)) ? 'sandbox' : 'live');
      }}
      watchAll={watchAll}
      waitUntil={lifecycle.waitUntil}
    />
  );
}
