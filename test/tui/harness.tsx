/**
 * Test harness of the TUI suites: a real sandbox on loopback (in-process, per suite), fresh
 * users (`POST /sandbox/users`, zero balance) funded through the USDC walk-through when a test
 * needs money, services around the real API client and credential store (no keychain: a
 * temp KEYDECK_CONFIG_DIR and a keytar loader that fails), and the rendered <App>. Both the
 * store's temp dir and the rendered app are cleaned up when the test finishes (onTestFinished):
 * the app first, ended as the lifecycle ends it (unmounted, then the work it handed over to
 * `waitUntil` settled), then its dirs.
 */
import type { Dialect } from '../../src/sandbox/index.js';
import { onTestFinished } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KeydeckClient } from '../../src/api/client.js';
import { createCredentialStore, type CredentialStore } from '../../src/credentials/index.js';
import { App } from '../../src/tui/App.js';
import { TopUpJournal } from '../../src/billing/journal.js';
import { defaultTopUpDeps, TopUpDepsProvider } from '../../src/tui/flows/topup/TopUpDeps.js';
import type { SessionState } from '../../src/tui/contexts/SessionContext.js';
import type { AppServices, ClearOutcome, CopyOutcome } from '../../src/tui/services.js';
import { settled, track } from '../../src/tui/lifecycle.js';
import { renderTui, type TuiHandle } from './render.js';
import { startTestSandbox as startSandboxHelpers, type TestSandbox as SandboxHelpers } from '../sandbox/helpers.js';

/** A sandbox running in this process (test/sandbox/helpers.ts), with what the TUI suites add. */
export interface TestSandbox extends SandboxHelpers {
  /** The demo user's session token (the demo account of src/sandbox/demo.ts: $84.20 left, five keys). */
  readonly demoToken: string;
  /** A client for `token` (short timeout, no retries: tests fail fast). */
  client(token: string): KeydeckClient;
}

/** Starts a sandbox with an in-memory database on a free loopback port (answering in `dialect`, default `seed`). */
export async function startTestSandbox(options: { dialect?: Dialect; chain?: { rpcUrl?: string } } = {}): Promise<TestSandbox> {
  const sb = await startSandboxHelpers({ host: '127.0.0.1', ...options });
  return {
    ...sb,
    demoToken: sb.token,
    client: (token: string) => new KeydeckClient({ baseUrl: sb.url, token, timeoutMs: 3000, retries: 0 }),
  };
}

/** A credential store with no keychain, its files in a temp dir (removed by `cleanup`). */
export function noKeychainStore(): { store: CredentialStore; dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-tui-'));
  const store = createCredentialStore({
    env: { KEYDECK_CONFIG_DIR: dir },
    loadKeytar: () => Promise.reject(new Error('keytar is not available in this test')),
  });
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  onTestFinished(cleanup);
  return { store, dir, cleanup };
}

/** Services for tests, recording exits, copies, clipboard clears and redraws. */
export interface TestServices extends AppServices {
  readonly exits: Array<{ code: number; message?: string | undefined }>;
  readonly copies: string[];
  /** The keys cleared from the clipboard once acknowledged, and where. */
  readonly clears: Array<{ secret: string; via: 'clipboard' | 'osc52' }>;
  readonly redraws: { count: number };
  /** Resolves once the work handed over to `waitUntil` has settled (that handed over meanwhile included). */
  settled(): Promise<void>;
}

/** A data dir of its own, removed when the test ends (keydeck always has one: src/config/paths.ts). */
function freshDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-tui-data-'));
  try {
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  } catch {
    // Built outside a test (a suite's beforeAll): the OS's temp dir keeps it.
  }
  return dir;
}

/** Builds {@link TestServices}. */
export function testServices(options: {
  baseUrl?: string;
  store: CredentialStore;
  target?: 'sandbox' | 'live';
  demoToken?: string;
  profile?: string;
  pollIntervalSeconds?: number;
  insecureStorage?: boolean;
  copyOutcome?: CopyOutcome;
  /** What clearing a copied key gives (default `cleared`). */
  clearOutcome?: ClearOutcome;
  saveBaseUrl?: (url: string) => Promise<void>;
  /** The profile's own saved base URL; default `baseUrl` (null: none saved, as with --base-url on a new profile). */
  savedBaseUrl?: string | null;
  /** keydeck's data dir (the operations' records, the delivery lock); absent: a fresh temp dir (keydeck always has one). */
  dataDir?: string;
  /** The deadline of each call, ms (default 3,000: a fault is seen at once). */
  timeoutMs?: number;
}): TestServices {
  const exits: TestServices['exits'] = [];
  const copies: string[] = [];
  const clears: TestServices['clears'] = [];
  const redraws = { count: 0 };
  const work = new Set<Promise<unknown>>();
  return {
    profile: {
      name: options.profile ?? 'test',
      ...(options.baseUrl !== undefined && { baseUrl: options.baseUrl }),
      ...((options.savedBaseUrl === undefined ? options.baseUrl : (options.savedBaseUrl ?? undefined)) !== undefined && {
        savedBaseUrl: (options.savedBaseUrl === undefined ? options.baseUrl : options.savedBaseUrl)!,
      }),
      pollIntervalSeconds: options.pollIntervalSeconds ?? 15,
    },
    target: options.target ?? 'sandbox',
    store: options.store,
    createClient: (baseUrl, token, credential) => new KeydeckClient({ baseUrl, token, timeoutMs: options.timeoutMs ?? 3000, retries: 0, ...(credential && { credential }) }),
    ...(options.saveBaseUrl && { saveBaseUrl: options.saveBaseUrl }),
    ...(options.demoToken !== undefined && { demoToken: options.demoToken }),
    insecureStorage: options.insecureStorage ?? false,
    hostname: 'testhost',
    dataDir: options.dataDir ?? freshDataDir(),
    copy: async (text) => {
      copies.push(text);
      return options.copyOutcome ?? 'failed';
    },
    clearCopied: async (secret, via) => {
      clears.push({ secret, via });
      return options.clearOutcome ?? 'cleared';
    },
    redraw: () => {
      redraws.count++;
    },
    exit: (code, message) => {
      exits.push({ code, message });
    },
    waitUntil: (promise) => track(work, promise),
    settled: () => settled(work),
    exits,
    copies,
    clears,
    redraws,
  };
}

/** A ready session using `token` (memory only) against `baseUrl`. */
export function readySession(baseUrl: string, token: string): SessionState {
  return { phase: 'ready', baseUrl, credential: { token, origin: 'memory' }, rejected: false };
}

/** A top-up journal in a fresh temp dir (`file`, the database, for a second instance: another process), and its removal. */
export function tempJournal(): { journal: TopUpJournal; dir: string; file: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-billing-'));
  const file = path.join(dir, 'topups.db');
  return { journal: new TopUpJournal({ path: file }), dir, file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What {@link renderApp} returns. */
export interface AppHandle extends TuiHandle {
  /**
   * Ends the app as the lifecycle's exit does (src/tui/lifecycle.ts): unmounts it, then resolves
   * once the work it handed over has settled ({@link TestServices.settled}; at once with other
   * services). After it, the app writes nothing more.
   */
  end(): Promise<void>;
}

/** Renders the app with `services` at `columns` × `rows`, with its own {@link tempJournal}; ended ({@link AppHandle.end}) when the test finishes. */
export function renderApp(services: AppServices & { settled?: () => Promise<void> }, options: { session?: SessionState; columns?: number; rows?: number } = {}): AppHandle {
  // The top-up record of this test, not the real user data dir's (the app's default journal is the
  // platform's, ~/.local/share/keydeck/topups.db: the tests used to write there).
  const { journal, cleanup } = tempJournal();
  const deps = { ...defaultTopUpDeps(), journal };
  const ui = renderTui(
    <TopUpDepsProvider deps={deps}>
      <App services={services} {...(options.session && { initialSession: options.session })} />
    </TopUpDepsProvider>,
    {
      columns: options.columns ?? 80,
      rows: options.rows ?? 24,
    },
  );
  const handle: AppHandle = {
    ...ui,
    async end() {
      ui.unmount();
      await services.settled?.();
    },
  };
  onTestFinished(async () => {
    await handle.end();
    cleanup();
  });
  return handle;
}

/**
 * A user with $25 of credit and one credit key, `service-a`, signed in with a management key of
 * their own, `keydeck-in-use` (its value in memory only): the app rendered against `sb` with a
 * balance poll every `pollIntervalSeconds`, returned once its keys and balance are drawn. `api`
 * is the user's session client (to change the account from outside the app).
 */
export async function renderSignedInAccount(sb: TestSandbox, pollIntervalSeconds: number) {
  const session = await sb.fundedUser(25);
  const api = sb.client(session);
  await api.keys.createCredit({ name: 'service-a' });
  const inUse = await api.managementKeys.create({ name: 'keydeck-in-use' });
  const ui = renderApp(testServices({ store: noKeychainStore().store, baseUrl: sb.url, pollIntervalSeconds }), { session: readySession(sb.url, inUse.apiKey) });
  await ui.waitFor('▶ service-a');
  await ui.waitFor('$25.00');
  return { api, inUse, ui };
}
