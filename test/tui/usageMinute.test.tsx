/**
 * The usage figures' age says the truth, and re-renders only what shows it. The usage line's
 * "usage just now", "usage 1 min ago", "usage 2 min ago" (src/billing/usageWords.ts `ageWords`,
 * rounding to the nearest minute: 1 min from an age of 60 s, 2 min from 90 s) change at those
 * boundaries of the figures' own age, not at the first poll after each minute of the service's
 * clock (which left "just now" standing for ages of 60-116 s and never drew "1 min ago" at some
 * phases). Each change is one commit (one frame for Ink): the Keys pane, which shows the age in
 * the selected key's details, is rendered for it; the shell, the panes that do not show the age,
 * and the Billing pane around its top spenders are not (each render of every pane allocated ~4.5
 * MB a minute in an idle TUI); and a refresh that only moves the budget's clock into another
 * minute draws nothing. Renders are counted by wrapping the components where they are defined.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { BalanceHistoryStore, originOf } from '../../src/billing/historyStore.js';
import { KeyHistory } from '../../src/billing/keyHistory.js';
import { credentialIdOf, UsageBudget } from '../../src/billing/usageBudget.js';
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

/**
 * An app on the Keys pane of its own account, whose usage budget's clock runs `behindMs` behind
 * this machine's: its first read is stamped that long ago (as figures another keydeck read), so
 * the figures' age reaches the boundary under watch within seconds. Resolves once the figures are
 * drawn, with `at`, when they were read (the service's clock: this machine's, corrected by at most
 * the second its Date header drops).
 */
async function appReadAgo(behindMs: number, words: string) {
  const token = await sb.fundedUser(50);
  const key = await sb.creditKey(token, 'batch-jobs');
  await sb.infer(key.apiKey, { sandbox_cost_usd: 3 });
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-tui-usage-minute-'));
  const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
  onTestFinished(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const clock = () => Date.now() - behindMs;
  const services = {
    ...harness.testServices({ store: harness.noKeychainStore().store, baseUrl: sb.url, pollIntervalSeconds: 2 }),
    openUsage: (baseUrl: string) => ({ budget: new UsageBudget(store.database, { clock }), keyHistory: new KeyHistory(store.database, store.series('test', originOf(baseUrl)).id) }),
  };
  const ui = harness.renderApp(services, { session: harness.readySession(sb.url, token) });
  await ui.waitFor(new RegExp(`usage ${words} · 11 of 12 reads left · u reads now`));
  await ui.waitFor('$3.00');
  const at = new UsageBudget(store.database).keptAt(credentialIdOf(originOf(sb.url), token), 'list')!;
  expect(Date.now() - at).toBeGreaterThanOrEqual(behindMs);
  return { ui, at };
}

describe("the usage figures' age", () => {
  it('changes its words at its own boundaries, each change one commit of the Keys pane, not the shell nor the other panes', async () => {
    // Two apps at once, each watched over one boundary: one whose figures were read 52 s ago
    // ("just now", then "1 min ago" from an age of 60 s), one whose were read 82 s ago ("1 min
    // ago", then "2 min ago" from 90 s). Their budgets' clocks go into another minute at moments
    // unrelated to those boundaries.
    const [first, second] = await Promise.all([appReadAgo(52_000, 'just now'), appReadAgo(82_000, '1 min ago')]);
    // Settled: the start's frames are drawn and the other panes mounted.
    await sleep(1500);
    expect(first.ui.lastFrame()).toContain('usage just now');
    expect(second.ui.lastFrame()).toContain('usage 1 min ago');
    const before = new Map(renders);
    const framesBefore = [first.ui.frames().length, second.ui.frames().length] as const;
    const since = (name: string) => (renders.get(name) ?? 0) - (before.get(name) ?? 0);
    const rendered = () => ({
      Shell: since('Shell'),
      KeysPane: since('KeysPane'),
      ManagementKeysPane: since('ManagementKeysPane'),
      BillingPane: since('BillingPane'),
      AccountsPane: since('AccountsPane'),
    });
    // Watched as a user would (every 50 ms): when each age is first drawn, this machine's ms after the read.
    const seen: [Map<string, number>, Map<string, number>] = [new Map(), new Map()];
    const apps = [first, second];
    const last = ['1 min ago', '2 min ago'] as const;
    for (const until = second.at + 96_000; !(seen[0].has(last[0]) && seen[1].has(last[1])) && Date.now() < until; await sleep(50)) {
      apps.forEach(({ ui, at }, i) => {
        const age = /usage (just now|\d+ min ago)/.exec(ui.lastFrame() ?? '')?.[1];
        if (age !== undefined && !seen[i]!.has(age)) seen[i]!.set(age, Date.now() - at);
      });
    }
    await sleep(1000);
    // "1 min ago" from an age of 60 s and "2 min ago" from 90 s: never before (this machine's clock
    // is never behind the service's here), and late by no more than the second the service's clock
    // is known to, the timer's 50 ms and this loop's.
    expect([...seen[0].keys()]).toEqual(['just now', '1 min ago']);
    expect([...seen[1].keys()]).toEqual(['1 min ago', '2 min ago']);
    expect(seen[0].get('1 min ago')).toBeGreaterThanOrEqual(60_000);
    expect(seen[0].get('1 min ago')).toBeLessThan(62_500);
    expect(seen[1].get('2 min ago')).toBeGreaterThanOrEqual(90_000);
    expect(seen[1].get('2 min ago')).toBeLessThan(92_500);
    // One change of the words in each app, one commit each: the Keys pane's, and nothing else rendered for them.
    expect(first.ui.frames().length - framesBefore[0]).toBe(1);
    expect(second.ui.frames().length - framesBefore[1]).toBe(1);
    expect(rendered()).toEqual({ Shell: 0, KeysPane: 2, ManagementKeysPane: 0, BillingPane: 0, AccountsPane: 0 });
    first.ui.unmount();
    second.ui.unmount();
  }, 60_000);
});
