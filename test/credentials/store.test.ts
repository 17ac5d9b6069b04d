/**
 * The credential store in-process with no D-Bus session (this is what a headless machine sees):
 * the keychain is unavailable at once with its reason, storing refuses unless the user consented
 * to the plaintext file, the file is 0600 and atomic, KEYDECK_TOKEN wins and is never stored,
 * consumption keys are refused, and no error ever quotes a secret.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCredentialStore, CredentialStoreError, describeKeychainError, type CredentialStore } from '../../src/credentials/index.js';
import { filesWithSecrets, makeTempHome, type TempHome } from './harness.js';

const MK = 'mk_Q3vX9kLm2Pw7Rn4Yb8Tz1Hc6Jd5Fg0Ae';
const MK2 = 'mk_Z8aB7cD6eF5gH4iJ3kL2mN1oP0qR9sT8';

let home: TempHome;
let file: string;
beforeEach(() => {
  home = makeTempHome();
  file = path.join(home.configDir, 'credentials.json');
});
afterEach(() => {
  expect(filesWithSecrets(home.configDir, [MK, MK2], [file])).toEqual([]);
  home.remove();
});

function store(extra: Record<string, string | undefined> = {}): CredentialStore {
  return createCredentialStore({ env: home.env(extra), platform: 'linux' });
}

async function failure(promise: Promise<unknown>): Promise<CredentialStoreError> {
  const error = await promise.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CredentialStoreError);
  return error as CredentialStoreError;
}

describe('without a D-Bus session', () => {
  it('the keychain is unavailable at once, with a reason a user can act on', async () => {
    const s = store();
    const started = performance.now();
    const status = await s.keychainStatus();
    const wall = performance.now() - started;
    expect(status).toMatchObject({ available: false, backend: 'Secret Service (libsecret)', probeMs: expect.any(Number) as number });
    expect(status.reason).toMatch(/no D-Bus session \(DBUS_SESSION_BUS_ADDRESS is not set\).*dbus-run-session/);
    expect(status.probeMs).toBeLessThan(50);
    expect(wall).toBeLessThan(200); // nothing is started or awaited: no autolaunch wait (measured ~0.1 ms)
    console.info(`keychain probe with no D-Bus: ${wall.toFixed(2)} ms`);
  });

  it('storing refuses without consent: names --insecure-storage and KEYDECK_TOKEN, writes nothing', async () => {
    const error = await failure(store().set('default', MK));
    expect(error.code).toBe('keychain_unavailable');
    expect(error.message).toContain('--insecure-storage');
    expect(error.message).toContain('KEYDECK_TOKEN');
    expect(error.message).not.toContain(MK);
    expect(existsSync(home.configDir)).toBe(false);
  });

  it('with consent the key goes to a 0600 file, per profile; get reports `file` and its path', async () => {
    const s = store();
    expect(await s.set('default', MK, { insecureStorage: true })).toEqual({ source: 'file', path: file });
    expect(await s.set('work', MK2, { insecureStorage: true })).toEqual({ source: 'file', path: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ default: MK, work: MK2 });
    expect(await s.get('default')).toEqual({ token: MK, source: 'file', path: file });
    expect(await s.get('work')).toEqual({ token: MK2, source: 'file', path: file });
    expect(await s.get('other')).toBeUndefined();
  });

  it('refuses a loosened file (readable by others) for reading and writing, naming the chmod', async () => {
    const s = store();
    await s.set('default', MK, { insecureStorage: true });
    chmodSync(file, 0o644);
    await expect(s.get('default')).rejects.toThrow(`chmod 600 ${file}`);
    await expect(s.set('default', MK2, { insecureStorage: true })).rejects.toMatchObject({ code: 'file_untrusted' });
    chmodSync(file, 0o600);
    expect((await s.get('default'))?.token).toBe(MK);
  });

  it('delete removes one profile, and the file with the last one; it says the keychain could not be asked', async () => {
    const s = store();
    await s.set('default', MK, { insecureStorage: true });
    await s.set('work', MK2, { insecureStorage: true });
    const first = await s.delete('work');
    expect(first.removedFrom).toEqual(['file']);
    expect(first.keychainError).toMatch(/no D-Bus session/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ default: MK });
    expect((await s.delete('default')).removedFrom).toEqual(['file']);
    expect(existsSync(file)).toBe(false);
    expect((await s.delete('default')).removedFrom).toEqual([]);
  });
});

describe('KEYDECK_TOKEN', () => {
  it('wins over the stored key, is reported as `env`, and ignoreEnv reads past it', async () => {
    await store().set('default', MK, { insecureStorage: true });
    const s = store({ KEYDECK_TOKEN: ` ${MK2}\n` });
    expect(await s.get('default')).toEqual({ token: MK2, source: 'env' });
    expect(await s.get('anything')).toEqual({ token: MK2, source: 'env' });
    expect(await s.get('default', { ignoreEnv: true })).toEqual({ token: MK, source: 'file', path: file });
  });

  it('an sk_ value is refused with the sentence, never quoted', async () => {
    const error = await failure(store({ KEYDECK_TOKEN: 'sk_AbCdEfGh1234567890abcdef' }).get('default'));
    expect(error.code).toBe('consumption_key');
    expect(error.message).toBe(
      'KEYDECK_TOKEN is a consumption key (sk_…), which only authorizes inference requests; keydeck manages the account and needs a management key (mk_…) or a session token.',
    );
  });
});

describe('tokens the store refuses to keep', () => {
  it('a consumption key, an empty token, a token with a line break inside', async () => {
    const s = store();
    expect((await failure(s.set('default', 'sk_AbCdEfGh1234567890abcdef', { insecureStorage: true }))).code).toBe('consumption_key');
    expect((await failure(s.set('default', '   ', { insecureStorage: true }))).code).toBe('invalid_token');
    expect((await failure(s.set('default', 'mk_abc\ndef', { insecureStorage: true }))).code).toBe('invalid_token');
    expect(existsSync(file)).toBe(false);
  });
});

describe('a broken key file', () => {
  it('is an error naming the file, never quoting it', async () => {
    mkdirSync(home.configDir, { recursive: true });
    writeFileSync(file, `{ "default": ${MK} }`, { mode: 0o600 });
    const error = await failure(store().get('default'));
    expect(error.code).toBe('file_error');
    expect(error.message).toContain(file);
    expect(error.message).not.toContain(MK.slice(3));
    writeFileSync(file, JSON.stringify({ default: 42 }), { mode: 0o600 });
    expect((await failure(store().get('default'))).message).toMatch(/not a map of profile names to keys/);
  });
});

describe('keychain reasons', () => {
  it('a keytar that cannot load says so, with the way to fix it', async () => {
    const s = createCredentialStore({
      env: home.env({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' }),
      platform: 'linux',
      loadKeytar: () => import('keydeck-no-such-module' as string) as never,
    });
    const status = await s.keychainStatus();
    expect(status.available).toBe(false);
    expect(status.reason).toMatch(/^keytar \(the optional keychain module\) is not installed.*npm install --include=optional/);
    const error = await failure(s.set('default', MK));
    expect(error.message).toMatch(/^cannot store the key: keytar .*--insecure-storage.*KEYDECK_TOKEN/);
  });

  it.each([
    ['Cannot autolaunch D-Bus without X11 $DISPLAY', /the D-Bus session does not answer/],
    ['Could not connect: No such file or directory', /the D-Bus session does not answer/],
    ['The name org.freedesktop.secrets was not provided by any .service files', /^no Secret Service runs on the D-Bus session \(org\.freedesktop\.secrets is not provided\)/],
    ['Cannot create an item in a locked collection', /^the keyring is locked: unlock it/],
    ['Object does not exist at path “/org/freedesktop/secrets/collection/login”', /^the Secret Service has no default keyring/],
    ['libsecret-1.so.0: cannot open shared object file: No such file or directory', /^keytar cannot load libsecret.*apt install libsecret-1-0/],
    ["Cannot find module 'keytar'", /^keytar \(the optional keychain module\) is not installed/],
    ['Prompt dismissed', /^the keyring prompt was dismissed/],
    [`Something odd about ${MK}`, /^the Secret Service \(libsecret\) refused: Something odd about mk_Q3vX9kLm…$/],
  ])('%s', (message, expected) => {
    expect(describeKeychainError(message, 'linux')).toMatch(expected);
  });

  it('macOS: a locked keychain in an SSH session', () => {
    expect(describeKeychainError('User interaction is not allowed.', 'darwin')).toMatch(/security unlock-keychain/);
  });
});
