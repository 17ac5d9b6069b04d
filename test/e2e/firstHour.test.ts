/**
 * A new user's first hour, the built app in a pseudo-terminal: what a command made with
 * `keydeck --sandbox …` is in the next `keydeck --sandbox`, and a sandbox on this machine reached
 * with `--base-url` wears the SANDBOX badge (a service that is not one stays LIVE).
 */
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../credentials/harness.js';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();

describe('keydeck --sandbox: the TUI and the commands share the demo account', () => {
  it('a key made by `keydeck --sandbox keys create` is in the next `keydeck --sandbox`', { timeout: 60_000 }, async () => {
    const dir = rig.tempDir('keydeck-e2e-shared-');
    const env = cleanEnv(dir);
    const created = await runCli(['--sandbox', 'keys', 'create', '--name', 'made-in-a-shell'], { env });
    expect(created.code, created.stderr).toBe(0);
    const app: PtyApp = rig.start({ args: ['--sandbox'], env, columns: 100, rows: 30 });
    await openDemoAccount(app);
    await app.waitFor('made-in-a-shell');
    // And one made while the TUI is open shows after a refresh, from the same sandbox.
    const second = await runCli(['--sandbox', 'keys', 'create', '--name', 'while-it-is-open'], { env });
    expect(second.code, second.stderr).toBe(0);
    app.write('r');
    await app.waitFor('while-it-is-open');
    expect(path.basename(env.KEYDECK_SANDBOX_DB!)).toBe('sandbox.db');
  });
});

describe('the header badge', () => {
  it('says SANDBOX for a keydeck sandbox reached with --base-url, LIVE for another service on loopback', { timeout: 60_000 }, async () => {
    const sandbox = await startSandbox({ port: 0 });
    const other = http.createServer((req, res) => {
      res.writeHead(req.url === '/api/billing/credits' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(req.url === '/api/billing/credits' ? JSON.stringify({ totalTopUp: 10, remaining: 10, hasCreditKey: false, creditKeyCount: 0 }) : '{}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    try {
      const dir = rig.tempDir('keydeck-e2e-badge-');
      const local = rig.start({ args: ['--base-url', sandbox.url], env: { ...cleanEnv(dir), KEYDECK_TOKEN: sandbox.token }, columns: 100, rows: 30 });
      await local.waitFor('batch-jobs', 20_000);
      expect(local.screen()[0]).toMatch(/^keydeck {2}SANDBOX {3}profile /);

      const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
      const live = rig.start({ args: ['--base-url', url], env: { ...cleanEnv(rig.tempDir('keydeck-e2e-live-')), KEYDECK_TOKEN: 'sess_x' }, columns: 100, rows: 30 });
      await live.waitFor('profile default', 20_000);
      expect(live.screen()[0]).toMatch(/^keydeck {2}LIVE {3}profile /);
    } finally {
      other.close();
      await sandbox.close();
    }
  });
});
