/**
 * `keys rotate … --old deactivate --wait-idle` never deactivates blind: on the demo account
 * (`--sandbox`, whose lists carry `lastUsedAt`) it waits while the old key is in use and leaves it
 * as it is when the bound passes; against a service that does not send `lastUsedAt` (the older
 * pages' dialect) it refuses at once and leaves the old key active.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { openSharedSandbox } from '../../src/sandbox/shared.js';
import { call, startTestSandbox } from '../sandbox/helpers.js';
import { makeTempHome, runCli } from '../credentials/harness.js';

const root = mkdtempSync(path.join(tmpdir(), 'keydeck-wait-idle-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The key a dotenv file holds. */
const keyIn = (file: string) => /OPENAI_API_KEY=(\S+)/.exec(readFileSync(file, 'utf8'))![1]!;

describe.concurrent('keys rotate --wait-idle', () => {
  it('on the demo account: waits while the old key is used, and leaves it active when the bound passes', { timeout: 60_000 }, async ({ expect }) => {
    const home = makeTempHome();
    // The sandbox of the data dir, left open (as a TUI would): the commands join it.
    const open = await openSharedSandbox({ dbPath: path.join(home.home, 'data', 'sandbox.db'), keep: true });
    try {
      const env = home.env({ KEYDECK_DATA_DIR: path.join(home.home, 'data') });
      const dotenv = path.join(home.home, '.env');
      writeFileSync(dotenv, '', { mode: 0o600 });
      const created = await runCli(['--sandbox', 'keys', 'create', '--name', 'web', '--to-file', `${dotenv}:OPENAI_API_KEY`], { env });
      expect(created.code, created.stderr).toBe(0);
      // The application uses the key: one request just now.
      const used = await call(open.url, 'POST', '/v1/chat/completions', { token: keyIn(dotenv), body: { messages: [{ role: 'user', content: 'hi' }] } });
      expect(used.status).toBe(200);
      const rotated = await runCli(['--sandbox', 'keys', 'rotate', 'web', '--old', 'deactivate', '--wait-idle', '2s', '--idle-for', '10m'], { env });
      expect(rotated.code).toBe(1);
      expect(rotated.stdout).toMatch(/^The old key "web \(rotated \d{4}-\d\d-\d\d\)" was last used \d+ s ago/m);
      expect(rotated.stdout).toMatch(/^Waiting until it has not been used for 10 min \(at most 2 s, --wait-idle\)…$/m);
      expect(rotated.stderr).toMatch(/still_in_use: the old key "web \(rotated \d{4}-\d\d-\d\d\)" was last used/);
      const listed = await runCli(['--sandbox', 'keys', 'list', '--json'], { env });
      const old = (JSON.parse(listed.stdout) as Array<{ name: string; isActive: boolean }>).find((k) => k.name.startsWith('web (rotated '));
      expect(old?.isActive).toBe(true);
    } finally {
      await open.close();
      home.remove();
    }
  });

  it('where the service sends no lastUsedAt: refuses at once and leaves the old key active', { timeout: 60_000 }, async ({ expect }) => {
    const sandbox = await startTestSandbox({ dialect: 'docs-v1' });
    const home = makeTempHome();
    try {
      const env = home.env({ KEYDECK_DATA_DIR: path.join(home.home, 'data'), KEYDECK_TOKEN: sandbox.token, KEYDECK_BASE_URL: sandbox.url });
      const created = await runCli(['keys', 'create', '--name', 'web'], { env });
      expect(created.code, created.stderr).toBe(0);
      const target = path.join(home.home, '.env');
      writeFileSync(target, '', { mode: 0o600 });
      const rotated = await runCli(['keys', 'rotate', 'web', '--to-file', `${target}:OPENAI_API_KEY`, '--old', 'deactivate', '--wait-idle', '30s'], { env });
      expect(rotated.code).toBe(1);
      expect(rotated.stderr).toMatch(
        /idle_unknown: the service does not say when a key was last used \(lastUsedAt\), so --wait-idle cannot tell when the old key "web \(rotated [^"]+\)" is idle, and it was left as it is; the rotation stays recorded: run `keydeck keys rotate --finish [^`]+` once whatever uses it has switched, without --wait-idle/,
      );
      const keys = (await call(sandbox.url, 'GET', '/api/keys', { token: sandbox.token })).body as Array<{ name: string; isActive: boolean }>;
      expect(keys.find((k) => k.name.startsWith('web (rotated '))?.isActive).toBe(true);
    } finally {
      home.remove();
      await sandbox.close();
    }
  });
});
