/**
 * `keydeck mgmt-keys list | create | delete`, run as the built CLI against the sandbox on
 * loopback, in both output modes; deleting the management key keydeck is signed in with signs it
 * out (the stored copy is removed through the credential store; `KEYDECK_TOKEN` only warned about).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreatedManagementKeySchema, ManagementKeyListSchema } from '../../src/api/schemas.js';
import { filesWithSecrets, runCli } from '../credentials/harness.js';
import { type TestSandbox } from '../sandbox/helpers.js';
import { cells, lines, scripted, type Scripted, useScriptedSandbox } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

async function listed(token: string) {
  return ManagementKeyListSchema.parse((await sb.call('GET', '/api/keys/management', { token })).body);
}

async function createKey(token: string, name: string) {
  return CreatedManagementKeySchema.parse((await sb.call('POST', '/api/keys/management', { token, body: { name } })).body);
}

describe('mgmt-keys list and create', () => {
  it('create shows the mk_ value exactly once in either mode; list shows keyPrefix, never the value', async () => {
    const user = await sb.newUser();
    const empty = await cli.run(user, ['mgmt-keys', 'list']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toMatch(/^No management keys yet\./);

    const [human, json] = await Promise.all([cli.run(user, ['mgmt-keys', 'create', '--name', 'ci']), cli.run(user, ['mgmt-keys', 'create', '--name', 'deploy bot', '--json'])]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toBe('');
    const shown = human.stdout.match(/mk_[A-Za-z0-9_-]{12,}/g) ?? [];
    expect(shown).toHaveLength(1);
    expect(human.stdout).toMatch(/^Created the management key "ci" \(mk_[A-Za-z0-9_-]{8}…, id [^)]+\)\.$/m);
    expect(human.stdout).toMatch(/only time the full key is shown/);
    expect(json.code, json.stderr).toBe(0);
    const created = CreatedManagementKeySchema.parse(JSON.parse(json.stdout));
    expect(created.name).toBe('deploy bot');
    expect(created.apiKey.startsWith(created.keyPrefix)).toBe(true);

    // Both values are real keys: the human one lists the account's keys.
    const viaShown = await listed(shown[0]!);
    expect(viaShown.map((k) => k.name).sort()).toEqual(['ci', 'deploy bot']);

    const [table, list] = await Promise.all([cli.run(user, ['mgmt-keys', 'list']), cli.run(user, ['mgmt-keys', 'list', '--json'])]);
    expect(table.code, table.stderr).toBe(0);
    for (const out of [table.stdout, list.stdout]) {
      expect(out).not.toContain(shown[0]);
      expect(out).not.toContain(created.apiKey);
    }
    const keys = ManagementKeyListSchema.parse(JSON.parse(list.stdout));
    expect(keys).toHaveLength(2);
    expect(keys.every((k) => !('apiKey' in k))).toBe(true);
    const rows = lines(table.stdout);
    expect(cells(rows[0]!)).toEqual(['id', 'name', 'keyPrefix', 'isActive', 'lastUsedAt', 'createdAt']);
    const bot = cells(rows.find((r) => r.includes('deploy bot'))!);
    expect(bot.slice(0, 5)).toEqual([created.id, 'deploy bot', `${created.keyPrefix}…`, 'yes', 'never']);
    // With a session token keydeck is not signed in with any of them: no such line.
    expect(table.stdout).not.toContain('keydeck is signed in with');
  });
});

describe('mgmt-keys delete', () => {
  it('needs --yes without a terminal; deletes with it in both modes; an unknown id is not_found (exit 1)', async () => {
    const user = await sb.newUser();
    const [a, b] = [await createKey(user, 'a'), await createKey(user, 'b')];
    const refused = await cli.run(user, ['mgmt-keys', 'delete', a.id]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`\`keydeck mgmt-keys delete ${a.id} --yes\``);
    expect(await listed(user)).toHaveLength(2);

    const [human, json] = await Promise.all([cli.run(user, ['mgmt-keys', 'delete', a.id, '--yes']), cli.run(user, ['mgmt-keys', 'delete', b.id, '--yes', '--json'])]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe(`Deleted the management key "a" (id ${a.id}).\n`);
    expect(human.stderr).toBe('');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ deleted: true });
    expect(await listed(user)).toEqual([]);
    expect((await sb.call('GET', '/api/keys', { token: a.apiKey })).status).toBe(401);

    const again = await cli.run(user, ['mgmt-keys', 'delete', a.id, '-y']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^keydeck: not_found: /);
  });

  it('deleting the key keydeck is signed in with warns, signs keydeck out and removes the stored copy', async () => {
    const user = await sb.newUser();
    const home = scripted(sb.url);
    try {
      const signIn = await runCli(['--insecure-storage', 'auth', 'login', '--token-stdin', '--name', 'this laptop'], {
        env: home.home.env({ KEYDECK_BASE_URL: sb.url }),
        input: user,
      });
      expect(signIn.code, signIn.stderr).toBe(0);
      const credentials = path.join(home.home.configDir, 'credentials.json');
      expect(existsSync(credentials)).toBe(true);
      const other = await createKey(user, 'other');
      const own = (await listed(user)).find((k) => k.name === 'this laptop')!;

      const table = await home.run(undefined, ['mgmt-keys', 'list']);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toContain(`keydeck is signed in with ${own.keyPrefix}… ("this laptop", id ${own.id}).`);

      // Deleting another key changes nothing locally.
      const deleteOther = await home.run(undefined, ['mgmt-keys', 'delete', other.id, '--yes']);
      expect(deleteOther.code, deleteOther.stderr).toBe(0);
      expect(deleteOther.stderr).not.toContain('signs keydeck out');
      // Stored per profile and service origin.
      const account = `default@${new URL(sb.url).origin}`;
      expect(Object.keys(JSON.parse(readFileSync(credentials, 'utf8')) as object)).toEqual([account]);

      const r = await home.run(undefined, ['mgmt-keys', 'delete', own.id, '--yes']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`Deleted the management key "this laptop" (id ${own.id}).\n`);
      expect(r.stderr).toContain(`warning: ${own.id} is the management key keydeck is signed in with (${own.keyPrefix}…, from the key file of profile "default"): deleting it signs keydeck out`);
      expect(r.stderr).toContain(`warning: keydeck is signed out of profile "default": removed the deleted key ${own.keyPrefix}… from the plaintext key file`);
      expect(await listed(user)).toEqual([]);
      const stored = existsSync(credentials) ? (JSON.parse(readFileSync(credentials, 'utf8')) as Record<string, string>) : {};
      expect(Object.keys(stored)).toEqual([]);
      expect(filesWithSecrets(home.home.configDir, [user])).toEqual([]);

      const after = await home.run(undefined, ['keys', 'list']);
      expect(after.code).toBe(1);
      expect(after.stderr).toMatch(/no key for profile "default"/);
    } finally {
      home.home.remove();
    }
  });

  it('with KEYDECK_TOKEN holding the deleted key: a warning before, and one to unset it after', async () => {
    const user = await sb.newUser();
    const mine = await createKey(user, 'env key');
    const r = await cli.run(mine.apiKey, ['mgmt-keys', 'delete', mine.id, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ deleted: true });
    const warnings = lines(r.stderr);
    expect(warnings).toEqual([
      `warning: ${mine.id} is the management key keydeck is signed in with (${mine.keyPrefix}…, from KEYDECK_TOKEN): deleting it signs keydeck out`,
      `warning: KEYDECK_TOKEN still holds the deleted key ${mine.keyPrefix}…: unset it, then run keydeck auth login`,
    ]);
    expect(r.stderr + r.stdout).not.toContain(mine.apiKey);
  });
});
