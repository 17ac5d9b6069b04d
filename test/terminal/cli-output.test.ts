/**
 * A hostile service's strings never reach the terminal raw through the CLI. Every
 * command that prints service data runs (built CLI, human and `--json` output) against a local
 * server whose names, ids, plans, billing data and error fields carry escape payloads
 * (./payloads.ts); the test asserts on the bytes of stdout and stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startHostileServer, type HostileServer } from '../api/hostile-server.js';
import { scripted, type Scripted } from '../commands/scripted.js';
import { forbiddenIn, HOSTILE_NAME } from './payloads.js';

const TOKEN = 'mk_hostiletest0123456789';
const H = HOSTILE_NAME;
const KEY = { id: 'k_1', name: H, keyPlan: `credits${H}`, keyType: 'credit', isActive: true, createdAt: `2026-01-01T00:00:00Z${H}` };
const MGMT = { id: `m${H}`, name: H, keyPrefix: `mk_abcdefgh${H}`, isActive: true, lastUsedAt: null, createdAt: '2026-01-01T00:00:00Z' };

let server: HostileServer;
let cli: Scripted;

beforeAll(async () => {
  server = await startHostileServer((req, res) => {
    const route = `${req.method} ${req.path}`;
    if (route === 'GET /api/keys') return json(res, 200, [KEY]);
    if (route === 'GET /api/keys/management') return json(res, 200, [MGMT]);
    if (route === 'GET /api/billing/credits') return json(res, 200, { success: true, data: { totalTopUp: 20, remaining: 10, hasCreditKey: true, creditKeyCount: 1, userId: H } });
    if (route === 'GET /api/billing/status') return json(res, 200, { success: true, data: { [H]: H, nested: { list: [H] } } });
    if (route === 'POST /api/keys/credit') return json(res, 200, { id: H, name: H, keyType: 'credit', apiKey: 'sk_created0123456789', isActive: true, createdAt: '2026-01-01T00:00:00Z' });
    if (route === 'POST /api/keys/management') return json(res, 200, { id: H, name: H, keyPrefix: H, apiKey: 'mk_created0123456789' });
    if (route === 'POST /api/billing/topup') {
      const method = (JSON.parse(req.body) as { method: string }).method;
      if (method === 'usdc') return json(res, 200, { success: true, data: { address: `0x${'a'.repeat(40)}`, chain: H, amount: `10${H}` } });
      if (method === 'card_checkout') return json(res, 200, { success: true, data: { sessionUrl: `https://pay.example/${H}`, sessionId: H } });
      return json(res, 200, { success: true, data: { [H]: H } });
    }
    if (route === 'PUT /api/keys/k_1') return json(res, 400, { error: { code: 'invalid_request', message: H, field: `name${H}` } });
    return json(res, 404, { error: { code: 'not_found', message: H } });
  });
  cli = scripted(server.url);
});

afterAll(async () => {
  cli?.home.remove();
  await server?.close();
});

const COMMANDS: readonly (readonly string[])[] = [
  ['keys', 'list'],
  ['mgmt-keys', 'list'],
  ['billing', 'credits'],
  ['billing', 'status'],
  ['keys', 'create', '--name', 'ok'],
  ['mgmt-keys', 'create', '--name', 'ok'],
  ['billing', 'topup', '--amount', '10', '--method', 'usdc'],
  ['billing', 'topup', '--amount', '10', '--method', 'card_checkout'],
  ['billing', 'topup', '--amount', '10', '--method', 'card_direct'],
  ['keys', 'rename', 'k_1', '--name', 'ok'],
];

describe('service strings through the CLI', () => {
  for (const args of COMMANDS) {
    for (const mode of ['human', 'json'] as const) {
      it(`${args.join(' ')} (${mode}) writes no control, bidi or invisible character`, async () => {
        const r = await cli.run(TOKEN, mode === 'json' ? [...args, '--json'] : args);
        expect({ stdout: forbiddenIn(r.stdout), stderr: forbiddenIn(r.stderr) }).toEqual({ stdout: [], stderr: [] });
        const output = r.stdout + r.stderr;
        expect(output).not.toContain('PWNED-TITLE\u0007');
        if (mode === 'json' && r.code === 0) {
          // The escapes are JSON's: the document still parses to what the service sent.
          expect(JSON.stringify(JSON.parse(r.stdout))).toContain(JSON.stringify(H).slice(1, -1));
        }
        if (mode === 'human' && r.code === 0) {
          // The payloads are shown, visibly.
          expect(output).toMatch(/\\u001b\]0;PWNED-TITLE\\u0007|\\u001b/);
        }
      });
    }
  }

  it('shows the error field of a 400 cleaned in the sentence', async () => {
    const r = await cli.run(TOKEN, ['keys', 'rename', 'k_1', '--name', 'ok']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keydeck: invalid_request: .*\(field name/);
    expect(forbiddenIn(r.stderr)).toEqual([]);
  });

  it('keeps the table columns aligned whatever the names hold', async () => {
    const r = await cli.run(TOKEN, ['keys', 'list']);
    const [header, row] = r.stdout.split('\n');
    // "keyType" starts in the header where "credit" starts in the row: widths were measured after sanitising.
    const { default: stringWidth } = await import('string-width');
    expect(stringWidth(row!.slice(0, row!.indexOf('  credit  ') + 2))).toBe(stringWidth(header!.slice(0, header!.indexOf('keyType'))));
  });
});
