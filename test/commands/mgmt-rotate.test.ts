/**
 * `keydeck mgmt-keys rotate` (issue 26) as the built CLI against the sandbox, with the key in the
 * plaintext file (no keychain here; test/credentials/keychain.test.ts rotates one in the real
 * keychain): the new key is stored where the old one was (mode 0600), accepted by the service,
 * and the old one deleted; never printed. A key from KEYDECK_TOKEN cannot be rotated in place (said
 * so, with what to do). A rotation interrupted after the new key was created but before it was
 * stored is named at the next start and finished (the lost key deleted, another made); one
 * interrupted after storing is finished by deleting the old key.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManagementKeyListSchema } from '../../src/api/schemas.js';
import { RotationRecord } from '../../src/delivery/rotationRecord.js';
import { runCli } from '../credentials/harness.js';
import type { TestSandbox } from '../sandbox/helpers.js';
import { FULL_KEY, type Scripted, useScriptedSandbox } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

let env: Record<string, string>;
let credentials: string;
beforeEach(() => {
  const dir = mkdtempSync(path.join(cli.home.home, 'case-'));
  env = { KEYDECK_CONFIG_DIR: path.join(dir, 'config'), KEYDECK_DATA_DIR: path.join(dir, 'data') };
  credentials = path.join(env.KEYDECK_CONFIG_DIR!, 'credentials.json');
});

const storedKey = () => Object.values(JSON.parse(readFileSync(credentials, 'utf8')) as Record<string, string>)[0]!;
const listed = async (token: string) => ManagementKeyListSchema.parse((await sb.call('GET', '/api/keys/management', { token })).body);

describe('mgmt-keys rotate', () => {
  it('replaces the key keydeck uses: the new one stored where the old was (0600), checked, the old one deleted; never printed', async () => {
    const session = await sb.fundedUser(0);
    const r0 = await runLogin(session, 'cron');
    expect(r0.code, r0.stderr).toBe(0);
    const old = storedKey();
    const r = await cli.run(undefined, ['mgmt-keys', 'rotate'], env);
    expect(r.code, r.stderr).toBe(0);
    const fresh = storedKey();
    expect(fresh).not.toBe(old);
    expect(fresh).toMatch(/^mk_/);
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(r.stdout).toMatch(/^Created the management key "cron-r2" \(mk_\w{8}…\)\.$/m);
    expect(r.stdout).toMatch(/^Stored it in the plaintext key file .*credentials\.json \(mode 0600, as before\)\.$/m);
    expect(r.stdout).toMatch(/^The service accepts it\.$/m);
    expect(r.stdout).toMatch(/^Deleted the old management key "cron" \(mk_\w{8}…\): keydeck now uses mk_\w{8}…\.$/m);
    expect(r.stdout + r.stderr).not.toMatch(FULL_KEY);
    expect((await sb.call('GET', '/api/keys/management', { token: old })).status).toBe(401);
    expect((await listed(fresh)).map((k) => k.name)).toEqual(['cron-r2']);
    // keydeck goes on with it, and a second rotation (from cron, say) works the same way.
    const again = await cli.run(undefined, ['mgmt-keys', 'rotate', '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ old: { name: 'cron-r2' }, new: { name: 'cron-r3' }, storedIn: 'file' });
    expect(await new RotationRecord(env.KEYDECK_DATA_DIR!).list()).toEqual([]);
  });

  it('a key from KEYDECK_TOKEN cannot be rotated in place: it says so and what to do; nothing is created', async () => {
    const session = await sb.fundedUser(0);
    await runLogin(session, 'ci');
    const mk = storedKey();
    const r = await cli.run(mk, ['mgmt-keys', 'rotate'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keydeck: cannot_rotate: the key comes from KEYDECK_TOKEN, which keydeck cannot change .*keydeck mgmt-keys create --name NAME --json/m);
    expect((await listed(mk)).map((k) => k.name)).toEqual(['ci']);
  });

  it('interrupted after the new key was created (never stored): named at the next start, then --finish deletes it and makes another', async () => {
    const session = await sb.fundedUser(0);
    await runLogin(session, 'ops');
    const mk = storedKey();
    const [own] = await listed(mk);
    // The state a kill between "created" and "stored" leaves: a new key on the service, nowhere stored.
    const lost = (await sb.call('POST', '/api/keys/management', { token: mk, body: { name: 'ops-r2' } })).body as { id: string; keyPrefix: string };
    const record = new RotationRecord(env.KEYDECK_DATA_DIR!);
    const r0 = await record.start({ kind: 'management', profile: 'default', origin: new URL(sb.url).origin, old: { id: own!.id, name: 'ops', keyPrefix: own!.keyPrefix }, successor: { name: 'ops-r2' } });
    await record.update(r0.id, { stage: 'created', successor: { name: 'ops-r2', id: lost.id, keyPrefix: lost.keyPrefix } });

    const list = await cli.run(undefined, ['mgmt-keys', 'list'], env);
    expect(list.stderr).toMatch(/warning: the rotation of the management key "ops" .* was interrupted after the new management key was created, before it was stored .*keydeck mgmt-keys rotate --finish` or undo it with `keydeck mgmt-keys rotate --undo`/);
    const fin = await cli.run(undefined, ['mgmt-keys', 'rotate', '--finish'], env);
    expect(fin.code, fin.stderr).toBe(0);
    expect(fin.stdout).toMatch(/never stored and its value is gone; it is deleted and another one is made/);
    const fresh = storedKey();
    const names = (await listed(fresh)).map((k) => [k.name, k.id]);
    expect(names.map(([n]) => n)).toEqual(['ops-r2']);
    expect(names[0]![1]).not.toBe(lost.id);
    expect(await record.list()).toEqual([]);
  });

  it('interrupted after the new key was stored: --finish checks it and deletes the old one', async () => {
    const session = await sb.fundedUser(0);
    await runLogin(session, 'old');
    const oldKey = storedKey();
    const [own] = await listed(oldKey);
    // Stored (as a login with the new key stores it), the old one not yet deleted.
    const created = (await sb.call('POST', '/api/keys/management', { token: oldKey, body: { name: 'old-r2' } })).body as { id: string; keyPrefix: string; apiKey: string };
    expect((await runLogin(created.apiKey, undefined)).code).toBe(0);
    const record = new RotationRecord(env.KEYDECK_DATA_DIR!);
    const r0 = await record.start({ kind: 'management', profile: 'default', origin: new URL(sb.url).origin, old: { id: own!.id, name: 'old', keyPrefix: own!.keyPrefix }, successor: { name: 'old-r2' } });
    await record.update(r0.id, { stage: 'stored', successor: { name: 'old-r2', id: created.id, keyPrefix: created.keyPrefix }, storedIn: 'file' });
    const fin = await cli.run(undefined, ['mgmt-keys', 'rotate', '--finish'], env);
    expect(fin.code, fin.stderr).toBe(0);
    expect(fin.stdout).toMatch(/^Deleted the old management key "old"/m);
    expect((await listed(created.apiKey)).map((k) => k.name)).toEqual(['old-r2']);
    expect(await record.list()).toEqual([]);
  });
});

/** `keydeck auth login --token-stdin --insecure-storage` with `token` (a session token makes a key named `name`). */
function runLogin(token: string, name: string | undefined) {
  const args = ['auth', 'login', '--token-stdin', '--insecure-storage', '--base-url', sb.url, ...(name ? ['--name', name] : [])];
  return runCli(args, { env: cli.home.env({ ...env, KEYDECK_BASE_URL: sb.url }), input: token });
}
