/**
 * `keydeck auth login | status | logout` without an OS keychain (no D-Bus session), run as the
 * built CLI against the sandbox over loopback. Every test ends with a scan of the config dir: no
 * full key and no session token in any file, except the consented credentials.json.
 * The real-keychain flow is in test/credentials/keychain.test.ts.
 */
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { api, cliPath, filesUnder, filesWithSecrets, makeTempHome, managementKeys, newSandboxUser, runCli, type TempHome } from '../credentials/harness.js';

let sandbox: RunningSandbox;
let home: TempHome;
let session: string;
let credentialsFile: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  home = makeTempHome();
  session = await newSandboxUser(sandbox.url);
  credentialsFile = path.join(home.configDir, 'credentials.json');
});
afterEach(() => {
  // The scan: no full key or session token anywhere under the config dir but the consented file.
  expect(filesWithSecrets(home.configDir, [session], [credentialsFile])).toEqual([]);
  if (existsSync(credentialsFile)) expect(readFileSync(credentialsFile, 'utf8')).not.toContain(session);
  home.remove();
});

function cli(args: string[], options: { input?: string; env?: Record<string, string | undefined> } = {}) {
  return runCli(args, { env: home.env(options.env), ...(options.input !== undefined && { input: options.input }) });
}

/** The entry of `profile`'s key for the sandbox: `<profile>@<origin>` (keys are kept per service origin). */
function account(profile: string): string {
  return `${profile}@${new URL(sandbox.url).origin}`;
}

function storedKeys(): Record<string, string> {
  return JSON.parse(readFileSync(credentialsFile, 'utf8')) as Record<string, string>;
}

describe('auth login without a keychain', () => {
  it('refuses without --insecure-storage: exit 1, nothing created on the service, nothing written, both ways on named', async () => {
    const r = await cli(['auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: `${session}\n` });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no D-Bus session/);
    expect(r.stderr).toContain('--insecure-storage');
    expect(r.stderr).toContain('KEYDECK_TOKEN');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(filesUnder(home.configDir)).toEqual([]);
    expect(await managementKeys(sandbox.url, session)).toEqual([]);
  });

  it('with --insecure-storage turns the session token into a management key in a 0600 file; status reports `file`', async () => {
    const r = await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session });
    expect(r.code, r.stderr).toBe(0);
    const keys = await managementKeys(sandbox.url, session);
    expect(keys).toHaveLength(1);
    // A meaningful, unique name: host, profile and date.
    const defaultName = `keydeck@${hostname()} default ${new Date().toISOString().slice(0, 10)}`;
    expect(keys[0]?.name).toBe(defaultName);
    const prefix = keys[0]!.keyPrefix;
    expect(r.stdout).toContain(`${prefix}…`);
    expect(r.stdout).toContain(credentialsFile);
    expect(r.stdout).toContain('the session token was not stored');
    expect(r.stderr).toMatch(/^warning: .*plaintext/m);

    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
    const stored = storedKeys();
    // Keys are stored per profile and service origin.
    expect(Object.keys(stored)).toEqual([account('default')]);
    expect(stored[account('default')]?.startsWith(prefix)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(stored[account('default')]);

    const config = JSON.parse(readFileSync(path.join(home.configDir, 'config.json'), 'utf8')) as unknown;
    expect(config).toEqual({ version: 1, currentProfile: 'default', profiles: { default: { baseUrl: sandbox.url } } });

    // The base URL is now in the profile: status needs no flag.
    const s = await cli(['auth', 'status', '--json']);
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ profile: 'default', baseUrl: sandbox.url, store: 'file', keyPrefix: prefix, accepted: true, keyName: defaultName });
    expect(s.stderr.trim()).toBe(`warning: using the management key stored in plaintext at ${credentialsFile} (--insecure-storage)`);
    expect(s.stdout).not.toContain(stored[account('default')]);

    // Said at login, in auth status and in doctor; not by every command a cron job runs.
    const list = await cli(['keys', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toBe('');
    // --quiet, or KEYDECK_QUIET=1, silences warnings for scripts; the figures and errors are unchanged.
    for (const quiet of [await cli(['--quiet', 'auth', 'status', '--json']), await cli(['auth', 'status', '--json'], { env: { KEYDECK_QUIET: '1' } })]) {
      expect(quiet.code).toBe(0);
      expect(quiet.stderr).toBe('');
      expect(JSON.parse(quiet.stdout)).toMatchObject({ store: 'file', accepted: true });
    }
    const refused = await cli(['--quiet', 'keys', 'get', 'no-such-key']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^keydeck: /);
  });

  it('stores an mk_ key as given (no new key created) and names it', async () => {
    const created = await api<{ apiKey: string; keyPrefix: string }>(sandbox.url, session, 'POST', '/api/keys/management', { name: 'ci' });
    const r = await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin', '--name', 'ignored'], { input: ` ${created.apiKey} \n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${created.keyPrefix}… ("ci")`);
    expect(r.stdout).not.toContain(created.apiKey);
    expect(storedKeys()).toEqual({ [account('default')]: created.apiKey });
    expect(await managementKeys(sandbox.url, session)).toHaveLength(1);
  });

  it('refuses a consumption key (sk_) with a sentence saying what it is and what keydeck needs', async () => {
    const r = await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: 'sk_AbCdEfGh1234567890abcdef' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/consumption key \(sk_…\).*inference.*management key \(mk_…\) or a session token/);
    expect(r.stderr).not.toContain('AbCdEfGh1234567890');
    expect(filesUnder(home.configDir)).toEqual([]);
  });

  it('refuses a token the service rejects: exit 1, nothing stored', async () => {
    const r = await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: 'sess_not_a_real_token_000000' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keydeck: /);
    expect(r.stderr).not.toContain('sess_not_a_real_token_000000');
    expect(filesUnder(home.configDir)).toEqual([]);
  });

  it('exits 4 when the service does not answer', async () => {
    const r = await cli(['--insecure-storage', 'auth', 'login', '--base-url', 'http://127.0.0.1:9', '--token-stdin'], { input: session });
    expect(r.code).toBe(4);
    expect(filesUnder(home.configDir)).toEqual([]);
  });

  it('needs --base-url when the profile has none and there is no terminal to ask (exit 2)', async () => {
    const r = await cli(['auth', 'login', '--token-stdin'], { input: session });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/profile "default" has no base URL.*--base-url/);
  });

  it('needs --token-stdin when there is no terminal to ask (exit 2)', async () => {
    const r = await cli(['auth', 'login', '--base-url', sandbox.url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--token-stdin');
  });
});

describe('KEYDECK_TOKEN', () => {
  it('is reported as `env` and used without writing anything', async () => {
    const created = await api<{ apiKey: string; keyPrefix: string }>(sandbox.url, session, 'POST', '/api/keys/management', { name: 'env' });
    const r = await cli(['auth', 'status', '--json', '--base-url', sandbox.url], { env: { KEYDECK_TOKEN: created.apiKey } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      profile: 'default',
      chosenBy: { rule: 'default' },
      readOnly: null,
      protected: false,
      baseUrl: sandbox.url,
      store: 'env',
      tokenKind: 'management',
      keyPrefix: created.keyPrefix,
      keyName: 'env',
      accepted: true,
    });
    expect(filesUnder(home.configDir)).toEqual([]);
  });

  it('may hold a session token (no keyPrefix then)', async () => {
    const r = await cli(['auth', 'status', '--json'], { env: { KEYDECK_TOKEN: session, KEYDECK_BASE_URL: sandbox.url } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ store: 'env', tokenKind: 'session', keyPrefix: null, accepted: true });
    expect(r.stdout).not.toContain(session);
  });

  it('refuses an sk_ value (exit 2) with the sentence', async () => {
    const r = await cli(['auth', 'status', '--base-url', sandbox.url], { env: { KEYDECK_TOKEN: 'sk_AbCdEfGh1234567890abcdef' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/KEYDECK_TOKEN is a consumption key \(sk_…\)/);
    expect(r.stderr).not.toContain('AbCdEfGh1234567890');
  });
});

describe('auth status', () => {
  it('exits 1 with store null when no key is stored, saying why the keychain could not be asked', async () => {
    const r = await cli(['auth', 'status', '--json', '--base-url', sandbox.url]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({ profile: 'default', baseUrl: sandbox.url, store: null, keyPrefix: null, accepted: false });
    expect(report.reason).toMatch(/^no key for profile "default" at http:\/\/127\.0\.0\.1:\d+: run `keydeck auth login`, or set KEYDECK_TOKEN; the keychain could not be asked: no D-Bus session/);
  });

  it('exits 1 when the service refuses the stored key (deleted elsewhere)', async () => {
    const login = await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session });
    expect(login.code, login.stderr).toBe(0);
    const [key] = await managementKeys(sandbox.url, session);
    await api(sandbox.url, session, 'DELETE', `/api/keys/management/${key!.id}`);
    const r = await cli(['auth', 'status', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ store: 'file', keyPrefix: key!.keyPrefix, accepted: false });
  });

  it('prints readable lines without --json, never the key', async () => {
    await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session });
    const r = await cli(['auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^profile +default$/m);
    expect(r.stdout).toMatch(/^from +file: .*credentials\.json/m);
    expect(r.stdout).toMatch(/^service +accepts the key$/m);
    expect(r.stdout).not.toContain(storedKeys().default);
  });
});

describe('auth logout', () => {
  it('removes the stored key; the file goes when it is empty', async () => {
    await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session });
    const r = await cli(['auth', 'logout']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/removed the key mk_\w{8}… of profile "default" from the plaintext key file/);
    expect(existsSync(credentialsFile)).toBe(false);
    expect(await managementKeys(sandbox.url, session)).toHaveLength(1); // not revoked
    const again = await cli(['auth', 'logout']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to remove');
  });

  it('--revoke deletes the key on the service first', async () => {
    await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session });
    const r = await cli(['auth', 'logout', '--revoke']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Revoked the management key/);
    expect(await managementKeys(sandbox.url, session)).toEqual([]);
    expect(existsSync(credentialsFile)).toBe(false);
  });

  it('keeps the other profiles in the file', async () => {
    await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session });
    await cli(['--insecure-storage', '--profile', 'work', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session });
    expect(Object.keys(storedKeys()).sort()).toEqual([account('default'), account('work')]);
    const r = await cli(['--profile', 'work', 'auth', 'logout']);
    expect(r.code).toBe(0);
    expect(Object.keys(storedKeys())).toEqual([account('default')]);
    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
  });
});

describe('profiles', () => {
  it('two profiles with their own base URL and key; --profile and KEYDECK_PROFILE choose', async () => {
    const other = await startSandbox({ port: 0 });
    try {
      const otherSession = await newSandboxUser(other.url);
      expect((await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session })).code).toBe(0);
      const work = await cli(['--insecure-storage', '--profile', 'work', 'auth', 'login', '--base-url', other.url, '--token-stdin'], { input: otherSession });
      expect(work.code, work.stderr).toBe(0);

      const config = JSON.parse(readFileSync(path.join(home.configDir, 'config.json'), 'utf8')) as unknown;
      expect(config).toEqual({ version: 1, currentProfile: 'default', profiles: { default: { baseUrl: sandbox.url }, work: { baseUrl: other.url } } });

      const d = JSON.parse((await cli(['auth', 'status', '--json'])).stdout) as Record<string, unknown>;
      const w = JSON.parse((await cli(['auth', 'status', '--json'], { env: { KEYDECK_PROFILE: 'work' } })).stdout) as Record<string, unknown>;
      expect(d).toMatchObject({ profile: 'default', baseUrl: sandbox.url, accepted: true });
      expect(w).toMatchObject({ profile: 'work', baseUrl: other.url, accepted: true });
      expect(d.keyPrefix).not.toBe(w.keyPrefix);
      expect(w.keyPrefix).toBe((await managementKeys(other.url, otherSession))[0]?.keyPrefix);

      // --base-url overrides the profile's: the work key is not known to the first sandbox.
      const crossed = await cli(['--profile', 'work', '--base-url', sandbox.url, 'auth', 'status', '--json']);
      expect(crossed.code).toBe(1);
      expect(JSON.parse(crossed.stdout)).toMatchObject({ profile: 'work', baseUrl: sandbox.url, accepted: false });
    } finally {
      await other.close();
    }
  });

  it('a corrupted config file: status refuses naming the file (exit 2) and leaves it; login backs it up', async () => {
    mkdirSync(home.configDir, { recursive: true });
    const configPath = path.join(home.configDir, 'config.json');
    writeFileSync(configPath, '{ "version": 1, "profiles": { "default": { "baseUrl": "ftp://x" } } }\n');
    const before = readFileSync(configPath, 'utf8');
    const s = await cli(['auth', 'status']);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain(configPath);
    expect(s.stderr).toContain('"profiles.default.baseUrl"');
    expect(readFileSync(configPath, 'utf8')).toBe(before);

    const r = await cli(['--insecure-storage', 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { input: session });
    expect(r.code, r.stderr).toBe(0);
    const backups = filesUnder(home.configDir).filter((f) => path.basename(f).startsWith('config.json.bak-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(backups[0]!, 'utf8')).toBe(before);
    expect(r.stderr).toContain(backups[0]);
    expect(JSON.parse(readFileSync(configPath, 'utf8'))).toMatchObject({ profiles: { default: { baseUrl: sandbox.url } } });
  });
});

describe('interactive login (pseudo-terminal)', () => {
  /** Runs login in a pty, answering each prompt (matched by text) in turn; returns the screen text and exit code. */
  async function interactive(args: string[], answers: Array<[RegExp, string]>): Promise<{ code: number; output: string }> {
    const { spawn } = await import('@lydell/node-pty');
    const env = home.env() as Record<string, string>;
    const pty = spawn(process.execPath, [cliPath(), ...args], { cols: 200, rows: 30, env, name: 'xterm' });
    let output = '';
    const pending = [...answers];
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pty.kill();
        reject(new Error(`interactive login did not finish; screen:\n${output}`));
      }, 15_000);
      pty.onData((data) => {
        output += data;
        const next = pending[0];
        if (next && next[0].test(output)) {
          pending.shift();
          // Typed in pieces, as a person (or a paste) would.
          pty.write(next[1]);
          pty.write('\r');
        }
      });
      pty.onExit(({ exitCode }) => {
        clearTimeout(timer);
        resolve({ code: exitCode, output });
      });
    });
  }

  it('asks for the base URL, then for the token without echoing it', async () => {
    const r = await interactive(
      ['--insecure-storage', 'auth', 'login'],
      [
        [/Base URL of the service for profile "default": /, sandbox.url],
        [/Session token or management key \(mk_…\), input hidden: /, session],
      ],
    );
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain(session);
    expect(r.output).toContain('*'.repeat(session.length));
    expect(r.output).toContain('Logged in: profile "default"');
    expect(await managementKeys(sandbox.url, session)).toHaveLength(1);
    expect(JSON.parse(readFileSync(path.join(home.configDir, 'config.json'), 'utf8'))).toMatchObject({ profiles: { default: { baseUrl: sandbox.url } } });
  });
});
