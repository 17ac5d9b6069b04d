/**
 * Harness of the Billing suites: the whole app (shell, header, status line, hint bar) on the
 * Billing pane against a real sandbox on loopback, with the top-up journal in a temp dir, a
 * recording browser opener and bell, and helpers to spend through the sandbox's inference
 * endpoint and to read figures off the screen.
 */
import type { AccountClient } from '../../../src/tui/services.js';
import { TopUpJournal } from '../../../src/billing/journal.js';
import { simulateUsdcTransfer } from '../../../src/api/sandbox-sim.js';
import { App } from '../../../src/tui/App.js';
import { TopUpDepsProvider, type TopUpDeps } from '../../../src/tui/flows/topup/TopUpDeps.js';
import type { AppServices } from '../../../src/tui/services.js';
import { readySession, testServices, noKeychainStore, type TestSandbox } from '../harness.js';
export { tempJournal } from '../harness.js';
import { KEYS, renderTui, type TuiHandle } from '../render.js';

/** Recording dependencies of the Billing pane. */
export interface RecordingDeps extends TopUpDeps {
  readonly opened: string[];
  readonly bells: { count: number };
  readonly simulated: string[];
}

/** Dependencies around `journal` that record what they are asked to do. */
export function recordingDeps(journal: TopUpJournal): RecordingDeps {
  const opened: string[] = [];
  const bells = { count: 0 };
  const simulated: string[] = [];
  return {
    journal,
    opened,
    bells,
    simulated,
    openUrl: async (url) => {
      opened.push(url);
    },
    simulateTransfer: async (baseUrl, transfer) => {
      const result = await simulateUsdcTransfer(baseUrl, transfer);
      simulated.push(result.txHash);
      return result;
    },
    bell: () => {
      bells.count++;
    },
  };
}

/** What {@link openBilling} gives a test. */
export interface BillingScreen {
  readonly tui: TuiHandle;
  readonly services: AppServices & { copies: string[] };
  readonly deps: RecordingDeps;
  /** Unmounts and removes the credential store's temp dir (not the journal). */
  close(): void;
}

/** Renders the app signed in with `token`, on the Billing pane. */
export function openBilling(
  sandbox: TestSandbox,
  token: string,
  options: {
    deps: RecordingDeps;
    alertBelowUsd?: number;
    columns?: number;
    rows?: number;
    target?: 'sandbox' | 'live';
    profile?: string;
    /** Changes the client the app gets (e.g. to answer one endpoint differently). */
    wrapClient?: (client: AccountClient) => AccountClient;
    openHistory?: AppServices['openHistory'];
    /** Where the chain is read; absent: never. */
    chainSettings?: AppServices['chainSettings'];
    /** `--auto-topup`: the policy and card method names; absent: the app never charges by itself. */
    autoTopUp?: AppServices['autoTopUp'];
    /** keydeck's data dir (auto top-up's account lock); absent: none. */
    dataDir?: string;
    /** Hears the app's notifications. */
    notify?: AppServices['notify'];
    /** The failpoints of the operations' steps (src/failpoints `failpointsFrom`): the crash walks. */
    failpoints?: AppServices['failpoints'];
    /** The deadline of each call, ms (default the harness's 3,000). */
    timeoutMs?: number;
  },
): BillingScreen {
  const store = noKeychainStore();
  const base = testServices({
    baseUrl: sandbox.url,
    store: store.store,
    target: options.target ?? 'sandbox',
    profile: options.profile ?? 'test',
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  const wrap = options.wrapClient;
  const services = {
    ...base,
    ...(wrap && { createClient: (baseUrl: string, token: string) => wrap(base.createClient(baseUrl, token)) }),
    profile: { ...base.profile, ...(options.alertBelowUsd !== undefined && { alertBelowUsd: options.alertBelowUsd }) },
    ...(options.openHistory && { openHistory: options.openHistory }),
    ...(options.chainSettings && { chainSettings: options.chainSettings }),
    ...(options.autoTopUp && { autoTopUp: options.autoTopUp }),
    ...(options.dataDir && { dataDir: options.dataDir }),
    ...(options.notify && { notify: options.notify }),
    ...(options.failpoints && { failpoints: options.failpoints }),
  };
  const tui = renderTui(
    <TopUpDepsProvider deps={options.deps}>
      <App services={services} initialSession={readySession(sandbox.url, token)} initialPane="billing" />
    </TopUpDepsProvider>,
    { columns: options.columns ?? 80, rows: options.rows ?? 24 },
  );
  return {
    tui,
    services,
    deps: options.deps,
    close() {
      tui.unmount();
      store.cleanup();
    },
  };
}

/** Posts to the sandbox; returns the parsed answer (throws on a non-2xx). */
export async function sandboxPost<T>(sandbox: TestSandbox, p: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${sandbox.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${p}: ${res.status} ${text}`);
  return (text.trim().startsWith('{') ? JSON.parse(text) : text) as T;
}

/**
 * Spends `usd` through the sandbox's inference endpoint with a credit key of the user of
 * `token` (created on first use and cached per token).
 */
const creditKeys = new Map<string, string>();
export async function spend(sandbox: TestSandbox, token: string, usd: number): Promise<void> {
  let sk = creditKeys.get(token);
  if (!sk) {
    const c = sandbox.client(token);
    sk = (await c.keys.createCredit({ name: 'spender' })).apiKey;
    c.close();
    creditKeys.set(token, sk);
  }
  await sandboxPost(sandbox, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], sandbox_cost_usd: usd }, sk);
}

/** Walks the USDC top-up of `amount` (type, choose USDC) up to the deposit step. */
export async function startUsdcTopUp(tui: TuiHandle, amount: string): Promise<string> {
  await tui.press('t');
  await tui.waitFor('1/3 amount');
  await tui.type(amount);
  await tui.press(KEYS.enter);
  await tui.waitFor('2/3 method');
  await tui.press('u', KEYS.enter);
  return tui.waitFor('To address');
}

/** The address shown on the USDC step. */
export function shownAddress(frame: string): string | undefined {
  return /To address\s+(0x[0-9a-fA-F]{40})/.exec(frame)?.[1];
}

export { KEYS };
