/**
 * A keychain that does not answer at start is named, not hidden: the TUI says so and
 * offers what works (r asks again, KEYDECK_TOKEN, --insecure-storage), never the guided setup as
 * if nothing were stored; once the keychain answers, `r` signs in with the key stored there.
 */
import { describe, expect, it } from 'vitest';
import { createCredentialStore } from '../../src/credentials/index.js';
import type { KeytarLike } from '../../src/credentials/keychain.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { renderApp, testServices } from './harness.js';

const MK = 'mk_HungKeychainTest0000000000';

/** A keytar whose calls hang until `answer()` is called; then it holds `MK` for every account. */
function hangingKeytar() {
  let answering = false;
  const keytar: KeytarLike = {
    getPassword: () => (answering ? Promise.resolve(MK) : new Promise(() => undefined)),
    setPassword: () => (answering ? Promise.resolve() : new Promise(() => undefined)),
    deletePassword: () => (answering ? Promise.resolve(true) : new Promise(() => undefined)),
  };
  return { keytar, answer: () => (answering = true) };
}

describe('a hung keychain at start', () => {
  it('is named with what works, never the setup; r asks again and signs in once it answers', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-hung-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const fake = hangingKeytar();
    const store = createCredentialStore({
      env: { KEYDECK_CONFIG_DIR: dir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nowhere' },
      platform: 'linux',
      keychainTimeoutMs: 200,
      loadKeytar: async () => fake.keytar,
    });
    // The service is never reached in this test: no key is sent anywhere while the keychain hangs.
    const services = testServices({ store, baseUrl: 'http://127.0.0.1:9', target: 'live' });
    const ui = renderApp(services, { columns: 100, rows: 30 });
    const frame = await ui.waitFor('The keychain did not answer');
    expect(frame.replace(/\s+/g, ' ')).toContain('did not answer within 200 ms');
    expect(frame).toContain('KEYDECK_TOKEN');
    expect(frame).toContain('--insecure-storage');
    expect(frame).not.toContain('Your token');
    expect(frame).not.toContain('Where is the service?');
    for (const f of ui.frames()) expect(f).not.toContain('Where is the service?');

    fake.answer();
    await ui.press('r');
    await ui.waitFor('mk_HungKeyc');
    expect(ui.lastFrame()).not.toContain('The keychain did not answer');
  });
});
