/**
 * `keydeck` (and `keydeck --sandbox`): resolves the profile, starts the embedded sandbox when
 * asked (imported dynamically: the TUI never loads Fastify otherwise), builds the services and
 * renders the full-screen app with Ink, through one exit site (lifecycle.ts) that every way
 * out (q, ctrl-c, SIGTERM, SIGHUP, SIGINT, an uncaught error) goes through.
 */
import { keepYoungGenerationSmall } from '../terminal/heap.js';
import { hostname } from 'node:os';
import { dataDir, sandboxDbPath } from '../config/paths.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { KeyHistory } from '../billing/keyHistory.js';
import { UsageBudget } from '../billing/usageBudget.js';
import { render } from 'ink';
import { insecureHttpFromEnv, insecureHttpProblem } from '../api/baseUrl.js';
import { KeydeckClient, type ClientNotice } from '../api/client.js';
import type { Dialect } from '../sandbox/dialect.js';
import { clientTimeoutFromEnv, ConfigError, resolveProfile, updateConfig } from '../config/index.js';
import { createCredentialStore } from '../credentials/index.js';
import { guardedStdout } from '../terminal/outputGuard.js';
import { createNotifier } from '../terminal/notify.js';
import { App } from './App.js';
import { copyText } from './clipboard.js';
import { createLifecycle } from './lifecycle.js';
import { ERASE_SCREEN, repaintAfterResize } from './repaint.js';
import type { AppServices } from './services.js';
import type { ChainSettings } from '../billing/chainSettings.js';

/** The global options the TUI reads (commander's `program.opts()`). */
export interface TuiGlobals {
  /** --sandbox: start the embedded sandbox and use it. */
  readonly sandbox?: boolean;
  /** --base-url / KEYDECK_BASE_URL. */
  readonly baseUrl?: string;
  /** --profile / KEYDECK_PROFILE. */
  readonly profile?: string;
  /** --insecure-storage: setup pre-selects the plaintext file when the keychain is unavailable. */
  readonly insecureStorage?: boolean;
  /** --allow-insecure-http (or KEYDECK_ALLOW_INSECURE_HTTP=1): a key may go over plain http off loopback. */
  readonly allowInsecureHttp?: boolean;
  /** --interval: seconds between balance reads (≥ 2, already validated); overrides the profile's. */
  readonly intervalSeconds?: number;
  /** --alert-below: the low-balance threshold in USD (already validated); overrides the profile's. */
  readonly alertBelowUsd?: number;
  /** --dialect with --sandbox: the shape of the embedded sandbox's answers (default `seed`). */
  readonly sandboxDialect?: Dialect;
  /** --chain anvil with --sandbox: its USDC transfers run on a real local chain (`rpcUrl`: --chain-rpc, another node). */
  readonly sandboxChain?: { readonly rpcUrl?: string };
  /** --on-low CMD: run once per crossing below the threshold, figures in the environment (src/terminal/notify.ts). */
  readonly onLow?: string;
  /** --desktop-notifications: also notify on the desktop (notify-send, osascript). */
  readonly desktopNotifications?: boolean;
  /** --on-anomaly CMD: run once per runaway key or fast-falling balance, figures in the environment (issue 22). */
  readonly onAnomaly?: string;
  /** --no-chain: never read the chain (issue 25). */
  readonly noChain?: boolean;
  /** --chain-rpc URL: the chain's JSON-RPC endpoint (checked when the USDC step first reads it). */
  readonly chainRpc?: string;
}

/** Ink render options of the app (exported for the benchmarks). */
export const RENDER_OPTIONS = {
  alternateScreen: true,
  incrementalRendering: true,
  maxFps: 60,
  exitOnCtrlC: false,
  patchConsole: false,
} as const;

/**
 * Starts the embedded sandbox (`--sandbox`) on the loopback port it had the last time it ran on
 * this database (`<db>.port`, a plain number beside it), or on a free port when that one is taken
 * or unknown. A stored key belongs to its service origin, port included (src/credentials/origin.ts):
 * a stable port keeps the key stored at setup, the balance history and the top-up record the same
 * service's across restarts, as they were. `dialect` (`--dialect`) shapes its answers (src/sandbox/dialect.ts).
 * @throws when the database cannot be opened or no port can be bound
 */
async function startEmbeddedSandbox(
  dbPath: string,
  dialect?: Dialect,
  chain?: { readonly rpcUrl?: string },
): Promise<{ url: string; token: string; close(): Promise<void> }> {
  const { startSandbox } = await import('../sandbox/index.js');
  const { readFile, writeFile } = await import('node:fs/promises');
  const portFile = `${dbPath}.port`;
  let last: number | undefined;
  try {
    const text = (await readFile(portFile, { encoding: 'utf8', flag: 'r' })).trim();
    if (/^\d{4,5}$/.test(text) && Number(text) >= 1024 && Number(text) <= 65535) last = Number(text);
  } catch {
    // never ran on this database, or unreadable: a free port
  }
  let running: Awaited<ReturnType<typeof startSandbox>> | undefined;
  if (last !== undefined) {
    try {
      running = await startSandbox({ dbPath, host: '127.0.0.1', port: last, ...(dialect && { dialect }), ...(chain && { chain }) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' && (error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
    }
  }
  running ??= await startSandbox({ dbPath, host: '127.0.0.1', port: 0, ...(dialect && { dialect }), ...(chain && { chain }) });
  const port = new URL(running.url).port;
  if (String(last) !== port) await writeFile(portFile, `${port}\n`, { mode: 0o600 }).catch(() => undefined);
  return running;
}

/**
 * Runs the TUI until the user quits. Resolves once the terminal is restored; the exit code is
 * in `process.exitCode` (0 quit, 1 error, 2 bad profile/config, 129/130/143 signals).
 */
export async function runTui(globals: TuiGlobals): Promise<void> {
  keepYoungGenerationSmall();
  let sandbox: { url: string; token: string; close(): Promise<void> } | undefined;
  if (globals.sandbox) {
    const dbPath = sandboxDbPath();
    try {
      sandbox = await startEmbeddedSandbox(dbPath, globals.sandboxDialect, globals.sandboxChain);
    } catch (error) {
      process.stderr.write(`keydeck: could not start the sandbox (${dbPath}): ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
      return;
    }
  }

  let profile;
  try {
    profile = await resolveProfile({
      ...((globals.profile ?? (sandbox ? 'sandbox' : undefined)) !== undefined && { profile: globals.profile ?? 'sandbox' }),
      ...((sandbox?.url ?? globals.baseUrl) !== undefined && { baseUrl: sandbox?.url ?? globals.baseUrl }),
    });
  } catch (error) {
    await sandbox?.close();
    process.stderr.write(`keydeck: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
    return;
  }

  // No key over plain http to another machine without the opt-in: said before anything is drawn.
  const allowInsecureHttp = globals.allowInsecureHttp === true || insecureHttpFromEnv();
  const insecure = profile.baseUrl !== undefined ? insecureHttpProblem(profile.baseUrl, allowInsecureHttp) : undefined;
  if (insecure !== undefined) {
    await sandbox?.close();
    process.stderr.write(`keydeck: ${insecure}.\n`);
    process.exitCode = 2;
    return;
  }

  let instance: ReturnType<typeof render> | undefined;
  const lifecycle = createLifecycle({
    unmount: () => instance?.unmount(),
    waitUntilExit: () => instance?.waitUntilExit() ?? Promise.resolve(),
  });
  if (sandbox) {
    const running = sandbox;
    lifecycle.addSecret(running.token);
    lifecycle.onCleanup(() => running.close());
  }

  /** One client (one keep-alive connection) per service and token: setup's verify and create, and the session after it, share it. */
  const clients = new Map<string, KeydeckClient>();
  /** KEYDECK_TIMEOUT_MS: the deadline of each call (ms, retries included); unset = the client's 10 s. */
  const clientTimeout = clientTimeoutFromEnv();
  lifecycle.onCleanup(() => {
    for (const c of clients.values()) c.close();
  });
  /** Notices of the clients (key values hidden), for the status line; kept until the shell listens. */
  const noticeListeners = new Set<(message: string) => void>();
  const unheardNotices: string[] = [];
  const onNotice = (notice: ClientNotice) => {
    if (noticeListeners.size === 0) unheardNotices.push(notice.message);
    for (const listener of noticeListeners) listener(notice.message);
  };

  /** The history database, opened on first use (the Billing pane's mount), closed at exit. */
  let historyStore: BalanceHistoryStore | undefined;
  lifecycle.onCleanup(() => historyStore?.close());

  const notifier = createNotifier({
    write: (sequence) => process.stdout.write(sequence),
    desktop: globals.desktopNotifications === true,
    ...(globals.onLow !== undefined && { onLow: globals.onLow }),
    ...(globals.onAnomaly !== undefined && { onAnomaly: globals.onAnomaly }),
    profile: profile.name,
    origin: profile.baseUrl !== undefined ? originOf(profile.baseUrl) : '',
    onProblem: (sentence) => lifecycle.onCleanup(() => void process.stderr.write(`keydeck: ${sentence}\n`)),
  });

  const resolvedName = profile.name;
  const configPath = profile.configPath;
  const chainSettingsByUrl = new Map<string, Promise<ChainSettings>>();
  const services: AppServices = {
    profile: {
      name: profile.name,
      ...(profile.baseUrl !== undefined && { baseUrl: profile.baseUrl }),
      ...(profile.savedBaseUrl !== undefined && { savedBaseUrl: profile.savedBaseUrl }),
      pollIntervalSeconds: globals.intervalSeconds ?? profile.pollIntervalSeconds,
      ...((globals.alertBelowUsd ?? profile.alertBelowUsd) !== undefined && { alertBelowUsd: globals.alertBelowUsd ?? profile.alertBelowUsd }),
      confirmAboveUsd: profile.confirmAboveUsd,
      runawayFactor: profile.runawayFactor,
      runawayFloorUsdPerHour: profile.runawayFloorUsdPerHour,
    },
    target: sandbox ? 'sandbox' : 'live',
    // Once per service for the session: the USDC step's watch and each verify share the answer
    // (a local service is asked GET /sandbox/chain once, not at every step).
    chainSettings: (baseUrl) => {
      let settings = chainSettingsByUrl.get(baseUrl);
      if (!settings) {
        settings = import('../billing/chainSettings.js').then(({ resolveChainSettings }) =>
          resolveChainSettings({ noChain: globals.noChain, chainRpc: globals.chainRpc, profile, baseUrl }),
        );
        chainSettingsByUrl.set(baseUrl, settings);
      }
      return settings;
    },
    store: createCredentialStore(),
    createClient: (baseUrl, token, credential) => {
      const key = `${baseUrl}\0${token}\0${credential?.label ?? ''}`;
      let client = clients.get(key);
      if (!client) {
        client = new KeydeckClient({
          ...clientTimeout,
          ...(profile.topUpMethods !== undefined && { methodNames: profile.topUpMethods }),
          onNotice,
          baseUrl,
          token,
          allowInsecureHttp,
          ...(credential && { credential }),
        });
        clients.set(key, client);
      }
      return client;
    },
    ...(!sandbox && {
      saveBaseUrl: async (baseUrl: string) => {
        await updateConfig(configPath, (config) => {
          config.profiles[resolvedName] = { ...config.profiles[resolvedName], baseUrl };
        });
      },
    }),
    ...(sandbox && { demoToken: sandbox.token }),
    insecureStorage: globals.insecureStorage === true,
    allowInsecureHttp,
    hostname: hostname(),
    dataDir: dataDir(),
    openHistory: (baseUrl) => {
      historyStore ??= BalanceHistoryStore.open();
      return historyStore.series(resolvedName, originOf(baseUrl));
    },
    openUsage: (baseUrl) => {
      historyStore ??= BalanceHistoryStore.open();
      return { budget: new UsageBudget(historyStore.database), keyHistory: new KeyHistory(historyStore.database, historyStore.series(resolvedName, originOf(baseUrl)).id) };
    },
    copy: (text) => copyText(text),
    // keydeck's own sequences (notifications) go to the real stdout, past the guard on Ink's output.
    notify: (event) => notifier.notify(event),
    redraw: () => instance?.clear(),
    exit: (code, message) => void lifecycle.exit(code, message),
    registerSecret: (value) => lifecycle.addSecret(value),
    onClientNotice: (listener) => {
      noticeListeners.add(listener);
      for (const message of unheardNotices.splice(0)) listener(message);
      return () => noticeListeners.delete(listener);
    },
  };

  const onSignal = (code: number) => () => void lifecycle.exit(code);
  const signals: Array<[NodeJS.Signals, () => void]> = [
    ['SIGTERM', onSignal(143)],
    ['SIGHUP', onSignal(129)],
    ['SIGINT', onSignal(130)],
  ];
  const onCrash = (error: unknown) => {
    void lifecycle.exit(1, `keydeck: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  };
  for (const [signal, handler] of signals) process.on(signal, handler);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  // Ink's stdout, with a last net under it: only the sequences Ink writes get through (src/terminal/outputGuard.ts).
  instance = render(<App services={services} />, { ...RENDER_OPTIONS, stdout: guardedStdout(process.stdout) });
  // After a resize storm, one full repaint puts right what racing frames left (repaint.ts).
  const stopRepainting = repaintAfterResize({
    stdout: process.stdout,
    repaint: () => {
      if (!instance || lifecycle.exiting) return;
      instance.clear();
      process.stdout.write(ERASE_SCREEN);
      instance.rerender(<App services={services} />);
    },
  });
  lifecycle.onCleanup(stopRepainting);
  instance.waitUntilExit().then(
    () => void lifecycle.exit(process.exitCode === undefined ? 0 : Number(process.exitCode)),
    (error: unknown) => onCrash(error),
  );

  const code = await lifecycle.done;
  for (const [signal, handler] of signals) process.off(signal, handler);
  process.off('uncaughtException', onCrash);
  process.off('unhandledRejection', onCrash);
  // Anything still open (a socket in a half-closed state, stdin on some platforms) must not
  // keep keydeck running after the user quit.
  setTimeout(() => process.exit(code), 1000).unref();
}
