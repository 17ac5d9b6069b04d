/**
 * The Accounts pane (`0`, src/tui/accounts/): every profile's account, each read by its own
 * account watcher (src/watcher/profileWatchers.ts) against real sandboxes on loopback: three
 * profiles on two sandboxes, one of them stopped, and one profile with no stored credential. The
 * stopped one is down with its reason while the others show figures, in one screen at 80×24 and
 * 100×30, most urgent first; enter opens the selected profile; what the service or a profile
 * says reaches the screen sanitised.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src/tui/App.js';
import { AccountsContext } from '../../src/tui/accounts/AccountsContext.js';
import { AccountsView } from '../../src/tui/accounts/AccountsView.js';
import { accountRow, byAttention } from '../../src/tui/accounts/accountRows.js';
import { TopUpDepsProvider, defaultTopUpDeps } from '../../src/tui/flows/topup/TopUpDeps.js';
import { resolveFromConfig } from '../../src/config/profile.js';
import type { KeydeckConfig } from '../../src/config/config.js';
import { allProfiles, watchProfiles, type ProfileWatch } from '../../src/watcher/profileWatchers.js';
import { AccountWatcher } from '../../src/watcher/accountWatcher.js';
import { noKeychainStore, readySession, startTestSandbox, tempJournal, testServices, type TestSandbox } from './harness.js';
import { KEYS, renderTui } from './render.js';
import { startHostileServer, raw } from '../api/hostile-server.js';

let live: TestSandbox;
let stoppedUrl: string;

beforeAll(async () => {
  live = await startTestSandbox();
  const other = await startTestSandbox();
  stoppedUrl = other.url;
  await other.close();
});
afterAll(() => live.close());

function configOf(): KeydeckConfig {
  return {
    version: 1,
    currentProfile: 'alpha',
    profiles: {
      alpha: { baseUrl: live.url },
      beta: { baseUrl: live.url, readOnly: true },
      gamma: { baseUrl: stoppedUrl, protected: true },
      nokey: { baseUrl: stoppedUrl },
    },
  } as KeydeckConfig;
}

async function watched(): Promise<{ watches: ProfileWatch[]; store: ReturnType<typeof noKeychainStore>['store'] }> {
  const { store } = noKeychainStore();
  for (const [name, url] of [
    ['alpha', live.url],
    ['beta', live.url],
    ['gamma', stoppedUrl],
  ] as const) {
    await store.set(name, live.demoToken, { origin: new URL(url).origin, insecureStorage: true });
  }
  const config = configOf();
  const start = resolveFromConfig(config, '/nonexistent/config.json', { profile: 'alpha' }, {});
  const watches = watchProfiles({ profiles: allProfiles(config, '/nonexistent/config.json', start), store, timeoutMs: 2000 });
  for (const w of watches) w.watcher.start();
  return { watches, store };
}

function renderAccounts(watches: ProfileWatch[], store: ReturnType<typeof noKeychainStore>['store'], columns: number, rows: number, opened: string[]) {
  const { journal, cleanup } = tempJournal();
  const services = testServices({ baseUrl: live.url, store, profile: 'alpha' });
  const ui = renderTui(
    <TopUpDepsProvider deps={{ ...defaultTopUpDeps(), journal }}>
      <AccountsContext.Provider value={{ watches, current: 'alpha', want: () => {}, open: (name) => opened.push(name) }}>
        <App services={services} initialSession={readySession(live.url, live.demoToken)} initialPane="accounts" />
      </AccountsContext.Provider>
    </TopUpDepsProvider>,
    { columns, rows },
  );
  return {
    ui,
    done: async () => {
      ui.unmount();
      await Promise.all(watches.map((w) => w.watcher.stop()));
      cleanup();
    },
  };
}

describe('the Accounts pane', () => {
  for (const [columns, rows] of [
    [100, 30],
    [80, 24],
  ] as const) {
    it(`at ${columns}×${rows}: every profile in one screen, the stopped one down with its reason`, { timeout: 40_000 }, async () => {
      const { watches, store } = await watched();
      const opened: string[] = [];
      const { ui, done } = renderAccounts(watches, store, columns, rows, opened);
      try {
        // The time to every row is the pty test's (test/e2e/accounts.test.ts, the built app); here, what the rows say.
        const frame = await ui.waitFor((f) => f.includes('$84.20') && /gamma P.*down/.test(f) && /nokey.*no key/.test(f) && (f.match(/\$84\.20/g) ?? []).length >= 3, 20_000);
        const lines = frame.split('\n');
        expect(lines.length).toBeLessThanOrEqual(rows);
        for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
        // Most urgent first: the down one, then those with figures (by name), the one without a key last.
        const order = ['gamma', 'alpha', 'beta', 'nokey'].map((name) => lines.findIndex((l) => new RegExp(`^[ ▶][ •]${name}\\b`).test(l)));
        expect(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
        expect(frame).toMatch(/↳ offline since .*ECONNREFUSED/);
        expect(frame).toMatch(/beta RO/);
        // The header names the account the other panes show.
        expect(lines[0]).toContain('profile alpha');
        // j moves from alpha (current, selected first) to beta; enter opens it.
        await ui.press('j');
        await ui.press(KEYS.enter);
        expect(opened).toEqual(['beta']);
      } finally {
        await done();
      }
    });
  }

  it('enter on the account already shown goes to its Keys pane', { timeout: 40_000 }, async () => {
    const { watches, store } = await watched();
    const opened: string[] = [];
    const { ui, done } = renderAccounts(watches, store, 100, 30, opened);
    try {
      await ui.waitFor('▶•alpha', 20_000);
      await ui.press(KEYS.enter);
      await ui.waitFor('▶1 Keys');
      expect(opened).toEqual([]);
    } finally {
      await done();
    }
  });
});

describe('a profile without a credential', () => {
  it('is said on the status line, not opened (its setup would have no way back)', { timeout: 40_000 }, async () => {
    const { watches, store } = await watched();
    const opened: string[] = [];
    const { ui, done } = renderAccounts(watches, store, 100, 30, opened);
    try {
      await ui.waitFor(/nokey .*no key/, 20_000);
      // The profile without a credential is last whatever the others say: j past the end stays on it.
      await ui.press('j', 'j', 'j', 'j');
      await ui.waitFor('▶ nokey');
      await ui.press(KEYS.enter);
      await ui.waitFor('profile "nokey" has no stored credential: store one with keydeck --profile nokey auth login');
      expect(opened).toEqual([]);
    } finally {
      await done();
    }
  });
});

describe('a slow service', () => {
  it('holds only its own row: the others show figures while it waits, then it is down', { timeout: 40_000 }, async () => {
    const silent = await startHostileServer(() => {});
    const garbled = await startHostileServer((_req, res) => raw(res, 500, 'boom \u001b]52;c;aGk=\u0007 \u202egone'));
    try {
      const { store } = noKeychainStore();
      for (const url of [live.url, silent.url, garbled.url])
        await store.set(url === live.url ? 'alpha' : url === silent.url ? 'slow' : 'weird', live.demoToken, { origin: new URL(url).origin, insecureStorage: true });
      const config = { version: 1, currentProfile: 'alpha', profiles: { alpha: { baseUrl: live.url }, slow: { baseUrl: silent.url }, weird: { baseUrl: garbled.url } } } as KeydeckConfig;
      const start = resolveFromConfig(config, '/c.json', { profile: 'alpha' }, {});
      const watches = watchProfiles({ profiles: allProfiles(config, '/c.json', start), store, timeoutMs: 8000 });
      for (const w of watches) w.watcher.start();
      const opened: string[] = [];
      const { ui, done } = renderAccounts(watches, store, 100, 30, opened);
      try {
        // alpha's figures while slow has not answered: the client's deadline holds slow's row only.
        const frame = await ui.waitFor((f) => /•alpha .*\$84\.20 .*up/.test(f) && /slow .*waiting/.test(f), 8000);
        expect(frame).not.toMatch(/[\u001b\u0007\u202e]/);
        await ui.waitFor((f) => /slow .*down/.test(f) && /weird .*down/.test(f), 20_000);
        expect(ui.lastFrame()).not.toMatch(/[\u001b\u0007\u202e]/);
      } finally {
        await done();
      }
    } finally {
      await silent.close();
      await garbled.close();
    }
  });
});

describe('the rows', () => {
  it('sanitise what comes from outside and cut every line to its width', async () => {
    const config = configOf();
    const profile = resolveFromConfig(config, '/c.json', { profile: 'alpha' }, {});
    const watcher = new AccountWatcher({ connect: () => ({ unavailable: 'credential_error', detail: 'bad \u001b[31mred\u001b[0m \u202eevil' }), intervalMs: 60_000 });
    watcher.start();
    await new Promise((r) => setTimeout(r, 50));
    const row = accountRow(profile, watcher.snapshot, Date.now());
    await watcher.stop();
    expect(row.state).toBe('down');
    expect(row.reason).not.toMatch(/[\u001b\u202e]/);
    const ui = renderTui(<AccountsView rows={[row]} selected="alpha" columns={60} height={6} now={Date.now()} />, { columns: 60, rows: 6 });
    const frame = ui.lastFrame();
    ui.unmount();
    expect(frame).not.toMatch(/[\u001b\u202e]/);
    for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('say a guardrail budget at its limit from the last usage read', async () => {
    const config = configOf();
    (config.profiles.alpha as Record<string, unknown>).guardrails = { appliedAt: '2026-01-01T00:00:00Z', rules: [{ match: 'ci-*', budget: { limitUsd: 10, period: 'month', action: 'warn' } }] };
    const profile = resolveFromConfig(config, '/c.json', { profile: 'alpha' }, {});
    const watcher = new AccountWatcher({ connect: () => ({ unavailable: 'no_credential' }), intervalMs: 60_000 });
    const now = Date.now();
    const keys = [
      { id: 'k1', name: 'ci-1', isActive: true, periods: { total: { spend: 12 } } },
      { id: 'k2', name: 'ci-2', isActive: true, periods: { total: { spend: 1 } } },
      { id: 'k3', name: 'web', isActive: true, periods: { total: { spend: 50 } } },
    ];
    const snapshot = {
      ...watcher.snapshot,
      usage: { available: true, reading: false, snapshot: { report: { keys, periods: ['total'], raw: {} }, at: now, episodes: new Map() } },
    } as unknown as typeof watcher.snapshot;
    expect(accountRow(profile, snapshot, now).alerts).toEqual(['1 at limit']);
    expect(accountRow(resolveFromConfig(configOf(), '/c.json', { profile: 'alpha' }, {}), snapshot, now).alerts).toEqual([]);
  });

  it('most urgent first: down, runs out soonest, alerts, then name', () => {
    const base = { host: 'h', autoTopUp: 'off', readOnly: false, protected: false } as const;
    const rows = byAttention([
      { ...base, name: 'zeta', state: 'up', runOut: { kind: 'never' }, alerts: [] },
      { ...base, name: 'eta', state: 'up', runOut: { kind: 'never' }, alerts: ['low'] },
      { ...base, name: 'soon', state: 'up', runOut: { kind: 'at', at: 0, inMs: 3_600_000 }, alerts: [] },
      { ...base, name: 'sooner', state: 'up', runOut: { kind: 'at', at: 0, inMs: 60_000 }, alerts: [] },
      { ...base, name: 'nokey', state: 'no_key', runOut: { kind: 'unknown' }, alerts: [] },
      { ...base, name: 'dead', state: 'down', runOut: { kind: 'unknown' }, alerts: [] },
      { ...base, name: 'alpha', state: 'up', runOut: { kind: 'never' }, alerts: [] },
    ]);
    expect(rows.map((r) => r.name)).toEqual(['dead', 'sooner', 'soon', 'eta', 'alpha', 'zeta', 'nokey']);
  });
});
