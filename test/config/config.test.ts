/**
 * The config file and profile resolution: a missing dir, a corrupted file, unknown and invalid
 * fields (each error names the file and the field, never a value), backups before overwriting a
 * broken file, two profiles, and the precedence of flags, environment and `currentProfile`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, configDir, configFilePath, credentialsFilePath, normalizeBaseUrl, readConfig, resolveProfile, updateConfig, writeConfig } from '../../src/config/index.js';
import { filesWithSecrets, makeTempHome, type TempHome } from '../credentials/harness.js';

let home: TempHome;
let file: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  home = makeTempHome();
  env = home.env();
  file = configFilePath(env);
});
afterEach(() => {
  expect(filesWithSecrets(home.configDir)).toEqual([]);
  vi.unstubAllEnvs();
  home.remove();
});

function put(content: unknown): string {
  mkdirSync(home.configDir, { recursive: true });
  const text = typeof content === 'string' ? content : JSON.stringify(content, null, 2);
  writeFileSync(file, text);
  return text;
}

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => new Error('expected a ConfigError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('paths', () => {
  it('KEYDECK_CONFIG_DIR wins; otherwise the platform config dir without a -nodejs suffix', () => {
    expect(configDir(env)).toBe(home.configDir);
    expect(credentialsFilePath(env)).toBe(path.join(home.configDir, 'credentials.json'));
    if (process.platform === 'linux') {
      vi.stubEnv('XDG_CONFIG_HOME', path.join(home.home, 'xdg'));
      expect(configDir({})).toBe(path.join(home.home, 'xdg', 'keydeck'));
    }
  });
});

describe('reading', () => {
  it('a missing directory is an empty config, and writing creates it', async () => {
    expect(existsSync(home.configDir)).toBe(false);
    expect(await readConfig(file)).toMatchObject({ config: { version: 1, profiles: {} }, exists: false, path: file, unknown: { paths: [] } });
    await writeConfig(file, { version: 1, profiles: { default: { baseUrl: 'http://127.0.0.1:8787' } } });
    expect((await readConfig(file)).config.profiles.default?.baseUrl).toBe('http://127.0.0.1:8787');
  });

  it('a corrupted file names the file and where, never its content', async () => {
    put('{ "version": 1,\n  "profiles": { "default": { "baseUrl": "http://x" }, }\n}');
    const error = await configError(readConfig(file));
    expect(error.code).toBe('config_not_json');
    expect(error.message).toBe(`the config file ${file} is not valid JSON (at line 2 column 55): fix it, or move it away to start over.`);
    put('mk_Q3vX9kLm2Pw7Rn4Yb8Tz1Hc6Jd5Fg0Ae');
    const pasted = await configError(readConfig(file));
    expect(pasted.message).not.toContain('Q3vX9kLm');
    put('');
    expect((await configError(readConfig(file))).message).toContain('ends early or is empty');
  });

  it('an unknown field (a newer keydeck’s, a typo) is taken out and said by name, never by value, and kept when keydeck writes the file', async () => {
    put({
      version: 1,
      telemetry: { on: true },
      token: 'sess_secret_value_123',
      profiles: { default: { baseURL: 'http://x', alertBelowUsd: 5, topUpMethods: { card_direct: 'stripe_direct', paypal: 'pp' } } },
    });
    const read = await readConfig(file);
    expect(read.unknown.paths).toEqual(['telemetry', 'token', 'profiles.default.baseURL', 'profiles.default.topUpMethods.paypal']);
    expect(read.config).toEqual({ version: 1, profiles: { default: { alertBelowUsd: 5, topUpMethods: { card_direct: 'stripe_direct' } } } });
    expect(JSON.stringify(read.unknown.paths)).not.toContain('sess_secret_value_123');

    // Another keydeck changes the file: what it does not know stays as it was.
    await updateConfig(file, (c) => void (c.profiles.default!.confirmAboveUsd = 100));
    const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(written).toEqual({
      version: 1,
      telemetry: { on: true },
      token: 'sess_secret_value_123',
      profiles: { default: { alertBelowUsd: 5, confirmAboveUsd: 100, baseURL: 'http://x', topUpMethods: { card_direct: 'stripe_direct', paypal: 'pp' } } },
    });
  });

  it('an unknown field in an auto top-up policy is an error: a charge is made only on a policy understood whole', async () => {
    put({ version: 1, profiles: { default: { autoTopUp: { belowUsd: 5, amountUsd: 20, maxPerDayUsd: 40, maxPerMonthUsd: 200, maxPerWeekUsd: 60, since: '2026-01-01T00:00:00.000Z' } } } });
    const error = await configError(readConfig(file));
    expect(error).toMatchObject({ code: 'config_invalid', path: file, field: 'profiles.default.autoTopUp.maxPerWeekUsd' });
    expect(error.message).toContain('known here: belowUsd, amountUsd, toUsd, maxPerDayUsd, maxPerMonthUsd, method, since');
  });

  it.each([
    [{ version: 2, profiles: {} }, 'version'],
    [{ version: 1 }, 'profiles'],
    [{ version: 1, profiles: { default: { pollIntervalSeconds: 1 } } }, 'profiles.default.pollIntervalSeconds'],
    [{ version: 1, profiles: { default: { alertBelowUsd: -5 } } }, 'profiles.default.alertBelowUsd'],
    [{ version: 1, profiles: { default: { baseUrl: 'ftp://x' } } }, 'profiles.default.baseUrl'],
    [{ version: 1, profiles: { default: { baseUrl: 'https://me:pw@x.example' } } }, 'profiles.default.baseUrl'],
    [{ version: 1, profiles: { 'has space': {} } }, 'profiles.has space'],
    [{ version: 1, currentProfile: '', profiles: {} }, 'currentProfile'],
    [[], '(top level)'],
  ])('invalid %j names field %s', async (content, field) => {
    put(content);
    const error = await configError(readConfig(file));
    expect(error.field).toBe(field);
    expect(error.message).toContain(file);
    expect(error.message).toContain(`"${field}"`);
    expect(error.message).not.toContain('pw@');
  });
});

describe('writing over a broken file', () => {
  it('refuses by default and leaves the file as it was', async () => {
    const before = put('{ nope');
    await configError(updateConfig(file, (c) => void (c.currentProfile = 'x')));
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(home.configDir).filter((f) => f !== '.keydeck.lock')).toEqual(['config.json']);
  });

  it('with onBroken "backup" moves it to config.json.bak-<timestamp> first', async () => {
    const before = put({ version: 1, profiles: { default: { alertBelowUsd: 'ten' } } });
    const result = await updateConfig(file, (c) => void (c.profiles.default = { baseUrl: 'http://127.0.0.1:1' }), { onBroken: 'backup' });
    expect(result.backupPath).toMatch(/config\.json\.bak-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(result.brokenReason).toContain('profiles.default.alertBelowUsd');
    expect(readFileSync(result.backupPath!, 'utf8')).toBe(before);
    expect((await readConfig(file)).config).toEqual({ version: 1, profiles: { default: { baseUrl: 'http://127.0.0.1:1' } } });
  });

  it('a valid file is updated in place, keeping the other profiles', async () => {
    put({ version: 1, currentProfile: 'work', profiles: { work: { baseUrl: 'https://a.example', alertBelowUsd: 5 } } });
    await updateConfig(file, (c) => void (c.profiles.home = { pollIntervalSeconds: 30 }));
    expect((await readConfig(file)).config).toEqual({
      version: 1,
      currentProfile: 'work',
      profiles: { work: { baseUrl: 'https://a.example', alertBelowUsd: 5 }, home: { pollIntervalSeconds: 30 } },
    });
    expect(readdirSync(home.configDir).filter((f) => f !== '.keydeck.lock')).toEqual(['config.json']);
  });

  it('a config.json that is a link is read through it, never written through it: saving says so and changes nothing', async () => {
    const dotfiles = path.join(home.home, 'dotfiles');
    mkdirSync(dotfiles, { mode: 0o700 });
    const real = path.join(dotfiles, 'keydeck.json');
    writeFileSync(real, JSON.stringify({ version: 1, profiles: { work: { baseUrl: 'https://a.example' } } }), { mode: 0o600 });
    mkdirSync(home.configDir, { recursive: true, mode: 0o700 });
    symlinkSync(real, file);
    expect((await readConfig(file)).config.profiles.work?.baseUrl).toBe('https://a.example');
    const error = await configError(updateConfig(file, (c) => void (c.profiles.home = { pollIntervalSeconds: 30 })));
    expect(error.message).toMatch(/config\.json is a symbolic link: keydeck writes no file through a link/);
    expect(JSON.parse(readFileSync(real, 'utf8'))).toEqual({ version: 1, profiles: { work: { baseUrl: 'https://a.example' } } });
  });
});

describe('resolveProfile', () => {
  beforeEach(() => {
    put({
      version: 1,
      currentProfile: 'work',
      profiles: {
        work: { baseUrl: 'https://work.example/', pollIntervalSeconds: 5, alertBelowUsd: 20, confirmAboveUsd: 100 },
        home: { baseUrl: 'https://home.example' },
      },
    });
  });

  it('two profiles: currentProfile by default, --profile and KEYDECK_PROFILE choose', async () => {
    expect(await resolveProfile({}, env)).toEqual({
      name: 'work',
      baseUrl: 'https://work.example',
      baseUrlSource: 'profile',
      savedBaseUrl: 'https://work.example',
      pollIntervalSeconds: 5,
      alertBelowUsd: 20,
      confirmAboveUsd: 100,
      runawayFactor: 5,
      runawayFloorUsdPerHour: 1,
      chainChecks: true,
      configPath: file,
      inConfig: true,
      chosenBy: { rule: 'currentProfile', configPath: file },
      protected: false,
    });
    expect(await resolveProfile({ profile: 'home' }, env)).toMatchObject({ name: 'home', baseUrl: 'https://home.example', pollIntervalSeconds: 15 });
    expect(await resolveProfile({}, { ...env, KEYDECK_PROFILE: 'home' })).toMatchObject({ name: 'home' });
    expect(await resolveProfile({ profile: 'work' }, { ...env, KEYDECK_PROFILE: 'home' })).toMatchObject({ name: 'work' });
  });

  it('--base-url / KEYDECK_BASE_URL override the profile’s', async () => {
    expect(await resolveProfile({ baseUrl: 'http://127.0.0.1:8787/' }, env)).toMatchObject({ name: 'work', baseUrl: 'http://127.0.0.1:8787', baseUrlSource: 'flag' });
    expect(await resolveProfile({}, { ...env, KEYDECK_BASE_URL: 'http://127.0.0.1:9' })).toMatchObject({ baseUrl: 'http://127.0.0.1:9' });
  });

  it('an unknown profile has no base URL and the defaults', async () => {
    const p = await resolveProfile({ profile: 'new' }, env);
    expect(p).toEqual({
      name: 'new',
      pollIntervalSeconds: 15,
      confirmAboveUsd: 500,
      runawayFactor: 5,
      runawayFloorUsdPerHour: 1,
      chainChecks: true,
      configPath: file,
      inConfig: false,
      chosenBy: { rule: 'flag' },
      protected: false,
    });
  });

  it('with no file at all the profile is `default`', async () => {
    const empty = home.env({ KEYDECK_CONFIG_DIR: path.join(home.home, 'nowhere') });
    expect(await resolveProfile({}, empty)).toMatchObject({ name: 'default', inConfig: false });
  });

  it('refuses a bad profile name or base URL with a sentence', async () => {
    expect((await configError(resolveProfile({ profile: '../etc' }, env))).code).toBe('invalid_profile_name');
    expect((await configError(resolveProfile({ baseUrl: 'localhost:8787' }, env))).code).toBe('invalid_base_url');
    expect(() => normalizeBaseUrl('https://user:secret@x.example')).toThrow(/must not contain a user name or password/);
  });
});
