/**
 * `keydeck doctor` run as the built CLI with no D-Bus session, against the sandbox: one line per
 * check with `ok`/`warn`/`fail`, exit 1 when any fails, each failure saying exactly why; no
 * keychain beside a fallback that works (the plaintext file chosen, KEYDECK_TOKEN) is a warning and
 * exits 0. The passing run with a real keychain is in test/credentials/keychain.test.ts.
 * `keydeck doctor --exporter` is in test/exporter/setup.test.ts.
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
  it('one line per check; no keychain is a warning beside KEYDECK_TOKEN, the rest pass; exit 0', async () => {
    const r = await runCli(['doctor', '--base-url', sandbox.url], { env: home.env({ KEYDECK_TOKEN: mk.apiKey }) });
    expect(r.code, r.stdout).toBe(0);
    const out = lines(r.stdout);
    expect(out.map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['warn keychain', 'ok config', 'ok key', 'ok service', 'ok accepted']);
    expect(out[0]).toMatch(/^warn +keychain +the key comes from KEYDECK_TOKEN, which works without a keychain; .*no D-Bus session \(DBUS_SESSION_BUS_ADDRESS is not set\)/);
    expect(out[2]).toContain(`management key ${mk.keyPrefix}… from KEYDECK_TOKEN (environment)`);
    expect(out[3]).toContain(`${sandbox.url} answers`);
    expect(r.stdout).not.toContain(mk.apiKey);
  });

  it("--json gives { ok, checks } with each check's status", async () => {
    const r = await runCli(['doctor', '--json', '--base-url', sandbox.url], { env: home.env({ KEYDECK_TOKEN: mk.apiKey }) });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean; status: string; detail: string }> };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => [c.name, c.ok, c.status])).toEqual([
      ['keychain', true, 'warn'],
      ['config', true, 'ok'],
      ['key', true, 'ok'],
      ['service', true, 'ok'],
      ['accepted', true, 'ok'],
    ]);
  });

  it('no keychain and no key anywhere: the keychain check fails (nothing works without it); exit 1', async () => {
    const r = await runCli(['doctor', '--base-url', sandbox.url], { env: home.env() });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^fail +keychain +.*no D-Bus session/m);
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

  it('the plaintext file the user chose: the keychain is a warning, doctor exits 0 (a health check for scripts), the file is named', async () => {
    const login = await runCli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { env: home.env(), input: mk.apiKey });
    expect(login.code, login.stderr).toBe(0);
    const r = await runCli(['doctor'], { env: home.env() });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^warn +keychain +the key is read from the plaintext file you chose \(.*credentials\.json, --insecure-storage\), which works without a keychain; .*no D-Bus session/m);
    expect(r.stdout).toMatch(/^ok +key +profile "default": management key mk_\w{8}… from the plaintext file .*credentials\.json \(--insecure-storage\)$/m);
    expect(r.stderr).toContain('warning: using the management key stored in plaintext at');
    expect(r.stdout).toMatch(/^ok +accepted/m);
  });
});
