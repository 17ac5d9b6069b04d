/**
 * Where the money goes, in the TUI, against a real sandbox and a real history.db: the
 * Keys pane's spend columns at 80 columns (24 h and 30 d; more at 120), the spend sort, the
 * details' spend, budget, limits from the service's plans and the figures' age; the Billing
 * pane's top spenders with shares (a deleted key said so); `u` spends a read (pressed again while
 * it is under way, says so and spends no second one), `r` never does and says why; a key made to spend 10× its baseline (the sandbox clock moved to give it one) raises
 * the banner and a notification once, `D` deactivates it through the confirm dialog (Cancel
 * first), and its requests then fail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { BalanceHistoryStore, originOf } from '../../src/billing/historyStore.js';
import { KeyHistory } from '../../src/billing/keyHistory.js';
import { credentialIdOf, UsageBudget } from '../../src/billing/usageBudget.js';
import { UsageTracker } from '../../src/billing/usageTracker.js';
import type { NotifyEvent } from '../../src/terminal/notify.js';
import { startFaultProxy } from '../resilience/fault-proxy.js';
import { KEYS } from './render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

/** A history.db of its own for the test (closed and removed after it). */
function historyDb(): BalanceHistoryStore {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-tui-usage-'));
  const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
  onTestFinished(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

function open(token: string, store: BalanceHistoryStore, size: { columns?: number; rows?: number } = {}, via: { baseUrl?: string; timeoutMs?: number } = {}) {
  const s = noKeychainStore();
  const notified: NotifyEvent[] = [];
  const baseUrl = via.baseUrl ?? sb.url;
  const services = {
    ...testServices({ store: s.store, baseUrl, pollIntervalSeconds: 2, ...(via.timeoutMs !== undefined && { timeoutMs: via.timeoutMs }) }),
    openUsage: (baseUrl: string) => ({ budget: new UsageBudget(store.database), keyHistory: new KeyHistory(store.database, store.series('test', originOf(baseUrl)).id) }),
    notify: (e: NotifyEvent) => notified.push(e),
  };
  const ui = renderApp(services, { session: readySession(baseUrl, token), ...size });
  return { ui, notified };
}

describe('spend in the Keys pane and the Billing pane', () => {
  it('shows who spends what: columns at 80 and 140, the spend sort, the details, the top spenders; u reads, r explains', async () => {
    const token = await sb.fundedUser(50);
    const big = await sb.creditKey(token, 'batch-jobs');
    const small = await sb.creditKey(token, 'web');
    const gone = await sb.creditKey(token, 'old-job');
    await sb.infer(big.apiKey, { sandbox_cost_usd: 3 });
    await sb.infer(small.apiKey, { sandbox_cost_usd: 1 });
    await sb.infer(gone.apiKey, { sandbox_cost_usd: 1 });
    await sb.call('DELETE', `/api/keys/${gone.id}`, { token });
    const store = historyDb();
    const { ui } = open(token, store);
    const table = await ui.waitFor((f) => f.includes('$3.00') && f.includes('30 d'));
    expect(table).toMatch(/│ 24 h\s+│ 30 d\s+│/);
    expect(table).not.toMatch(/│ plan /);
    // The spend sort: the biggest first (after created, name, status, expiry).
    for (let i = 0; i < 4; i++) await ui.press('s');
    const sorted = await ui.waitFor('sorted biggest spend first');
    const lines = sorted.split('\n');
    expect(lines.findIndex((l) => /^│ [▶ ] batch-jobs/.test(l))).toBeLessThan(lines.findIndex((l) => /^│ [▶ ] web /.test(l)));
    await ui.press('g');
    const details = await ui.waitFor(/spend: 24 h \$3\.00 · 7 d \$3\.00 · 30 d \$3\.00 · all time \$3\.00 · 60% of 24 h/);
    expect(details).toMatch(/budget: the shared balance, max_budget \$50\.00 \(all top-ups\)/);
    expect(details).toMatch(/usage just now · 11 of 12 reads left · u reads now/);

    await ui.press('u');
    await ui.waitFor('read the usage: 10 of 12 reads left in 12 hours');
    expect((await sb.call('GET', '/sandbox/usage/calls')).body.allTime.served).toBeGreaterThanOrEqual(2);

    await ui.press('3');
    const billing = await ui.waitFor(/top spenders · 24 h · usage just now · 10 of 12 reads left/);
    expect(billing).toMatch(/batch-jobs\s+\$3\.00\s+60% █/);
    expect(billing).toMatch(/old-job \(deleted\)\s+\$1\.00\s+20%/);
    ui.unmount();

    const wide = open(token, store, { columns: 140, rows: 30 }).ui;
    const wideTable = await wide.waitFor('all time');
    expect(wideTable).toMatch(/│ plan\s+│.*│ 24 h\s+│ 7 d\s+│ 30 d\s+│ all time │/);
  });

  it('draws the kept figures with the key list, not in a frame of their own before it (the first frame of a slow list)', async () => {
    const token = await sb.fundedUser(20);
    const key = await sb.creditKey(token, 'batch-jobs');
    await sb.infer(key.apiKey, { sandbox_cost_usd: 3 });
    const store = historyDb();
    // A first session reads the usage answer and keeps it.
    const first = open(token, store);
    await first.ui.waitFor('$3.00');
    first.ui.unmount();
    // The next one: its key list held until the watcher has read the balance and taken up the kept answer.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const s = noKeychainStore();
    const base = testServices({ store: s.store, baseUrl: sb.url, pollIntervalSeconds: 2 });
    const services = {
      ...base,
      createClient: (...args: Parameters<typeof base.createClient>) => {
        const client = base.createClient(...args);
        const list = client.keys.list.bind(client.keys);
        client.keys.list = async (options) => {
          await held;
          return list(options);
        };
        return client;
      },
      openUsage: (baseUrl: string) => ({ budget: new UsageBudget(store.database), keyHistory: new KeyHistory(store.database, store.series('test', originOf(baseUrl)).id) }),
    };
    const ui = renderApp(services, { session: readySession(sb.url, token) });
    await ui.waitFor('$17.00 left');
    await new Promise((r) => setTimeout(r, 300));
    const before = ui.frames().length;
    expect(ui.frames().filter((f) => /│ 24 h/.test(f))).toEqual([]);
    release();
    const table = await ui.waitFor('$3.00');
    expect(table).toMatch(/batch-jobs[^\n]*\$3\.00/);
    // The list and its spend in one frame: none between with the columns and no rows.
    expect(
      ui
        .frames()
        .slice(before)
        .filter((f) => /│ 24 h/.test(f) && !f.includes('batch-jobs')),
    ).toEqual([]);
  });

  it('r never spends a usage read: on figures older than the schedule’s spacing it says why and what would', async () => {
    const token = await sb.fundedUser(20);
    await sb.creditKey(token, 'k');
    const store = historyDb();
    const { ui } = open(token, store);
    await ui.waitFor('usage just now');
    const served = (await sb.call('GET', '/sandbox/usage/calls')).body.allTime.served;
    await sb.advance(2 * 3600);
    await ui.press('r');
    // Whichever comes first: the note on the old figures, or (when the schedule's own read came before r) a plain refresh.
    await ui.waitFor(/the usage figures are from [\s\S]*r does[\s\S]*not spend one of the 12 usage reads|refreshed from the service/);
    expect((await sb.call('GET', '/sandbox/usage/calls')).body.allTime.served - served).toBeLessThanOrEqual(1);
  });
});

describe('u while a usage read is under way', () => {
  it('says a read is under way and spends nothing more: one read for the two presses', async () => {
    const token = await sb.fundedUser(20);
    await sb.creditKey(token, 'k');
    const proxy = await startFaultProxy(sb.url);
    onTestFinished(() => proxy.close());
    // The client's deadline well past the held answer: the read stays under way, then succeeds.
    const { ui } = open(token, historyDb(), {}, { baseUrl: proxy.url, timeoutMs: 15_000 });
    await ui.waitFor('usage just now');
    const served = (await sb.call('GET', '/sandbox/usage/calls')).body.allTime.served;
    proxy.set({ kind: 'delay', ms: 4000, count: 1, only: { method: 'GET', path: '/api/usage' } });
    await ui.press('u');
    await vi.waitFor(() => expect(proxy.seen.filter((r) => r.fault === 'delay')).toHaveLength(1));
    await ui.press('u');
    await ui.waitFor('a usage read is under way: its figures come with it');
    await ui.waitFor('read the usage: 10 of 12 reads left in 12 hours', 10_000);
    expect((await sb.call('GET', '/sandbox/usage/calls')).body.allTime.served - served).toBe(1);
  });
});

describe('spend the balance shows before usage is read', () => {
  it('is not said to be "no spend": the spend since is not read yet, and the line says when it will be', async () => {
    const token = await sb.fundedUser(25);
    const key = await sb.creditKey(token, 'spender');
    const store = historyDb();
    const { ui } = open(token, store);
    await ui.press('3');
    await ui.waitFor('no spend in the last 24 h');
    // $10 spent elsewhere: the balance (read every 2 s) shows it before usage is read again.
    await sb.infer(key.apiKey, { sandbox_cost_usd: 10 });
    await ui.waitFor('spent $10.00');
    // Until the schedule (or u) reads usage again, the line says the spend is not read yet and when
    // it will be; never "no spend" under "spent $10.00".
    const seen = await ui.waitFor(/spend since the balance moved: not read yet · next read|spender\s+\$10\.00\s+100%/);
    if (!seen.includes('spender ')) {
      expect(seen).toMatch(/next read (in \d+ (min|h)|at the next balance read)/);
      await ui.press('u');
      await ui.waitFor(/spender\s+\$10\.00\s+100%/);
    }
    const both = ui.frames().filter((f) => f.includes('spent $10.00') && f.includes('no spend in the last 24 h'));
    expect(both).toEqual([]);
  });
});

describe('a runaway key', () => {
  it('is caught at 10× its baseline: one notification, the banner, D deactivates it (Cancel first), and its requests fail', { timeout: 40_000 }, async () => {
    const token = await sb.fundedUser(400);
    const steady = await sb.creditKey(token, 'steady');
    const store = historyDb();
    // A day of reads every 2 hours (sandbox clock), $1 per 2 h: the key's baseline.
    const origin = originOf(sb.url);
    const client = sb.client(token);
    const primer = new UsageTracker({
      client,
      budget: new UsageBudget(store.database),
      credential: credentialIdOf(origin, token),
      origin,
      keyHistory: new KeyHistory(store.database, store.series('test', origin).id),
    });
    for (let i = 0; i < 12; i++) {
      await sb.infer(steady.apiKey, { sandbox_cost_usd: 1 });
      await client.billing.credits();
      await primer.refresh('auto');
      await sb.advance(2 * 3600);
    }
    client.close();
    // Ten times faster: $10 in the next 2 hours; keydeck starts and its schedule reads.
    await sb.infer(steady.apiKey, { sandbox_cost_usd: 10 });
    const { ui, notified } = open(token, store);
    // (The read comes a few seconds after the 2 hours: just under $5/h.)
    await ui.waitFor(/⚠ "steady" is spending \$(4\.9\d|5\.00)\/h, 10× its usual \$0\.50\/h · D deactivates it · X\s+dismisses/);
    const told = notified.filter((e) => e.kind === 'key_runaway');
    expect(told).toEqual([{ kind: 'key_runaway', anomaly: 'runaway', keyId: steady.id, keyName: 'steady', usdPerHour: expect.closeTo(5, 1), baselineUsdPerHour: expect.closeTo(0.5, 2) }]);

    await ui.press('D');
    await ui.waitFor('Deactivate "steady"?');
    // Cancel is focused first: enter cancels.
    await ui.press(KEYS.enter);
    await ui.waitFor((f) => !f.includes('Deactivate "steady"?'));
    expect((await sb.infer(steady.apiKey)).status).toBe(200);
    await ui.press('D');
    await ui.waitFor('Deactivate "steady"?');
    await ui.press(KEYS.tab);
    await ui.press(KEYS.enter);
    await ui.waitFor('deactivated "steady": its requests now fail');
    await ui.waitFor((f) => !f.includes('D deactivates it'));
    const refused = await sb.infer(steady.apiKey);
    expect(refused.status).toBe(403);
    expect(notified.filter((e) => e.kind === 'key_runaway')).toHaveLength(1);
  });
});
