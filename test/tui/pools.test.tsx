/**
 * Pool subscriptions in the TUI, against the sandbox in the docs-v2 dialect: the Keys
 * pane names a pledge without a key and `n` mints it (shown once), a pool key's row and details
 * say where it stands in its reserved blocks (inside, or outside with the next block), its limits
 * come with their source, and the Billing pane's pools view lists the pools and one pool's blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BLOCK_NAMES, blockOfHour } from '../../src/api/poolBlocks.js';
import { withConfigLock } from '../../src/config/lock.js';
import { operationRecordPath } from '../../src/operations/keyOperationRecord.js';
import { KEYS } from './render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type AppHandle, type TestSandbox } from './harness.js';

let sb: TestSandbox;
let ui: AppHandle | undefined;
beforeAll(async () => {
  sb = await startTestSandbox({ dialect: 'docs-v2' });
});
afterAll(async () => {
  await ui?.end();
  await sb.close();
});

function open(token: string) {
  ui?.unmount();
  const s = noKeychainStore();
  ui = renderApp(testServices({ store: s.store, baseUrl: sb.url }), { session: readySession(sb.url, token), columns: 100, rows: 30 });
  return ui;
}

const SK = /sk_[A-Za-z0-9_-]{16,}/;

describe('Keys pane: a pledge without a key', () => {
  it('is named above the table; n offers to mint its key, shows it once, and the row then says its hours', async () => {
    const u = open(sb.token);
    await u.waitFor('⚠ pool pledge kimi26 (asia, europe, americas) has no key · n mints it');
    await u.press('n');
    await u.waitFor('mint the key of pool pledge kimi26');
    expect(u.lastFrame()).toContain('a new credit key (draws on the shared balance)');
    await u.press(KEYS.enter);
    await u.waitFor('enter saves "kimi26"');
    await u.press(KEYS.enter);
    // keydeck always has a data dir: where the new key goes is asked first; enter shows it once.
    await u.waitFor('Where should the new key');
    await u.press(KEYS.enter);
    const revealed = await u.waitFor(SK);
    expect(revealed).toContain('Subscription key "kimi26" created');
    await u.press('y');
    await u.waitFor((f) => f.includes('gone from the screen') && !SK.test(f));
    // The pledge has its key now: no notice; the key's row and details say it is in its blocks.
    await u.waitFor((f) => !f.includes('has no key') && /kimi26\s+│ sub\s+│ pool\s+│ ● in block/.test(f));
    await u.press('g');
    const frame = await u.waitFor('reserved hours: in its blocks around the clock');
    expect(frame).toContain('limits: in its blocks only, unlimited, 1 concurrent (the service’s docs)');
  });

  it('a pool key outside its block: the row and the details say so and when its next block starts', async () => {
    const token = await sb.newUser();
    const now = new Date((await sb.call('POST', '/sandbox/clock', { body: { advanceSeconds: 0 } })).body.now);
    const other = BLOCK_NAMES.find((b) => b !== blockOfHour(now.getUTCHours()))!;
    const pledge = await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: [other] } });
    const minted = await sb.call('POST', '/api/keys/subscription', { token, body: { name: 'night-shift', subscriptionId: pledge.body.id } });
    expect((await sb.infer(minted.body.data.apiKey)).status).toBe(429);
    const u = open(token);
    await u.waitFor(/night-shift\s+│ sub\s+│ pool\s+│ ○ outside/);
    await u.press('g');
    await u.waitFor(new RegExp(`reserved hours: outside its blocks: next ${other} in \\d+ (h|min) \\(429 until then\\)`));
  });
});

describe('Keys pane: the minted key acknowledged as the app ends', () => {
  it('the app ends once the operation is over: its record cleared and its lock file gone, nothing left to write', async () => {
    const token = await sb.newUser();
    await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['asia'] } });
    ui?.unmount();
    const services = testServices({ store: noKeychainStore().store, baseUrl: sb.url });
    const u = (ui = renderApp(services, { session: readySession(sb.url, token), columns: 100, rows: 30 }));
    await u.waitFor('⚠ pool pledge kimi26 (asia) has no key · n mints it');
    await u.press('n');
    await u.waitFor('mint the key of pool pledge kimi26 (asia)');
    await u.press(KEYS.enter);
    await u.waitFor('enter saves "kimi26-asia"');
    await u.press(KEYS.enter);
    await u.waitFor('Where should the new key');
    await u.press(KEYS.enter);
    await u.waitFor(SK);
    // Another keydeck writes the data dir's records meanwhile: the operation's end (written after
    // the reveal closed) waits for its lock, and the app is told to end before it gets it.
    let letGo!: () => void;
    let taken!: () => void;
    const isTaken = new Promise<void>((resolve) => (taken = resolve));
    const held = withConfigLock(services.dataDir, () => {
      taken();
      return new Promise<void>((resolve) => (letGo = resolve));
    });
    await isTaken;
    await u.press('y');
    await u.waitFor((f) => f.includes('gone from the screen') && !SK.test(f));
    const dir = services.dataDir;
    // What the data dir holds the moment the app has ended (read at once, synchronously).
    const atEnd = u.end().then(() => ({
      operations: (JSON.parse(readFileSync(operationRecordPath(dir), 'utf8')) as { operations: Array<{ state: string }> }).operations,
      locks: readdirSync(path.join(dir, 'locks')),
    }));
    letGo();
    await held;
    const seen = await atEnd;
    expect(seen.operations).toEqual([]);
    expect(seen.locks).toEqual([]);
  });
});

describe('Keys pane: a key minted behind its back', () => {
  it('n reads the lists afresh and refuses with the reason, nothing sent', async () => {
    const token = await sb.newUser();
    const pledge = await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['asia'] } });
    const u = open(token);
    await u.waitFor('⚠ pool pledge kimi26 (asia) has no key · n mints it');
    await sb.call('POST', '/api/keys/subscription', { token, body: { name: 'elsewhere', subscriptionId: pledge.body.id } });
    await u.press('n');
    await u.waitFor('mint the key of pool pledge kimi26 (asia)');
    await u.press(KEYS.enter);
    const refused = await u.waitFor('Not minted');
    expect(refused).toContain('"elsewhere"');
    expect(refused).toContain('Nothing was sent.');
    await u.press(KEYS.enter);
    await u.waitFor((f) => f.includes('elsewhere') && !f.includes('has no key'));
  });
});

describe('Billing pane: the pools view', () => {
  it('p lists the pools; enter shows one pool’s blocks and free seats by hour; esc goes back', async () => {
    const u = open(sb.token);
    await u.press('3');
    await u.waitFor('Billing');
    await u.press('p');
    await u.waitFor(/kimi26\s+│ Kimi K2\.6\s+│ active/);
    expect(u.lastFrame()).toContain('keydeck does not subscribe');
    // The way to mint the pledge's key in the TUI is its key, not the command line's.
    expect(u.lastFrame()!.replace(/[│\s]+/g, ' ')).toContain('then mint the key with n on the Keys pane');
    await u.press(KEYS.enter);
    const pool = await u.waitFor(/europe\s+│ 08:00–16:00 UTC\s+│ \d+ of 10 free\s+│ \$49\.00\/mo/);
    expect(pool).toContain('free seats by UTC hour:');
    expect(pool).toMatch(/00h \d+/);
    await u.press(KEYS.esc);
    await u.waitFor(/qwen3-397b-a17b/);
    await u.press(KEYS.esc);
    await u.waitFor((f) => !f.includes('GET /api/pools'));
  });
});

describe('Billing pane: the pools view, every seat free', () => {
  it('shows "10 of 10 free" whole: a column is as wide as its widest cell', async () => {
    // A sandbox of its own whose one pledge (the demo account's) is cancelled and past its period
    // end: a pledge renews unless cancelled, and other tests here pledge seats.
    const own = await startTestSandbox({ dialect: 'docs-v2' });
    try {
      const status = (await own.call('GET', '/api/billing/status', { token: own.token })).body;
      const pledges = ((status.data ?? status).poolPledges ?? []) as Array<{ id: string }>;
      for (const p of pledges) expect((await own.call('POST', '/api/billing/cancel', { token: own.token, body: { subscriptionId: p.id } })).status).toBe(200);
      await own.call('POST', '/sandbox/clock', { body: { advanceSeconds: 31 * 86_400 } });
      ui?.unmount();
      const u = (ui = renderApp(testServices({ store: noKeychainStore().store, baseUrl: own.url }), { session: readySession(own.url, own.token), columns: 100, rows: 30 }));
      await u.press('3');
      await u.waitFor('Billing');
      await u.press('p');
      await u.waitFor(/kimi26\s+│ Kimi K2\.6/);
      await u.press(KEYS.enter);
      const pool = await u.waitFor('free seats by UTC hour:');
      expect(pool).toMatch(/asia\s+│ 00:00–08:00 UTC\s+│ 10 of 10 free\s+│/);
      expect(pool).not.toMatch(/of 10 fr…/);
    } finally {
      await ui?.end();
      ui = undefined;
      await own.close();
    }
  });
});
