/**
 * Which account applies, and accounts that cannot be broken by a stray command (docs/credentials.md
 * "Which profile applies", "Read-only and protected profiles"), the built CLI against a sandbox
 * whose every request is counted (its request log):
 * - a `.keydeck` file in a directory makes `keys list` there use its profile, and `auth status`
 *   says so (lines and `--json`); no command changes the default as a side effect;
 * - a read-only profile (or `--read-only`) refuses every change with exit 3 and one sentence, `--yes`
 *   or not, and nothing reaches the service;
 * - a protected profile's delete or deactivation needs the key's name: `--yes` alone is refused.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, runCli, type CliResult, type TempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
let home: TempHome;
/** Every request the sandbox answered, `METHOD /path status ms`. */
const requests: string[] = [];
/** The requests to the account's API (`/api/…`): what keydeck sends on the user's behalf. */
const apiRequests = () => requests.filter((line) => / \/api\//.test(line));
let prodToken: string;
let devToken: string;

/** Runs `keydeck …args` in `cwd` (default the temp home) with the temp home's config and no token in the environment. */
function run(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {}): Promise<CliResult> {
  return runCli(args, { env: home.env({ KEYDECK_QUIET: '1', ...options.env }), cwd: options.cwd ?? home.home, ...(options.input !== undefined && { input: options.input }) });
}

/** The config file as JSON. */
const config = () => JSON.parse(readFileSync(path.join(home.configDir, 'config.json'), 'utf8')) as { currentProfile?: string; profiles: Record<string, Record<string, unknown>> };

beforeAll(async () => {
  sb = await startTestSandbox({ log: (line) => requests.push(line) });
  home = makeTempHome();
  prodToken = await sb.fundedUser(40);
  devToken = await sb.fundedUser(20);
  // Two accounts on one service, each signed in from its session token (a management key each).
  for (const [profile, token] of [
    ['default', devToken],
    ['prod', prodToken],
  ] as const) {
    const r = await run(['--insecure-storage', '--profile', profile, 'auth', 'login', '--base-url', sb.url, '--token-stdin'], { input: token });
    expect(r.code, r.stderr).toBe(0);
  }
});
afterAll(async () => {
  home?.remove();
  await sb?.close();
});

describe('which profile applies', () => {
  it('a .keydeck file makes keys list there use its profile, and auth status says which rule chose it', async () => {
    const prodKey = await sb.creditKey(prodToken, 'prod-only');
    const project = path.join(home.home, 'acme');
    const deep = path.join(project, 'src', 'lib');
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(project, '.keydeck'), 'prod\n# the production account\n');
    chmodSync(path.join(project, '.keydeck'), 0o644);

    // Outside the project: the default profile's account (no such key there).
    const outside = await run(['keys', 'list', '--json']);
    expect(outside.code, outside.stderr).toBe(0);
    expect((JSON.parse(outside.stdout) as Array<{ id: string }>).map((k) => k.id)).not.toContain(prodKey.id);
    // Below the file: prod's account.
    const inside = await run(['keys', 'list', '--json'], { cwd: deep });
    expect(inside.code, inside.stderr).toBe(0);
    expect((JSON.parse(inside.stdout) as Array<{ id: string }>).map((k) => k.id)).toContain(prodKey.id);

    const status = await run(['auth', 'status'], { cwd: deep });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('profile   prod\n');
    expect(status.stdout).toContain(`chosen by the file ${path.join(project, '.keydeck')}\n`);
    const json = JSON.parse((await run(['auth', 'status', '--json'], { cwd: deep })).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ profile: 'prod', chosenBy: { rule: 'file', path: path.join(project, '.keydeck') }, accepted: true });
    // --profile and KEYDECK_PROFILE come first, and say so.
    expect(JSON.parse((await run(['auth', 'status', '--json', '--profile', 'default'], { cwd: deep })).stdout)).toMatchObject({ profile: 'default', chosenBy: { rule: 'flag' } });
    expect(JSON.parse((await run(['auth', 'status', '--json'], { cwd: deep, env: { KEYDECK_PROFILE: 'default' } })).stdout)).toMatchObject({ profile: 'default', chosenBy: { rule: 'env' } });
    // Outside: the default (the logins above named their profiles, so none was recorded as the default).
    expect(JSON.parse((await run(['auth', 'status', '--json'])).stdout)).toMatchObject({ profile: 'default', chosenBy: { rule: 'default' } });
    expect((await run(['auth', 'status'])).stdout).toContain('chosen by the default (no profile set, so "default")\n');
  });

  it('a .keydeck file others may write, or naming a profile the config does not have, is refused: never skipped', async () => {
    const dir = path.join(home.home, 'shared');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, '.keydeck');
    writeFileSync(file, 'prod\n');
    chmodSync(file, 0o666);
    const before = apiRequests().length;
    const writable = await run(['keys', 'list'], { cwd: dir });
    expect(writable.code).toBe(1);
    expect(writable.stderr).toMatch(
      new RegExp(
        `^keydeck: the profile file ${file} is writable by group or others \\(mode 0666\\): another user could choose which of your profiles keydeck uses in this directory, so keydeck does not use it; fix it with \`chmod 644 ${file}\`\\.\\n$`,
      ),
    );
    chmodSync(file, 0o644);
    writeFileSync(file, 'staging\n');
    const unknown = await run(['keys', 'list'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^keydeck: the file .*\.keydeck chooses the profile "staging", which .*config\.json does not have: add it with `keydeck profile add staging --base-url URL`, or choose another with --profile NAME\.\n$/,
    );
    expect(apiRequests().length).toBe(before);
  });

  it('profileRules choose by the longest directory prefix, on path boundaries', async () => {
    const base = path.join(home.home, 'clients');
    mkdirSync(path.join(base, 'acme', 'api'), { recursive: true });
    mkdirSync(path.join(base, 'acme-old'), { recursive: true });
    const file = path.join(home.configDir, 'config.json');
    const c = config();
    writeFileSync(
      file,
      JSON.stringify({
        ...c,
        profileRules: [
          { path: '~/clients', profile: 'default' },
          { path: '~/clients/acme', profile: 'prod' },
        ],
      }),
    );
    try {
      expect(JSON.parse((await run(['auth', 'status', '--json'], { cwd: path.join(base, 'acme', 'api') })).stdout)).toMatchObject({
        profile: 'prod',
        chosenBy: { rule: 'profileRules', path: '~/clients/acme' },
      });
      // `acme-old` is not below `acme`.
      expect(JSON.parse((await run(['auth', 'status', '--json'], { cwd: path.join(base, 'acme-old') })).stdout)).toMatchObject({
        profile: 'default',
        chosenBy: { rule: 'profileRules', path: '~/clients' },
      });
    } finally {
      writeFileSync(file, JSON.stringify(c));
    }
  });

  it('no command changes the default as a side effect: the first login to another profile, lists, status, profile show', async () => {
    const fresh = makeTempHome();
    try {
      const env = (extra: Record<string, string | undefined> = {}) => fresh.env({ KEYDECK_QUIET: '1', ...extra });
      const login = await runCli(['--insecure-storage', '--profile', 'work', 'auth', 'login', '--base-url', sb.url, '--token-stdin'], { env: env(), input: devToken, cwd: fresh.home });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stdout).toContain('The default profile is still "default": use this one with --profile work');
      const file = path.join(fresh.configDir, 'config.json');
      const written = () => JSON.parse(readFileSync(file, 'utf8')) as { currentProfile?: string };
      expect(written().currentProfile).toBeUndefined();
      for (const args of [
        ['--profile', 'work', 'keys', 'list'],
        ['--profile', 'work', 'auth', 'status'],
        ['profile', 'show', 'work'],
        ['profile', 'list'],
        ['--profile', 'work', 'billing', 'credits'],
      ]) {
        expect((await runCli(args, { env: env(), cwd: fresh.home })).code).toBeLessThan(2);
        expect(written().currentProfile).toBeUndefined();
      }
      // Only `profile use` changes it.
      expect((await runCli(['profile', 'use', 'work'], { env: env(), cwd: fresh.home })).code).toBe(0);
      expect(written().currentProfile).toBe('work');
    } finally {
      fresh.remove();
    }
  });
});

describe('a read-only profile', () => {
  /** Every change a user can ask for, as `keys delete ID --yes` asks it. */
  const changes = (keyId: string): string[][] => [
    ['keys', 'delete', keyId, '--yes'],
    ['keys', 'disable', keyId, '--yes'],
    ['keys', 'enable', keyId],
    ['keys', 'rename', keyId, '--name', 'x'],
    ['keys', 'create', 'new-key'],
    ['keys', 'rotate', keyId, '--old', 'keep', '--yes'],
    ['mgmt-keys', 'create', '--name', 'x'],
    ['mgmt-keys', 'delete', keyId, '--yes'],
    ['mgmt-keys', 'rotate'],
    ['billing', 'topup', '--amount', '10', '--method', 'card_direct', '--yes'],
    ['billing', 'topup', '--amount', '10', '--method', 'usdc'],
    ['billing', 'verify', '--tx', `0x${'ab'.repeat(32)}`, '--amount', '10', '--yes'],
    ['billing', 'cancel', 'sub_1', '--yes'],
    ['autotopup', 'set', '--below', '5', '--amount', '10', '--yes'],
    ['autotopup', 'run', '--once'],
    ['--auto-topup', 'monitor'],
    ['auth', 'logout', '--revoke'],
    // Refused before the policy file is read: it need not exist.
    ['apply', '--yes', '--file', '/nonexistent/keydeck.policy.yaml'],
    ['apply', '--once', '--file', '/nonexistent/keydeck.policy.yaml'],
  ];

  it('refuses keys delete --yes, billing topup, autotopup set, apply and every other change with exit 3, one sentence, nothing sent', async () => {
    const key = await sb.creditKey(prodToken, 'keep-me');
    expect((await run(['profile', 'set', 'prod', '--read-only'])).stdout).toBe('profile "prod" is read-only now\n');
    expect(config().profiles.prod).toMatchObject({ readOnly: true });
    const before = apiRequests().length;
    for (const args of changes(key.id)) {
      const r = await run(['--profile', 'prod', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(
        new RegExp(
          `^keydeck: read_only: the profile "prod" is read-only \\(readOnly in ${home.configDir}/config\\.json\\), so keydeck does not [^;]+; nothing was sent \\(unmark it first with \`keydeck profile set prod --no-read-only\`\\)\\.\\n$`,
        ),
      );
    }
    expect(apiRequests().slice(before)).toEqual([]);
    // Reading goes on.
    const list = await run(['--profile', 'prod', 'keys', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ id: string; isActive: boolean }>).find((k) => k.id === key.id)).toMatchObject({ isActive: true });
    expect((await run(['--profile', 'prod', 'auth', 'status'])).stdout).toContain('marks     read-only: keydeck changes nothing on this account');
    expect((await run(['profile', 'set', 'prod', '--no-read-only'])).code).toBe(0);
    expect(config().profiles.prod).not.toHaveProperty('readOnly');
  });

  it('--read-only does the same for one run, on any profile', async () => {
    const key = await sb.creditKey(devToken, 'dev-key');
    const before = apiRequests().length;
    const r = await run(['--read-only', 'keys', 'delete', key.id, '--yes']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('keydeck: read_only: --read-only was given for profile "default", so keydeck does not delete a key; nothing was sent (run it without --read-only).\n');
    expect(apiRequests().slice(before)).toEqual([]);
  });
});

describe('a protected profile', () => {
  it('needs the key’s name for a delete or a disable: --yes alone is refused, a wrong name too, the right one goes', async () => {
    const key = await sb.creditKey(prodToken, 'prod-api');
    expect((await run(['profile', 'set', 'prod', '--protected'])).code).toBe(0);
    try {
      const before = apiRequests().length;
      const alone = await run(['--profile', 'prod', 'keys', 'delete', key.id, '--yes']);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toBe(
        'keydeck: confirmation_required: the profile "prod" is protected, so a delete or a deactivation needs the key\'s name: add --confirm-name NAME (with --yes); nothing was changed.\n',
      );
      expect(apiRequests().slice(before)).toEqual([]);
      const wrong = await run(['--profile', 'prod', 'keys', 'disable', key.id, '--yes', '--confirm-name', 'prod-ap']);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toBe('keydeck: name_mismatch: --confirm-name "prod-ap" is not the name of that key ("prod-api"); nothing was changed.\n');
      expect(
        apiRequests()
          .slice(before)
          .filter((l) => !l.startsWith('GET ')),
      ).toEqual([]);
      const right = await run(['--profile', 'prod', 'keys', 'delete', key.id, '--yes', '--confirm-name', 'prod-api']);
      expect(right.code, right.stderr).toBe(0);
      expect(right.stdout).toBe(`Deleted the key "prod-api" (id ${key.id}).\n`);
    } finally {
      await run(['profile', 'set', 'prod', '--no-protected']);
    }
  });
});
