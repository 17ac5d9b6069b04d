/**
 * Pool subscriptions from the command line, the built CLI against the sandbox in the
 * docs-v2 dialect: `keydeck pools [ID]`, `billing status` naming a pledge without a key, and
 * `keys create --subscription ID NAME` (shown once, or delivered to a file; a second attempt
 * refused before sending, with the reason; a bad id refused before anything is sent).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { scripted, UNREACHABLE, type Scripted } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
beforeAll(async () => {
  sb = await startTestSandbox({ dialect: 'docs-v2' });
  cli = scripted(sb.url);
});
afterAll(async () => {
  cli?.home.remove();
  await sb?.close();
});

/** A fresh user with one pool pledge (no key); returns its token and the pledge's id. */
async function pledged(blocks: string[] = ['europe']): Promise<{ token: string; id: string }> {
  const token = await sb.newUser();
  const p = await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks } });
  return { token, id: p.body.id as string };
}

describe('keydeck pools', () => {
  it('lists the pools, shows one pool’s blocks, prints JSON, and says how to subscribe', async () => {
    const [list, one, json, missing] = await Promise.all([
      cli.run(sb.token, ['pools']),
      cli.run(sb.token, ['pools', 'kimi26']),
      cli.run(sb.token, ['pools', '--json']),
      cli.run(sb.token, ['pools', 'nope']),
    ]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^pool\s+model\s+status\s+seats\s+price per seat\s+annual$/m);
    expect(list.stdout).toMatch(/^kimi26\s+Kimi K2\.6\s+active\s+\d+ of 10 pledged\s+from \$39\.00\/mo\s+15 % off yearly$/m);
    expect(list.stdout).toMatch(/qwen3-397b-a17b\s+Qwen3\.5-397B-A17B\s+funding/);
    expect(list.stdout).toContain('keydeck does not subscribe');
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^europe\s+08:00–16:00 UTC\s+\d+ of 10 free\s+\$49\.00\/mo\s+\$499\.80\/yr$/m);
    expect(one.stdout).toMatch(/^asia\s+00:00–08:00 UTC/m);
    expect(JSON.parse(json.stdout).map((p: { slug: string }) => p.slug)).toEqual(['kimi26', 'qwen3-397b-a17b']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^keydeck: not_found: /);
  });
});

describe('a pledge without a key', () => {
  it('billing status names it; keys create --subscription mints its key once; a second attempt is refused before sending', async () => {
    const { token, id } = await pledged();
    const status = await cli.run(token, ['billing', 'status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`has a key: no — mint it: keydeck keys create --subscription ${id} NAME`);
    expect(status.stdout).toMatch(/One subscription has no key yet: kimi26 \(/);
    const made = await cli.run(token, ['keys', 'create', '--subscription', id, 'edge-eu']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`Created the subscription key "edge-eu"`);
    expect(made.stdout).toMatch(/^ {2}sk_[A-Za-z0-9_-]+$/m);
    expect(made.stdout).toContain('the only time the full key is shown');
    const before = (await sb.call('GET', '/api/keys', { token })).body.data.length;
    const again = await cli.run(token, ['keys', 'create', '--subscription', id, '--name', 'second']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^keydeck: subscription_has_key: subscription .* already has an active key, "edge-eu" .*one active key per subscription.*; nothing was sent\.$/m);
    expect((await sb.call('GET', '/api/keys', { token })).body.data.length).toBe(before);
    const unknown = await cli.run(token, ['keys', 'create', '--subscription', 'pledge-that-is-not-there', 'x']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/subscription_unknown: the billing status lists no subscription or pool pledge with id pledge-that-is-not-there/);
  });

  it('delivers the minted key to a file instead of the terminal', async () => {
    const { token, id } = await pledged(['asia']);
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-pools-'));
    try {
      const env = path.join(dir, '.env');
      const r = await cli.run(token, ['keys', 'create', '--subscription', id, 'worker', '--to-file', `${env}:POOL_KEY`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(/sk_[A-Za-z0-9]{8,}/);
      expect(readFileSync(env, 'utf8')).toMatch(/^POOL_KEY=sk_[A-Za-z0-9_-]+$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks the subscription id and the name before sending anything (exit 2)', async () => {
    const [bad, twice] = await Promise.all([
      cli.run('sess_whatever', ['keys', 'create', '--subscription', 'a b/c', 'x'], { KEYDECK_BASE_URL: UNREACHABLE }),
      cli.run('sess_whatever', ['keys', 'create', 'one', '--name', 'two'], { KEYDECK_BASE_URL: UNREACHABLE }),
    ]);
    expect([bad.code, twice.code]).toEqual([2, 2]);
    expect(bad.stderr).toMatch(/invalid_request: --subscription: subscriptionId must be letters, digits/);
    expect(twice.stderr).toMatch(/give the name once/);
  });
});
