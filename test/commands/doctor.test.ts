/**
 * `keydeck doctor` run as the built CLI with no D-Bus session, against the sandbox: one line per
 * check with `ok`/`fail`, exit 1 when any fails, each failure saying exactly why. The passing run
 * with a real keychain is in test/credentials/keychain.test.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { api, filesWithSecrets, makeTempHome, newSandboxUser, runCli, type TempHome } from '../credentials/harness.js';

let sandbox: RunningSandbox;
let home: TempHome;
let session: string;
let mk: { apiKey: string; keyPrefix: string };

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  home = makeTempHome();
  session = await newSandboxUser(sandbox.url);
  mk = await api(sandbox.url, session, 'POST', '/api/keys/management', { name: 'doctor' });
});
afterEach(() => {
  expect(filesWithSecrets(home.configDir, [session, mk.apiKey], [path.join(home.configDir, 'credentials.json')])).toEqual([]);
  home.remove();
});

function lines(stdout: string): string[] {
  return stdout.trimEnd().split('\n');
}

describe('keydeck doctor without a keychain', () => {
  it('one line per check; the keychain fails with its reason, the rest pass with KEYDECK_TOKEN; exit 1', async () => {
    const r = await runCli(['doctor', '--base-url', sandbox.url], { env: home.env({ KEYDECK_TOKEN: mk.apiKey }) });
    expect(r.code).toBe(1);
    const out = lines(r.stdout);
    expect(out.map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['fail keychain', 'ok config', 'ok key', 'ok service', 'ok accepted']);
    expect(out[0]).toMatch(/no D-Bus session \(DBUS_SESSION_BUS_ADDRESS is not set\)/);
    expect(out[2]).toContain(`management key ${mk.keyPrefix}… from KEYDECK_TOKEN (environment)`);
    expect(out[3]).toContain(`${sandbox.url} answers`);
    expect(r.stdout).not.toContain(mk.apiKey);
  });

  it('--json gives { ok, checks }', async () => {
    const r = await runCli(['doctor', '--json', '--base-url', sandbox.url], { env: home.env({ KEYDECK_TOKEN: mk.apiKey }) });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean; detail: string }> };
    expect(report.ok).toBe(false);
    expect(report.checks.map((c) => [c.name, c.ok])).toEqual([
      ['keychain', false],
      ['config', true],
      ['key', true],
      ['service', true],
      ['accepted', true],
    ]);
  });

  it('a key the service refuses: the service answers (HTTP 401), the key is not accepted', async () => {
    const r = await runCli(['doctor', '--base-url', sandbox.url], { env: home.env({ KEYDECK_TOKEN: 'mk_NotARealKeyAtAll00000000' }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ok +service +.* answers \(HTTP 401\)$/m);
    expect(r.stdout).toMatch(/^fail +accepted +/m);
    expect(r.stdout).not.toContain('NotARealKeyAtAll');
  });

  it('no key stored: the service is still asked whether it answers', async () => {
    const r = await runCli(['doctor', '--base-url', sandbox.url], { env: home.env() });
    expect(r.stdout).toMatch(/^fail +key +no key for profile "default" at http:\/\/127\.0\.0\.1:\d+: run `keydeck auth login`, or set KEYDECK_TOKEN$/m);
    expect(r.stdout).toMatch(/^ok +service /m);
    expect(r.stdout).toMatch(/^fail +accepted +not checked: no key$/m);
  });

  it('a service that does not answer, and a profile with no base URL', async () => {
    const down = await runCli(['doctor', '--base-url', 'http://127.0.0.1:9'], { env: home.env({ KEYDECK_TOKEN: mk.apiKey }) });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^fail +service +Could not reach the service at http:\/\/127\.0\.0\.1:9/m);
    expect(down.stdout).toMatch(/^fail +accepted +not checked: the service does not answer$/m);
    const none = await runCli(['doctor'], { env: home.env({ KEYDECK_TOKEN: mk.apiKey }) });
    expect(none.stdout).toMatch(/^fail +service +profile "default" has no base URL: pass --base-url URL/m);
  });

  it('a broken config file fails the config check, naming the file and the field', async () => {
    mkdirSync(home.configDir, { recursive: true });
    const file = path.join(home.configDir, 'config.json');
    writeFileSync(file, JSON.stringify({ version: 1, profiles: { default: { pollIntervalSeconds: 0 } } }));
    const r = await runCli(['doctor', '--base-url', sandbox.url], { env: home.env({ KEYDECK_TOKEN: mk.apiKey }) });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^fail +config +the config file ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} has an invalid field "profiles.default.pollIntervalSeconds"`, 'm'));
  });

  it('a key from the plaintext file is named, with the warning on stderr', async () => {
    const login = await runCli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { env: home.env(), input: mk.apiKey });
    expect(login.code, login.stderr).toBe(0);
    const r = await runCli(['doctor'], { env: home.env() });
    expect(r.stdout).toMatch(/^ok +key +profile "default": management key mk_\w{8}… from the plaintext file .*credentials\.json \(--insecure-storage\)$/m);
    expect(r.stderr).toContain('warning: using the management key stored in plaintext at');
    expect(r.stdout).toMatch(/^ok +accepted/m);
  });
});
