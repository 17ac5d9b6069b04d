/**
 * A hostile service's strings never reach the terminal raw through the TUI. The
 * app runs against a local server whose key names, plans, prefixes and billing status carry
 * escape payloads (./payloads.ts); the test asserts on every frame Ink wrote, and that a key
 * named only with invisible characters can still be deleted by typing what the screen shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startHostileServer, type HostileServer } from '../api/hostile-server.js';
import { KEYS } from '../tui/render.js';
import { noKeychainStore, readySession, renderApp, testServices } from '../tui/harness.js';
import { forbiddenIn, HOSTILE_NAME, PAYLOADS } from './payloads.js';

const TOKEN = 'mk_hostiletest0123456789';
const H = HOSTILE_NAME;
const keys = [
  { id: 'k_evil', name: H, keyPlan: `credits${PAYLOADS.title}`, keyType: 'credit', isActive: true, createdAt: '2026-01-02T00:00:00Z' },
  { id: 'k_inv', name: PAYLOADS.invisible, keyPlan: 'credits', keyType: 'credit', isActive: true, createdAt: '2026-01-01T00:00:00Z' },
  { id: 'k_long', name: `${'W'.repeat(2_000_000)}`, keyPlan: 'credits', keyType: 'credit', isActive: true, createdAt: '2025-12-01T00:00:00Z' },
];

let server: HostileServer;

beforeAll(async () => {
  server = await startHostileServer((req, res) => {
    const route = `${req.method} ${req.path}`;
    if (route === 'GET /api/keys') return json(res, 200, keys);
    if (route === 'GET /api/keys/management')
      return json(res, 200, [{ id: 'm1', name: H, keyPrefix: `mk_abcdefgh${PAYLOADS.c1Link}`, isActive: true, lastUsedAt: null, createdAt: '2026-01-01T00:00:00Z' }]);
    if (route === 'GET /api/billing/credits') return json(res, 200, { success: true, data: { totalTopUp: 20, remaining: 10, hasCreditKey: true, creditKeyCount: 1, userId: H } });
    if (route === 'GET /api/billing/status') return json(res, 200, { success: true, data: { [H]: H, plan: PAYLOADS.clear } });
    if (route === 'DELETE /api/keys/k_inv') return json(res, 200, { deleted: true });
    if (route === 'PUT /api/keys/k_evil') return json(res, 400, { error: { code: 'invalid_request', message: H, field: H } });
    return json(res, 404, { error: { code: 'not_found', message: H } });
  });
});
afterAll(async () => {
  await server?.close();
});

function open() {
  const s = noKeychainStore();
  const services = testServices({ store: s.store, baseUrl: server.url, target: 'live' });
  return renderApp(services, { session: readySession(server.url, TOKEN), columns: 100, rows: 30 });
}

const allFrames = (frames: readonly string[]) => frames.join('');

describe('service strings through the TUI', () => {
  it('draws every pane, the details, an error with the field and the billing status without a raw control', async () => {
    const ui = open();
    await ui.waitFor('evil');
    // The names show, made visible; the 2-million-character name is cut before layout.
    expect(ui.lastFrame()).toContain('\\u001b]0;PWNED-TITLE\\u0007');
    expect(ui.lastFrame()).toContain('\\u200b\\u200b');
    // Borders hold: every table line is exactly as wide as the terminal.
    const { default: stringWidth } = await import('string-width');
    for (const line of ui
      .lastFrame()
      .split('\n')
      .filter((l) => l.startsWith('│')))
      expect(stringWidth(line)).toBe(100);
    // An error whose field carries payloads (deactivating refused).
    await ui.press(KEYS.space);
    await ui.waitFor('Deactivate');
    await ui.press(KEYS.tab, KEYS.enter);
    await ui.waitFor(/refused|invalid/);
    await ui.press('2');
    await ui.waitFor('mk_abcdefgh');
    await ui.press('3');
    await ui.waitFor('remaining');
    await ui.press('s');
    await ui.waitFor('plan');
    expect(forbiddenIn(allFrames(ui.frames()))).toEqual([]);
    expect(allFrames(ui.frames())).not.toContain('PWNED-TITLE\u0007');
  });

  it('deletes a key whose name is only invisible characters by typing what the screen shows', async () => {
    const ui = open();
    await ui.waitFor('evil');
    await ui.press('j');
    await ui.waitFor('▶ \\u200b\\u200b');
    await ui.press('d');
    await ui.waitFor('Type the name to confirm: \\u200b\\u200b');
    await ui.type('\\u200b\\u200b');
    await ui.press(KEYS.enter);
    await ui.waitFor('deleted');
    expect(server.requests.some((r) => r.method === 'DELETE' && r.path === '/api/keys/k_inv')).toBe(true);
  });
});
