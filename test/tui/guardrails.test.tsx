/**
 * The guardrails on the Keys pane (docs/guardrails.md), against a real sandbox and a real
 * history.db: with the profile's rules, each governed key's budget bar and share of its limit in
 * its row, `off:budget` for a key a guardrail disabled (the guardrail record in the data dir),
 * and the selected key's budget in its details at 80 columns: spent of the limit and its period,
 * what happens at the limit, the worst case before the next read; the disabled one says until when.
 * Without rules there is no budget column.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BalanceHistoryStore, originOf } from '../../src/billing/historyStore.js';
import { KeyHistory } from '../../src/billing/keyHistory.js';
import { periodBounds } from '../../src/billing/guardrails.js';
import { UsageBudget } from '../../src/billing/usageBudget.js';
import type { KeyRule } from '../../src/config/guardrailRules.js';
import { guardrailRecord } from '../../src/operations/guardrailRecord.js';
import { budgetCell, budgetLine } from '../../src/tui/panes/keys/keyBudget.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(() => sb.close());

function historyDb(): BalanceHistoryStore {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-tui-guardrails-'));
  const store = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
  onTestFinished(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

function open(token: string, rules: KeyRule[] | undefined, size: { columns?: number; rows?: number } = {}) {
  const store = historyDb();
  const base = testServices({ store: noKeychainStore().store, baseUrl: sb.url, pollIntervalSeconds: 2 });
  const services = {
    ...base,
    profile: { ...base.profile, ...(rules && { guardrails: rules }) },
    openUsage: (baseUrl: string) => ({ budget: new UsageBudget(store.database), keyHistory: new KeyHistory(store.database, store.series('test', originOf(baseUrl)).id) }),
  };
  return { ui: renderApp(services, { session: readySession(sb.url, token), ...size }), dataDir: services.dataDir };
}

const RULES: KeyRule[] = [
  { name: 'web', budget: { limitUsd: 5, period: 'day', action: 'disable' } },
  { name: 'api', budget: { limitUsd: 2, period: 'week', action: 'disable' } },
];

describe('the guardrails on the Keys pane', () => {
  it("shows each governed key's budget bar, a key a guardrail disabled, and the selected key's budget in its details at 80 columns", async () => {
    const token = await sb.fundedUser(50);
    const web = await sb.creditKey(token, 'web');
    const api = await sb.creditKey(token, 'api');
    await sb.call('PUT', `/api/keys/${api.id}`, { token, body: { isActive: false } });
    await sb.infer(web.apiKey, { sandbox_cost_usd: 4.5 });
    const { ui, dataDir } = open(token, RULES, { columns: 80, rows: 24 });
    // What a guardrail of another keydeck recorded: "api" disabled by its week's budget.
    const week = periodBounds('week', Date.now());
    const record = guardrailRecord(dataDir);
    const entry = await record.start({
      profile: 'test',
      origin: new URL(sb.url).origin,
      keyId: api.id,
      keyName: 'api',
      rule: 'budget',
      period: 'week',
      periodStart: new Date(week.start).toISOString(),
      periodEnd: new Date(week.end).toISOString(),
      limitUsd: 2,
      action: 'disable',
      reenable: true,
      said: [],
    });
    await record.update(entry.id, { state: 'disabling' });
    await record.update(entry.id, { state: 'disabled' });
    const frame = await ui.waitFor((f) => f.includes('████░ 90%') && f.includes('off:budget'));
    expect(frame).toMatch(/│ budget\s+│/);
    expect(frame).toMatch(/│ [▶ ] web\s+│ ● active\s+│ ████░ 90%\s+│/);
    expect(frame).toMatch(/│ [▶ ] api\s+│ ○ inactive\s+│ off:budget\s+│/);
    await ui.press('g');
    // The newest first: "api", then "web".
    const details = await ui.waitFor(/budget: off by its budget till \d\d-\d\d 00:00 UTC · space enables it/);
    expect(details).not.toMatch(/spends the shared credit balance/);
    await ui.press('j');
    await ui.waitFor(/budget: \$4\.50\/\$5\.00 today · off at limit till 00:00 · \+\$\d+\.\d\d by next read/);
  });

  it('shows no budget column without rules', async () => {
    const token = await sb.fundedUser(50);
    await sb.creditKey(token, 'web');
    const { ui } = open(token, undefined, { columns: 100, rows: 30 });
    const frame = await ui.waitFor((f) => f.includes('web') && f.includes('spends the shared credit balance'));
    expect(frame).not.toMatch(/│ budget\s+│/);
  });

  it('says the longest form that fits, down to the tightest', () => {
    const now = Date.parse('2026-05-10T10:00:00Z');
    const view = {
      rule: { limitUsd: 5, period: 'day' as const, action: 'disable' as const },
      thresholds: [0.8, 0.95],
      start: Date.parse('2026-05-10T00:00:00Z'),
      end: Date.parse('2026-05-11T00:00:00Z'),
      spentUsd: 4.5,
      ratio: 0.9,
      usdPerHour: 0.2,
      overshootUsd: 0.24,
      nextReadAt: now + 72 * 60_000,
      crossed: [0.8],
      atLimit: false,
    };
    expect(budgetLine(view, [], undefined, now)).toBe(
      'budget: $4.50 of $5.00 today (90 %); at the limit it disables the key until the period ends; resets 2026-05-11 00:00 UTC; up to $0.24 more before the next usage read (in 1 h 12 min)',
    );
    expect(budgetLine(view, [], undefined, now, 120)).toBe('budget: $4.50 of $5.00 today (90 %) · disables at the limit until 00:00 UTC · +$0.24 by the next read (1 h 12 min)');
    expect(budgetLine(view, [], undefined, now, 76)).toBe('budget: $4.50/$5.00 today · off at limit till 00:00 · +$0.24 by next read');
    expect(budgetCell(view, undefined)).toBe('████░ 90%');
    expect(budgetCell({ ...view, ratio: 12.5 }, undefined)).toBe('█████ >999%');
    expect(budgetCell(undefined, undefined)).toBe('');
  });
});
