/**
 * The usage figures' minute re-renders only what shows it. While a usage read is left, each
 * automatic refresh (after every balance poll) finds the budget's next read "now", a new minute
 * once a minute, and the usage slice changes with it so that "usage N min ago" is drawn again.
 * The figures themselves are the same: the shell, the panes that do not show the age, and the
 * Billing pane around its top spenders are not rendered again for it (each render of every pane
 * allocated ~4.5 MB a minute in an idle TUI). The Keys pane, which shows the age in the selected
 * key's details, is. Renders are counted by wrapping the components where they are defined.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { BalanceHistoryStore, originOf } from '../../src/billing/historyStore.js';
import { KeyHistory } from '../../src/billing/keyHistory.js';
import { UsageBudget } from '../../src/billing/usageBudget.js';
import type { TestSandbox } from './harness.js';

const renders = vi.hoisted(() => new Map<string, number>());
const counted = vi.hoisted(() => <P,>(name: string, component: (props: P) => unknown) => (props: P) => {
  renders.set(name, (renders.get(name) ?? 0) + 1);
  return component(props);
});
vi.mock('../../src/tui/Shell.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/tui/Shell.js')>();
  return { ...mod, Shell: counted('Shell', mod.Shell) };
});
vi.mock('../../src/tui/panes/keys/KeysPane.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/tui/panes/keys/KeysPane.js')>();
  return { ...mod, KeysPane: counted('KeysPane', mod.KeysPane) };
});
vi.mock('../../src/tui/panes/managementKeys/ManagementKeysPane.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/tui/panes/managementKeys/ManagementKeysPane.js')>();
  return { ...mod, ManagementKeysPane: counted('ManagementKeysPane', mod.ManagementKeysPane) };
});
vi.mock('../../src/tui/panes/billing/BillingPane.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/tui/panes/billing/BillingPane.js')>();
  return { ...mod, BillingPane: counted('BillingPane', mod.BillingPane) };
});
vi.mock('../../src/tui/accounts/AccountsPane.js', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/tui/accounts/AccountsPane.js')>();
  return { ...mod, AccountsPane: counted('AccountsPane', mod.AccountsPane) };
});

let sb: TestSandbox;
let harness: typeof import('./harness.js');
beforeAll(async () => {
  // The suite's workers keep modules from file to file: loaded afresh here, the app takes the
  // counted components above.
  vi.resetModules();
  harness = await import('./harness.js');
  sb = await harness.startTestSandbox();
});
afterAll(() => sb.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the usage figures' minute", () => {
  it('re-renders the Keys pane that shows the age, not the shell nor the other panes', async () => {
    const token = await sb.fundedUser(50);
    const key = await sb.creditKey(token, 'batch-jobs');
    await sb.infer(key.apiKey, { sandbox_cost_usd: 3 });
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-tui-usage-minute-'));
    const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
    onTestFinished(() => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    // The budget's clock, moved on by hand: a new minute without waiting for one.
    let shift = 0;
    const clock = () => Date.now() + shift;
    const services = {
      ...harness.testServices({ store: harness.noKeychainStore().store, baseUrl: sb.url, pollIntervalSeconds: 2 }),
      openUsage: (baseUrl: string) => ({ budget: new UsageBudget(store.database, { clock }), keyHistory: new KeyHistory(store.database, store.series('test', originOf(baseUrl)).id) }),
    };
    const ui = harness.renderApp(services, { session: harness.readySession(sb.url, token) });
    await ui.waitFor(/usage just now · 11 of 12 reads left · u reads now/);
    await ui.waitFor('$3.00');
    // Settled: the start's frames are drawn and the other panes mounted.
    await sleep(1500);
    const before = new Map(renders);
    const since = (name: string) => (renders.get(name) ?? 0) - (before.get(name) ?? 0);
    const rendered = () => ({
      Shell: since('Shell'),
      KeysPane: since('KeysPane'),
      ManagementKeysPane: since('ManagementKeysPane'),
      BillingPane: since('BillingPane'),
      AccountsPane: since('AccountsPane'),
    });
    // The budget's clock moved on a minute at a time until two polls' refreshes found the next read
    // "now" in a new minute (a poll that failed or came late under load refreshes nothing).
    for (const until = Date.now() + 40_000; rendered().KeysPane < 2 && Date.now() < until;) {
      shift += 60_000;
      const seen = rendered().KeysPane;
      for (const next = Date.now() + 4000; rendered().KeysPane === seen && Date.now() < next;) await sleep(100);
    }
    await sleep(1000);
    // The Keys pane showed it (a render a minute; a minute of the real clock passed meanwhile adds
    // one), and nothing else was rendered for it.
    const counts = rendered();
    expect(counts.KeysPane).toBeGreaterThanOrEqual(2);
    expect(counts).toEqual({ Shell: 0, KeysPane: counts.KeysPane, ManagementKeysPane: 0, BillingPane: 0, AccountsPane: 0 });
    ui.unmount();
  }, 60_000);
});
