/**
 * The Management keys pane against a real sandbox: the key in use marked, create (shown once,
 * `u` makes it keydeck's key), delete, and deleting the key in use (warned, signed out, stored
 * credential cleared, back to the guided setup).
 */
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
const MK = /mk_[A-Za-z0-9_-]{16,}/;

/** A user whose management key keydeck uses, stored in the plaintext file of a temp config dir. */
async function signedIn() {
  const session = await sb.newUser();
  const api = sb.client(session);
  const inUse = await api.managementKeys.create({ name: 'keydeck-in-use' });
  const s = noKeychainStore();
  const where = await s.store.set('test', inUse.apiKey, { insecureStorage: true });
  const services = testServices({ store: s.store, baseUrl: sb.url });
  ui = renderApp(services, {
    session: { phase: 'ready', baseUrl: sb.url, credential: { token: inUse.apiKey, origin: 'file', ...(where.path && { path: where.path }) }, rejected: false },
  });
  return { api, inUse, store: s.store, services, ui };
}

describe('Management keys pane', () => {
  it('marks the key in use, creates one shown once, and deletes another after its name is typed', async () => {
    const { api, inUse, services, ui } = await signedIn();
    await ui.waitFor('stored in plaintext');
    await ui.press('2');
    await ui.waitFor(`◆ keydeck-in-use`);
    expect(ui.lastFrame()).toContain(inUse.keyPrefix);
    expect(ui.lastFrame()).toContain('◆ = the key keydeck is using');

    await ui.press('n');
    await ui.waitFor('New management key');
    // The default (host, profile, date) is a placeholder: the first key typed starts a new name.
    expect(ui.lastFrame()).toMatch(/enter saves "keydeck@testhost test \d{4}-\d\d-\d\d"/);
    await ui.type('ci-admin');
    await ui.waitFor(/name: ci-admin/);
    expect(ui.lastFrame()).not.toContain('keydeck@testhost');
    await ui.press(KEYS.enter);
    const secret = MK.exec(await ui.waitFor(MK))![0];
    const before = ui.frames().length;
    await ui.press('y');
    await ui.waitFor('ci-admin');
    expect(services.redraws.count).toBe(1);
    for (const frame of ui.frames().slice(before)) expect(frame).not.toContain(secret);
    expect((await api.managementKeys.list()).map((k) => k.name).sort()).toEqual(['ci-admin', 'keydeck-in-use']);

    // The new key is the newest: selected at the top. Delete it.
    await ui.press('g', 'd');
    await ui.waitFor('Delete the management key "ci-admin"?');
    expect(ui.lastFrame()).not.toContain('keydeck will be signed out');
    // Beside the name: what tells it apart from keys of the same name.
    const created = (await api.managementKeys.list()).find((k) => k.name === 'ci-admin')!;
    expect(ui.lastFrame()).toMatch(new RegExp(`prefix ${created.keyPrefix} · created \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC · last used never`));
    await ui.type('ci-admin');
    await ui.press(KEYS.enter);
    await ui.waitFor('deleted the management key "ci-admin"');
    expect((await api.managementKeys.list()).map((k) => k.name)).toEqual(['keydeck-in-use']);
  });

  it('makes a new key the one keydeck uses with u, storing it the way the current one is', async () => {
    const { api, store, ui } = await signedIn();
    await ui.press('2');
    await ui.waitFor('◆ keydeck-in-use');
    await ui.press('n');
    await ui.waitFor('New management key');
    await ui.press(KEYS.enter);
    const secret = MK.exec(await ui.waitFor(MK))![0];
    await ui.press('u');
    await ui.waitFor('keydeck now uses this key');
    expect((await store.get('test', { origin: new URL(sb.url).origin }))?.token).toBe(secret);
    await ui.press('y');
    await ui.waitFor(`◆ keydeck@testhost`);
    expect(ui.lastFrame()).toContain(`key ${secret.slice(0, 11)}`);
    const names = (await api.managementKeys.list()).map((k) => k.name);
    expect(names).toHaveLength(2);
    expect(names).toContainEqual(expect.stringMatching(/^keydeck@testhost test \d{4}-\d\d-\d\d$/));
    // A second key of the same day gets a name of its own.
    await ui.press('n');
    await ui.waitFor(/enter saves "keydeck@testhost test \d{4}-\d\d-\d\d \(2\)"/);
  });

  it('deleting the key in use warns first, then signs out, clears the stored key and returns to setup', async () => {
    const { api, store, ui } = await signedIn();
    await ui.press('2');
    await ui.waitFor('▶ ◆ keydeck-in-use');
    await ui.press('d');
    await ui.waitFor('This is the key keydeck is using');
    expect(ui.lastFrame()).toContain('signed out');
    await ui.type('keydeck-in-use');
    await ui.press(KEYS.enter);
    // The sandbox target skips the service step: setup opens at the token.
    await ui.waitFor('Your token');
    expect(ui.lastFrame()).toContain('signed out: the management key keydeck used');
    expect(await store.get('test', { origin: new URL(sb.url).origin, legacy: true })).toBeUndefined();
    expect(await api.managementKeys.list()).toEqual([]);
  });

  it('deleting the key KEYDECK_TOKEN holds offers no setup (the variable would override it): it says to unset the variable', async () => {
    const session = await sb.newUser();
    const api = sb.client(session);
    const inUse = await api.managementKeys.create({ name: 'from-env' });
    const services = testServices({ store: noKeychainStore().store, baseUrl: sb.url });
    ui = renderApp(services, {
      session: { phase: 'ready', baseUrl: sb.url, credential: { token: inUse.apiKey, origin: 'env' }, rejected: false },
    });
    await ui.press('2');
    await ui.waitFor('▶ ◆ from-env');
    await ui.press('d');
    await ui.waitFor('This is the key keydeck is using');
    await ui.type('from-env');
    await ui.press(KEYS.enter);
    await ui.waitFor('unset KEYDECK_TOKEN');
    expect(ui.lastFrame()).not.toContain('Your token');
    expect(await api.managementKeys.list()).toEqual([]);
  });
});
