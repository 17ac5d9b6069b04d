/**
 * `keydeck mgmt-keys rotate` as the built CLI against the sandbox, with the key in the
 * plaintext file (no keychain here; test/credentials/keychain.test.ts rotates one in the real
 * keychain): the new key is stored where the old one was (mode 0600), accepted by the service,
 * and the old one deleted; never printed. A key from KEYDECK_TOKEN cannot be rotated in place (said
 * so, with what to do). A rotation an earlier keydeck recorded is named at the next start and
 * finished (the kills at every step are test/crash/mgmt-rotate.test.ts). `--token-file` rotates the
 * key of a token file in place, keeping owner and mode, and refuses what it cannot do before
 * anything is created.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManagementKeyListSchema } from '../../src/api/schemas.js';
import { rotationRecord } from '../../src/operations/rotationRecord.js';
import { MgmtRotationRecord } from '../../src/operations/mgmtRotationRecord.js';
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
    expect(await new MgmtRotationRecord(env.KEYDECK_DATA_DIR!).list()).toEqual([]);
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

  it('a rotation an earlier keydeck recorded (in rotations.json) is named at the next start and finished from what the store holds', async () => {
    const session = await sb.fundedUser(0);
    await runLogin(session, 'ops');
    const mk = storedKey();
    const [own] = await listed(mk);
    // What a kill between "created" and "stored" left with the earlier record: a new key nowhere stored.
    const lost = (await sb.call('POST', '/api/keys/management', { token: mk, body: { name: 'ops-r2' } })).body as { id: string; keyPrefix: string };
    // The entry as an earlier keydeck wrote it (its `stage`, `orphans` and `delivered` fields).
    mkdirSync(env.KEYDECK_DATA_DIR!, { recursive: true, mode: 0o700 });
    const at = new Date().toISOString();
    const entry = {
      id: 'legacy-1',
      kind: 'management',
      profile: 'default',
      origin: new URL(sb.url).origin,
      startedAt: at,
      updatedAt: at,
      stage: 'created',
      old: { id: own!.id, name: 'ops', keyPrefix: own!.keyPrefix },
      successor: { name: 'ops-r2', id: lost.id, keyPrefix: lost.keyPrefix },
      orphans: [],
      destinations: [],
      delivered: [],
      targets: [],
    };
    writeFileSync(path.join(env.KEYDECK_DATA_DIR!, 'rotations.json'), `${JSON.stringify({ version: 1, rotations: [entry] })}\n`, { mode: 0o600 });
    const legacy = rotationRecord(env.KEYDECK_DATA_DIR!);

    const list = await cli.run(undefined, ['mgmt-keys', 'list'], env);
    expect(list.stderr).toMatch(
      /warning: the rotation of the management key "ops" .* was interrupted after the new management key was created .*keydeck mgmt-keys rotate --finish` or undo it with `keydeck mgmt-keys rotate --undo`/,
    );
    expect(await legacy.list()).toEqual([]);
    const fin = await cli.run(undefined, ['mgmt-keys', 'rotate', '--finish'], env);
    expect(fin.code, fin.stderr).toBe(0);
    expect(fin.stdout).toMatch(/before the new key was stored: the new key .*, never stored, is deleted \(its value is gone\), and another one is made/);
    const fresh = storedKey();
    const names = (await listed(fresh)).map((k) => [k.name, k.id]);
    expect(names.map(([n]) => n)).toEqual(['ops-r2']);
    expect(names[0]![1]).not.toBe(lost.id);
    expect(await new MgmtRotationRecord(env.KEYDECK_DATA_DIR!).list()).toEqual([]);
  });
});

describe('mgmt-keys rotate --token-file', () => {
  /** A token file holding a new management key of a fresh account: `{ file, key, session }`. */
  async function tokenFile(options: { mode?: number; newline?: boolean; dir?: string } = {}) {
    const session = await sb.fundedUser(0);
    const key = ((await sb.call('POST', '/api/keys/management', { token: session, body: { name: 'exporter' } })).body as { apiKey: string }).apiKey;
    const dir = options.dir ?? mkdtempSync(path.join(cli.home.home, 'etc-'));
    const file = path.join(dir, 'prod');
    writeFileSync(file, `${key}${options.newline === false ? '' : '\n'}`);
    chmodSync(file, options.mode ?? 0o600);
    return { file, key, session };
  }

  it('writes the new key where it was read, keeping owner, mode and the final newline; the old key is deleted; keydeck’s own key is untouched', async () => {
    const mine = await sb.fundedUser(0);
    expect((await runLogin(mine, 'keydeck')).code).toBe(0);
    const own = storedKey();
    const { file, key, session } = await tokenFile({ mode: 0o400 });
    chownSync(file, 65534, 65534); // a service user's file, rotated by root's cron
    const r = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', file, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const fresh = readFileSync(file, 'utf8');
    expect(fresh).toMatch(/^mk_\w+\n$/);
    expect(fresh.trim()).not.toBe(key);
    const st = statSync(file);
    expect([st.mode & 0o777, st.uid, st.gid]).toEqual([0o400, 65534, 65534]);
    expect(JSON.parse(r.stdout)).toMatchObject({ old: { name: 'exporter' }, new: { name: 'exporter-r2' }, tokenFile: file });
    expect(r.stderr).toMatch(/Programs that read .*prod when they start still hold the old key, deleted now: reload them \(keydeck exporter reads its token files again on SIGHUP\)/);
    expect(r.stdout + r.stderr).not.toMatch(FULL_KEY);
    expect((await sb.call('GET', '/api/keys/management', { token: key })).status).toBe(401);
    expect((await listed(session)).map((k) => k.name)).toEqual(['exporter-r2']);
    expect(readdirSync(path.dirname(file))).toEqual(['prod']);
    // keydeck's own stored key was neither used for it nor changed.
    expect(storedKey()).toBe(own);
    expect((await sb.call('GET', '/api/keys/management', { token: own })).status).toBe(200);
  });

  it('is refused before anything is created: systemd’s copy, a file others can read, keydeck’s own key, no such file', async () => {
    const systemd = mkdtempSync(path.join(cli.home.home, 'creds-'));
    const copy = await tokenFile({ dir: systemd });
    const r1 = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', copy.file], { ...env, CREDENTIALS_DIRECTORY: systemd });
    expect(r1.code).toBe(1);
    expect(r1.stderr).toMatch(
      /^keydeck: cannot_rotate: the token file .* is systemd's read-only copy \(in \$CREDENTIALS_DIRECTORY\): rotate the file its LoadCredential= line names.*; nothing was created\.$/m,
    );
    expect((await listed(copy.session)).map((k) => k.name)).toEqual(['exporter']);

    const open = await tokenFile({ mode: 0o640 });
    const r2 = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', open.file], env);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/cannot_rotate: the key file .* is readable by group or others \(mode 0640\).*chmod 600/);
    expect((await listed(open.session)).map((k) => k.name)).toEqual(['exporter']);

    const session = await sb.fundedUser(0);
    expect((await runLogin(session, 'keydeck')).code).toBe(0);
    const same = path.join(mkdtempSync(path.join(cli.home.home, 'etc-')), 'prod');
    writeFileSync(same, `${storedKey()}\n`, { mode: 0o600 });
    const r3 = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', same], env);
    expect(r3.code).toBe(1);
    expect(r3.stderr).toMatch(/cannot_rotate: .*prod holds mk_\w{8}…, the key keydeck itself has stored for profile "default": rotating it here would delete the key keydeck signs in with/);
    expect((await listed(session)).map((k) => k.name)).toEqual(['keydeck']);

    const r4 = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', path.join(cli.home.home, 'missing')], env);
    expect([r4.code, r4.stderr]).toEqual([2, expect.stringMatching(/--token-file: .*missing does not exist/)]);
  });

  // The race itself (links planted while the rotation writes) is test/operations/tokenFileRace.test.ts.
  it.runIf(process.getuid?.() === 0)('as root in the exporter user’s directory (contrib’s layout): writes there as that user, the file stays theirs', async () => {
    const tokens = path.join(mkdtempSync(path.join(cli.home.home, 'etc-')), 'tokens');
    mkdirSync(tokens, { mode: 0o700 });
    chownSync(tokens, 65534, 65534);
    const { file, key, session } = await tokenFile({ dir: tokens });
    chownSync(file, 65534, 65534);
    const r = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', file], env);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').trim()).not.toBe(key);
    const st = statSync(file);
    expect([st.mode & 0o777, st.uid, st.gid]).toEqual([0o600, 65534, 65534]);
    expect(readdirSync(tokens)).toEqual(['prod']);
    expect((await listed(session)).map((k) => k.name)).toEqual(['exporter-r2']);
  });

  it.runIf(process.getuid?.() === 0)(
    'is refused before anything is created where a link could be followed: a link at its name, a directory others may write, one above it of the file’s owner, a file not the directory owner’s',
    async () => {
      const etc = mkdtempSync(path.join(cli.home.home, 'etc-'));
      // A link at the token file's name, to a key file elsewhere.
      const real = await tokenFile();
      const linked = path.join(etc, 'linked');
      symlinkSync(real.file, linked);
      const r1 = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', linked], env);
      expect([r1.code, r1.stderr]).toEqual([1, expect.stringMatching(/linked is a symbolic link: keydeck reads no key through a link; name the file itself/)]);
      expect((await listed(real.session)).map((k) => k.name)).toEqual(['exporter']);

      // A directory above it that group or others may write.
      const shared = path.join(etc, 'shared');
      mkdirSync(path.join(shared, 'tokens'), { recursive: true, mode: 0o700 });
      chmodSync(shared, 0o775);
      const a = await tokenFile({ dir: path.join(shared, 'tokens') });
      const r2 = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', a.file], env);
      expect([r2.code, r2.stderr]).toEqual([
        1,
        expect.stringMatching(
          /the directory .*shared can be written by group or others \(mode 0775\), who could move .*tokens away and put a link in its place: fix it with `chmod go-w .*shared`.*nothing was created/,
        ),
      ]);
      expect((await listed(a.session)).map((k) => k.name)).toEqual(['exporter']);

      // Root in nobody's directory under a directory nobody owns too: nobody could move it away.
      const theirs = path.join(etc, 'home-nobody');
      mkdirSync(path.join(theirs, 'tokens'), { recursive: true, mode: 0o700 });
      chownSync(theirs, 65534, 65534);
      chownSync(path.join(theirs, 'tokens'), 65534, 65534);
      const b = await tokenFile({ dir: path.join(theirs, 'tokens') });
      chownSync(b.file, 65534, 65534);
      const r3 = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', b.file], env);
      expect([r3.code, r3.stderr]).toEqual([
        1,
        expect.stringMatching(
          /the directory .*home-nobody belongs to uid 65534, who could move .*tokens away .*every directory above belongs to root \(run keydeck as that user instead: sudo -u '#65534' keydeck …\)/,
        ),
      ]);
      expect((await listed(b.session)).map((k) => k.name)).toEqual(['exporter']);

      // Root's file in nobody's directory: not nobody's to rotate, nor root's to trust there.
      const tokens = path.join(etc, 'tokens');
      mkdirSync(tokens, { mode: 0o700 });
      chownSync(tokens, 65534, 65534);
      const c = await tokenFile({ dir: tokens });
      const r4 = await cli.run(undefined, ['mgmt-keys', 'rotate', '--token-file', c.file], env);
      expect([r4.code, r4.stderr]).toEqual([1, expect.stringMatching(/prod belongs to uid 0, but its directory to uid 65534, who could have put it there/)]);
      expect((await listed(c.session)).map((k) => k.name)).toEqual(['exporter']);
    },
  );
});

/** `keydeck auth login --token-stdin --insecure-storage` with `token` (a session token makes a key named `name`). */
function runLogin(token: string, name: string | undefined) {
  const args = ['auth', 'login', '--token-stdin', '--insecure-storage', '--base-url', sb.url, ...(name ? ['--name', name] : [])];
  return runCli(args, { env: cli.home.env({ ...env, KEYDECK_BASE_URL: sb.url }), input: token });
}
