/**
 * A stored key belongs to the service origin it was made for, and no key goes
 * over plain http off loopback without the opt-in. The built CLI logs in against a sandbox
 * (plaintext store, no keychain), then is pointed at a recording listener on another port: the
 * listener must never see the stored key, and keydeck must say it has no key for that service
 * (not that the key was revoked).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { json, startHostileServer, type HostileServer } from '../api/hostile-server.js';
import { makeTempHome, newSandboxUser, runCli, type TempHome } from './harness.js';

let sandbox: RunningSandbox;
let recorder: HostileServer;
let home: TempHome;
let storedKey: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  recorder = await startHostileServer((_req, res) => json(res, 401, { error: { code: 'unauthorized', message: 'who are you' } }));
});
afterAll(async () => {
  await recorder.close();
  await sandbox.close();
});
beforeEach(async () => {
  home = makeTempHome();
  const session = await newSandboxUser(sandbox.url);
  const login = await runCli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { env: home.env(), input: session });
  expect(login.code, login.stderr).toBe(0);
  const file = JSON.parse(readFileSync(path.join(home.configDir, 'credentials.json'), 'utf8')) as Record<string, string>;
  storedKey = file[`default@${new URL(sandbox.url).origin}`]!;
  expect(storedKey).toMatch(/^mk_/);
});
afterEach(() => home.remove());

const sawKey = () => recorder.requests.some((r) => JSON.stringify(r).includes(storedKey) || JSON.stringify(r).includes(storedKey.slice(3)));

describe('a stored key stays with its service', () => {
  it('is used for its own service', async () => {
    const r = await runCli(['keys', 'list'], { env: home.env() });
    expect(r.code, r.stderr).toBe(0);
  });

  for (const how of ['flag', 'env'] as const) {
    it(`is never sent to another origin named by ${how === 'flag' ? '--base-url' : 'KEYDECK_BASE_URL'}; keydeck says it has no key there`, async () => {
      const args = how === 'flag' ? ['--base-url', recorder.url, 'keys', 'list'] : ['keys', 'list'];
      const env = home.env(how === 'env' ? { KEYDECK_BASE_URL: recorder.url } : {});
      for (const command of [args, [...args.slice(0, -2), 'mgmt-keys', 'list'], [...args.slice(0, -2), 'billing', 'credits'], [...args.slice(0, -2), 'auth', 'status']]) {
        const r = await runCli(command, { env });
        expect(r.code).toBe(1);
        expect(r.stderr + r.stdout).toMatch(new RegExp(`no key for profile "default" at ${recorder.url.replace(/[.:/]/g, '\\$&')}`));
        expect(r.stderr + r.stdout).not.toMatch(/revoked|rejected|did not accept/);
      }
      expect(sawKey()).toBe(false);
    });
  }

  it('is not sent to the same host on another port, nor to localhost for 127.0.0.1', async () => {
    const port = new URL(sandbox.url).port;
    const r = await runCli(['--base-url', `http://localhost:${port}`, 'keys', 'list'], { env: home.env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no key for profile "default" at http:\/\/localhost:\d+/);
    expect(sawKey()).toBe(false);
  });

  it('KEYDECK_TOKEN is the user’s explicit choice: it goes where the base URL points', async () => {
    const r = await runCli(['--base-url', recorder.url, 'keys', 'list'], { env: home.env({ KEYDECK_TOKEN: 'mk_ExplicitlyGiven0000000' }) });
    expect(r.code).toBe(1);
    expect(recorder.requests.at(-1)?.headers.authorization).toBe('Bearer mk_ExplicitlyGiven0000000');
    expect(sawKey()).toBe(false);
  });

  it('auth logout for another origin leaves the key of this one', async () => {
    const r = await runCli(['--base-url', recorder.url, 'auth', 'logout'], { env: home.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('nothing to remove');
    expect((await runCli(['keys', 'list'], { env: home.env() })).code).toBe(0);
  });
});

describe('no key over plain http off loopback', () => {
  it('refuses in one sentence naming the opt-in, before anything is sent', async () => {
    const r = await runCli(['--base-url', 'http://keydeck-test.invalid', 'keys', 'list'], { env: home.env({ KEYDECK_TOKEN: 'mk_ExplicitlyGiven0000000' }) });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/plain http:\/\/ to keydeck-test\.invalid.*--allow-insecure-http.*KEYDECK_ALLOW_INSECURE_HTTP=1/);
  });

  it('with the flag or the environment variable, it tries (and fails to resolve the made-up host)', async () => {
    for (const [args, extra] of [
      [['--allow-insecure-http', '--base-url', 'http://keydeck-test.invalid', 'keys', 'list'], {}],
      [['--base-url', 'http://keydeck-test.invalid', 'keys', 'list'], { KEYDECK_ALLOW_INSECURE_HTTP: '1' }],
    ] as const) {
      const r = await runCli(args, { env: home.env({ KEYDECK_TOKEN: 'mk_ExplicitlyGiven0000000', ...extra }) });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toMatch(/Could not reach the service|could not reach/i);
    }
  });

  it('loopback in every spelling is this machine: 127.0.0.0/8, ::1, localhost', async () => {
    const { isLoopbackHost, insecureHttpProblem } = await import('../../src/api/baseUrl.js');
    for (const host of ['127.0.0.1', '127.1.2.3:80', '[::1]:8787', 'localhost:3000', 'LOCALHOST']) expect(isLoopbackHost(host), host).toBe(true);
    for (const url of ['http://127.0.0.2:9', 'http://[::1]:9', 'http://localhost', 'https://api.example.com']) expect(insecureHttpProblem(url), url).toBeUndefined();
    for (const url of ['http://128.0.0.1', 'http://localhost.example.com', 'http://[::2]']) expect(insecureHttpProblem(url), url).toMatch(/--allow-insecure-http/);
    expect(insecureHttpProblem('http://10.0.0.1', true)).toBeUndefined();
  });
});
