/**
 * `lastUsedAt` of consumption keys (the newer keys page shows it): the sandbox sends it in its
 * default dialect too, keeps it across a restart, dates the demo account's keys by their last
 * charge, and leaves it out in the older pages' dialect, which does not show it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestSandbox } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'keydeck-last-used-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lastUsedAt of consumption keys', () => {
  it('is null until a key is used, then its time, also after a restart (seed dialect)', async () => {
    const dbPath = join(dir, 'restart.db');
    const first = await startTestSandbox({ dbPath });
    const token = await first.fundedUser(10);
    const key = await first.creditKey(token, 'web');
    const idle = await first.creditKey(token, 'idle');
    expect((await first.call('GET', '/api/keys', { token })).body.find((k: { id: string }) => k.id === key.id).lastUsedAt).toBeNull();
    expect((await first.infer(key.apiKey)).status).toBe(200);
    const used = (await first.call('GET', '/api/keys', { token })).body.find((k: { id: string }) => k.id === key.id).lastUsedAt as string;
    expect(used).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await first.close();
    const second = await startTestSandbox({ dbPath });
    try {
      const keys = (await second.call('GET', '/api/keys', { token })).body as Array<{ id: string; lastUsedAt: string | null }>;
      expect(keys.find((k) => k.id === key.id)!.lastUsedAt).toBe(used);
      expect(keys.find((k) => k.id === idle.id)!.lastUsedAt).toBeNull();
    } finally {
      await second.close();
    }
  });

  it('dates the demo account’s keys by their last charge; the keys never charged were never used', async () => {
    const sandbox = await startTestSandbox();
    try {
      const keys = (await sandbox.call('GET', '/api/keys', { token: sandbox.token })).body as Array<{ name: string; lastUsedAt: string | null }>;
      const at = (name: string) => keys.find((k) => k.name === name)!.lastUsedAt;
      const now = Date.now();
      // batch-jobs: five requests an hour apart, the first 9 hours ago; prod-backend: 8, the first 20 hours ago.
      expect(now - Date.parse(at('batch-jobs')!)).toBeGreaterThan(4.5 * 3_600_000);
      expect(now - Date.parse(at('batch-jobs')!)).toBeLessThan(5.5 * 3_600_000);
      expect(now - Date.parse(at('prod-backend')!)).toBeLessThan(13.5 * 3_600_000);
      expect(at('Standard subscription (europe)')).toBeNull();
    } finally {
      await sandbox.close();
    }
  });

  it('is left out in the docs-v1 dialect (the older keys page does not show it)', async () => {
    const sandbox = await startTestSandbox({ dialect: 'docs-v1' });
    try {
      const token = sandbox.token; // the demo account: funded
      const key = await sandbox.creditKey(token, 'web');
      expect((await sandbox.infer(key.apiKey)).status).toBe(200);
      const listed = (await sandbox.call('GET', '/api/keys', { token })).body as Array<Record<string, unknown>>;
      expect(listed.length).toBeGreaterThan(3);
      for (const entry of listed) expect(entry).not.toHaveProperty('lastUsedAt');
      const renamed = await sandbox.call('PUT', `/api/keys/${key.id}`, { token, body: { name: 'web2' } });
      expect(renamed.body).not.toHaveProperty('lastUsedAt');
    } finally {
      await sandbox.close();
    }
  });
});
