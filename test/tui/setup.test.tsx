/**
 * The guided first-time setup against a real sandbox: from a session token to the Keys pane,
 * with no keychain (this session only / plaintext file / quit for KEYDECK_TOKEN), refusing an
 * sk_, accepting an existing mk_, and the sandbox's one-keystroke demo token.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, type TuiHandle } from './render.js';
import { noKeychainStore, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';

let sb: TestSandbox;
let ui: TuiHandle | undefined;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});
function store() {
  const s = noKeychainStore();
  return s;
}

const MK = /mk_[A-Za-z0-9_-]{16,}/;

describe('guided setup', () => {
  it('walks from a session token to the Keys pane for this session only: asked before any key is created, none is', async () => {
    const token = await sb.fundedUser(25);
    const { store: credentials, dir } = store();
    const saved: string[] = [];
    const services = testServices({ store: credentials, target: 'live', baseUrl: sb.url, saveBaseUrl: async (u) => void saved.push(u) });
    ui = renderApp(services);

    // Step 1: the service, prefilled with the profile's base URL.
    await ui.waitFor('Where is the service?');
    expect(ui.lastFrame()).toContain(sb.url);
    await ui.press(KEYS.enter);

    // Step 2: a consumption key is refused, in words.
    await ui.waitFor('Your token');
    await ui.type('sk_live_not_for_keydeck');
    await ui.press(KEYS.enter);
    await ui.waitFor('consumption key (sk_…)');
    for (let i = 0; i < 'sk_live_not_for_keydeck'.length; i++) await ui.press(KEYS.backspace);
    await ui.type(token);
    // Masked while typed.
    expect(ui.lastFrame()).not.toContain(token);
    await ui.press(KEYS.enter);

    // No keychain: where the key would go is asked before anything is created.
    await ui.waitFor('Where to keep the key');
    expect(ui.lastFrame()).toMatch(/keychain is unavailable/i);
    expect(ui.lastFrame()).toContain('--insecure-storage');
    // The choices' descriptions, wrapped under themselves: no line starts with the space it broke at.
    const lines = ui.lastFrame().split('\n');
    const details = lines.slice(lines.findIndex((l) => l.includes('1  Store it in a plaintext file'))).filter((l) => /^ {5}/.test(l));
    expect(details.length).toBeGreaterThan(3);
    for (const line of details) expect(line).toMatch(/^ {5}\S/);
    await ui.press('2');

    // Step 4: the Keys pane, with the session token in memory; no management key was made.
    await ui.waitFor('no keys yet: press n');
    expect(ui.lastFrame()).toContain('this session only');
    expect(ui.lastFrame()).toContain('1 Keys');
    await ui.waitFor('$25.00 left');
    expect(await sb.client(token).managementKeys.list()).toEqual([]);
    for (const frame of ui.frames()) expect(frame).not.toMatch(MK);
    // Nothing was written: no credential file; the unchanged URL was not re-saved.
    expect(existsSync(path.join(dir, 'credentials.json'))).toBe(false);
    expect(saved).toEqual([]);
    expect(await credentials.get('test', { origin: new URL(sb.url).origin })).toBeUndefined();
  });

  it('stores the key in the plaintext file (mode 0600) when chosen, warns in the header, and saves the address', async () => {
    const token = await sb.newUser();
    const { store: credentials, dir } = store();
    const saved: string[] = [];
    const services = testServices({ store: credentials, target: 'live', insecureStorage: true, saveBaseUrl: async (u) => void saved.push(u) });
    ui = renderApp(services);
    await ui.waitFor('Where is the service?');
    await ui.type('ftp://example.com');
    await ui.press(KEYS.enter);
    await ui.waitFor('must start with http:// or https://');
    for (let i = 0; i < 'ftp://example.com'.length; i++) await ui.press(KEYS.backspace);
    await ui.type(`${sb.url}/`);
    await ui.press(KEYS.enter);
    await ui.waitFor('Your token');
    await ui.type(token);
    await ui.press(KEYS.enter);
    // --insecure-storage pre-selects the file: enter takes it, before the key is created.
    const choice = await ui.waitFor('Where to keep the key');
    expect(choice).toMatch(/▶ 1 {2}Store it in a plaintext file/);
    await ui.press(KEYS.enter);
    await ui.waitFor('Name the management key');
    await ui.press(KEYS.enter);
    const mk = MK.exec(await ui.waitFor(MK))![0];
    await ui.press('y');
    await ui.waitFor('stored in plaintext');
    const stored = await credentials.get('test', { origin: new URL(sb.url).origin });
    expect(stored).toMatchObject({ token: mk, source: 'file' });
    expect(statSync(path.join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    // The address set up against is saved in the profile (normalised), never a secret.
    expect(saved).toEqual([sb.url]);
  });

  it('saves the address given with --base-url once setup is done there', async () => {
    const token = await sb.newUser();
    const { store: credentials } = store();
    const saved: string[] = [];
    const services = testServices({ store: credentials, target: 'live', insecureStorage: true, baseUrl: sb.url, savedBaseUrl: null, saveBaseUrl: async (u) => void saved.push(u) });
    ui = renderApp(services);
    await ui.waitFor('Where is the service?');
    await ui.press(KEYS.enter);
    await ui.waitFor('Your token');
    await ui.type(token);
    await ui.press(KEYS.enter);
    await ui.waitFor('Where to keep the key');
    await ui.press(KEYS.enter);
    await ui.waitFor('Name the management key');
    await ui.press(KEYS.enter);
    await ui.waitFor(MK);
    await ui.press('y');
    await ui.waitFor('stored in plaintext');
    expect(saved).toEqual([sb.url]);
  });

  it('the demo account signs in by itself; its setup (S) offers the demo token with one keystroke; quitting at the storage choice creates nothing', async () => {
    const { store: credentials } = store();
    const before = (await sb.client(sb.demoToken).managementKeys.list()).length;
    const services = testServices({ store: credentials, target: 'sandbox', baseUrl: sb.url, demoToken: sb.demoToken });
    ui = renderApp(services);
    // No setup screen: the Keys pane of the demo account, and no keychain warning.
    await ui.waitFor('batch-jobs');
    expect(ui.lastFrame()).toContain('demo session token (kept in the data dir)');
    expect(ui.lastFrame()).not.toMatch(/keychain|Your token/);
    await ui.press('S');
    await ui.waitFor('Press enter to use the sandbox’s demo session token');
    expect(ui.lastFrame()).toContain('SANDBOX');
    expect(ui.lastFrame()).not.toContain('Where is the service?');
    await ui.press(KEYS.enter);
    await ui.waitFor('Where to keep the key');
    await ui.press('3');
    // "Quit and set KEYDECK_TOKEN": the exit site is asked to quit, with instructions and no key in them.
    expect(services.exits).toHaveLength(1);
    expect(services.exits[0]!.code).toBe(0);
    expect(services.exits[0]!.message).toContain('KEYDECK_TOKEN');
    expect(services.exits[0]!.message).toContain('nothing was created');
    expect(services.exits[0]!.message).not.toMatch(MK);
    expect(await sb.client(sb.demoToken).managementKeys.list()).toHaveLength(before);
  });

  it('a key stored for another service is never sent to this one: setup opens for this service, and names the key it would replace only for its own', async () => {
    const token = await sb.newUser();
    const { store: credentials } = store();
    const created = await sb.client(token).managementKeys.create({ name: 'stored' });
    // Stored for the sandbox's origin; keydeck is then pointed (as with --base-url) at another origin.
    await credentials.set('test', created.apiKey, { origin: new URL(sb.url).origin, insecureStorage: true });
    const other = sb.url.replace('127.0.0.1', 'localhost');
    const services = testServices({ store: credentials, target: 'live', baseUrl: other, savedBaseUrl: sb.url });
    ui = renderApp(services);
    await ui.waitFor('Where is the service?');
    expect(ui.lastFrame()).not.toMatch(/rejected|revoked/);
    await ui.press(KEYS.enter);
    await ui.waitFor('Your token');
    expect(ui.lastFrame()).not.toContain('already stored');

    // Pointed at its own service, the same setup (after S, say) names the key it would replace.
    ui.unmount();
    ui = renderApp(testServices({ store: credentials, target: 'live', baseUrl: sb.url }), { session: { phase: 'setup', baseUrl: sb.url, rejected: false } });
    await ui.waitFor('Where is the service?');
    await ui.press(KEYS.enter);
    await ui.waitFor('Your token');
    await ui.waitFor(`A key (${created.keyPrefix}…) is already stored for this service`);
  });

  it('takes an existing mk_ as it is: no new management key is created', async () => {
    const token = await sb.newUser();
    const created = await sb.client(token).managementKeys.create({ name: 'existing' });
    const { store: credentials } = store();
    const services = testServices({ store: credentials, target: 'live', baseUrl: sb.url });
    ui = renderApp(services);
    await ui.waitFor('Where is the service?');
    await ui.press(KEYS.enter);
    await ui.waitFor('Your token');
    await ui.type(created.apiKey);
    await ui.press(KEYS.enter);
    await ui.waitFor('Where to keep the key');
    await ui.press('2');
    await ui.waitFor(`key ${created.keyPrefix}`);
    expect(await sb.client(token).managementKeys.list()).toHaveLength(1);
  });

  it('says so when the service rejects the token, and stays on the token step', async () => {
    const { store: credentials } = store();
    ui = renderApp(testServices({ store: credentials, target: 'live', baseUrl: sb.url }));
    await ui.waitFor('Where is the service?');
    await ui.press(KEYS.enter);
    await ui.waitFor('Your token');
    await ui.type('not-a-real-session-token');
    await ui.press(KEYS.enter);
    await ui.waitFor('the service rejected this token');
    expect(ui.lastFrame()).toContain('Your token');
  });

  it('quitting to set KEYDECK_TOKEN says a session token does, and keeps the address typed; the example address is the real service’s', async () => {
    const token = await sb.fundedUser(10);
    const { store: credentials } = store();
    const saved: string[] = [];
    const services = testServices({ store: credentials, target: 'live', savedBaseUrl: null, saveBaseUrl: async (u) => void saved.push(u) });
    ui = renderApp(services);
    await ui.waitFor('Where is the service?');
    // Empty (the example shows as the placeholder where there is colour): the real service's address.
    await ui.press(KEYS.enter);
    await ui.waitFor('type the service’s address, e.g. https://api.cheapestinference.com');
    await ui.type(sb.url);
    await ui.press(KEYS.enter);
    await ui.waitFor('Your token');
    await ui.type(token);
    await ui.press(KEYS.enter);
    const choice = await ui.waitFor('Where to keep the key');
    expect(choice).toContain('a session token or a management key: keydeck reads it from that variable');
    await ui.press('3');
    await expect.poll(() => services.exits.length).toBe(1);
    expect(services.exits[0]!.message).toBe(
      `keydeck: nothing was created or stored; the address ${sb.url} is saved in profile "test". Set KEYDECK_TOKEN to your session token or a management key (mk_…) and run keydeck again: ` +
        'keydeck reads it on every run and never stores it (or run keydeck --insecure-storage to keep a key in a file).',
    );
    expect(saved).toEqual([sb.url]);
  });

  it('https:// to the plain http sandbox: the token step says to use http://', async () => {
    const { store: credentials } = store();
    ui = renderApp(testServices({ store: credentials, target: 'live', savedBaseUrl: null }));
    await ui.waitFor('Where is the service?');
    const https = sb.url.replace('http://', 'https://');
    await ui.type(https);
    await ui.press(KEYS.enter);
    await ui.waitFor('Your token');
    await ui.type('sess_anything');
    await ui.press(KEYS.enter);
    await ui.waitFor('(EPROTO)');
    expect(ui.lastFrame().replace(/\s+/g, ' ')).toContain(`if it is a plain http service on this machine, as the sandbox is, use ${sb.url}`);
  });
});
