/**
 * At the last step: the built app in a pseudo-terminal against a hostile
 * server; the bytes the app writes to the terminal (every frame, every pane, the details, an
 * error, the billing status) carry no OSC (title, clipboard, hyperlink), no device query, no C1
 * or bidi control, no zero-width character; the title payload is shown as text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startHostileServer, type HostileServer } from '../api/hostile-server.js';
import { startApp } from '../e2e/pty.js';
import { isolatedEnv } from '../resilience/harness.js';
import { HOSTILE_NAME, PAYLOADS } from './payloads.js';

const H = HOSTILE_NAME;
let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer((req, res) => {
    const route = `${req.method} ${req.path}`;
    if (route === 'GET /api/keys') return json(res, 200, [{ id: 'k_evil', name: H, keyPlan: `credits${PAYLOADS.clipboard}`, keyType: 'credit', isActive: true, createdAt: '2026-01-02T00:00:00Z' }]);
    if (route === 'GET /api/keys/management')
      return json(res, 200, [{ id: 'm1', name: H, keyPrefix: `mk_abcdefgh${PAYLOADS.c1Link}`, isActive: true, lastUsedAt: null, createdAt: '2026-01-01T00:00:00Z' }]);
    if (route === 'GET /api/billing/credits') return json(res, 200, { success: true, data: { totalTopUp: 20, remaining: 10, hasCreditKey: true, creditKeyCount: 1, userId: H } });
    if (route === 'GET /api/billing/status') return json(res, 200, { success: true, data: { [H]: H } });
    if (route === 'PUT /api/keys/k_evil') return json(res, 400, { error: { code: 'invalid_request', message: H, field: H } });
    return json(res, 404, { error: { code: 'not_found', message: H } });
  });
});
afterAll(async () => {
  await server.close();
});

/** OSC, DCS/APC/PM/SOS, device queries, C1, bidi and zero-width characters in raw output. */
const FORBIDDEN_BYTES = /\u001b[\]PX^_]|\u001b\[[0-9;?]*[nc]|[\u0080-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

describe('the built TUI against a hostile service', () => {
  it('writes no escape payload of the service to the terminal', { timeout: 60_000 }, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-pty-hostile-'));
    const app = startApp({ env: isolatedEnv(dir, { KEYDECK_BASE_URL: server.url, KEYDECK_TOKEN: 'mk_PtyHostile000000000000' }), columns: 100, rows: 30 });
    t.onTestFinished(async () => {
      app.kill('SIGKILL');
      await Promise.race([app.exited, new Promise((r) => setTimeout(r, 2000))]);
      rmSync(dir, { recursive: true, force: true });
    });
    await app.waitFor('evil', 20_000);
    expect(app.screenText()).toContain('\\u001b]0;PWNED-TITLE\\u0007');
    app.write(' ');
    await app.waitFor('Deactivate');
    app.write('\t\r');
    await app.waitFor(/refused|invalid/);
    app.write('2');
    await app.waitFor('mk_abcdefgh');
    app.write('3');
    await app.waitFor('remaining');
    app.write('s');
    await app.waitFor(/evil/);
    const raw = app.output();
    const found = FORBIDDEN_BYTES.exec(raw);
    expect(found ? JSON.stringify(raw.slice(Math.max(0, found.index - 40), found.index + 40)) : null).toBeNull();
    expect(raw).not.toContain('PWNED-TITLE\u0007');
  });
});
