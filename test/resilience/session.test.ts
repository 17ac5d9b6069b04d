/**
 * The credential under stress, in a real terminal: the management key keydeck uses (given in
 * KEYDECK_TOKEN) is deleted from another session while keydeck runs (the service answers 401: the
 * screen says KEYDECK_TOKEN was rejected and what to do, keeps the data, and offers no setup that
 * the variable would override; the guided setup after a rejected stored key is in
 * test/tui/shell.test.tsx), and
 * the keychain is unavailable at the first start (no D-Bus session, no KEYDECK_TOKEN, the
 * sandbox profile: the setup says why and offers the three ways on).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startApp } from '../e2e/pty.js';
import { isolatedEnv, SUBSCRIPTION_KEY_NAME, waitForData } from './harness.js';
import { expectLastData, useRig } from './scenario.js';

describe.concurrent('the credential', () => {
  it('KEYDECK_TOKEN revoked from another session: says so and what to do, keeps the data, and offers no setup the variable would override', { timeout: 90_000 }, async (t) => {
    const rig = await useRig(t, { columns: 100, rows: 30 });
    const { app, sandbox } = rig;
    await waitForData(app);
    await app.waitFor('online · updated');

    // Another session (the account's own session token, straight at the service) deletes the key.
    const deleted = await sandbox.call('DELETE', `/api/keys/management/${rig.managementKeyId}`, { token: rig.account });
    expect(deleted.status).toBe(200);
    // The banner wraps at spaces (never cut): the sentence is read across its lines.
    const sentence = 'KEYDECK_TOKEN was rejected: unset KEYDECK_TOKEN to use the key stored for this profile, or set a valid one, then start keydeck again.';
    await app.waitFor(new RegExp(sentence.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+')), 15_000);
    await app.waitFor('key rejected');
    expectLastData(app.screenText());
    // No setup is offered (its key would be overridden by KEYDECK_TOKEN at the next start): S does nothing.
    const hints = app
      .screen()
      .filter((l) => l.trim() !== '')
      .at(-1)!;
    expect(hints).not.toContain('set up again');
    app.write('S');
    await new Promise((r) => setTimeout(r, 500));
    expect(app.screenText()).not.toContain('Where is the service?');
    // A failure of an action names the credential too.
    app.write('e');
    await app.waitFor('Rename');
    app.write('x');
    await app.waitFor('chaos-keyx');
    app.write('\r');
    await app.waitFor(/KEYDECK_TOKEN \(management key mk_\w{8}\)/, 15_000);
  });

  it('keychain unavailable: the demo account opens without setup; its setup (S) says why and offers the file, this session, or KEYDECK_TOKEN', { timeout: 90_000 }, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-resilience-'));
    const app = startApp({ args: ['--sandbox'], env: isolatedEnv(dir), columns: 100, rows: 30 });
    t.onTestFinished(async () => {
      app.kill('SIGKILL');
      await Promise.race([app.exited, new Promise((r) => setTimeout(r, 2000))]);
      rmSync(dir, { recursive: true, force: true });
    });

    // No setup, no warning: the demo account signs in by itself.
    await app.waitFor('demo session token (kept in the data dir)', 20_000);
    expect(app.screenText()).not.toContain('keychain');
    app.write('S');
    await app.waitFor('Press enter to use the sandbox’s demo session token', 20_000);
    app.write('\r');
    // Where the key will go is asked before one is created.
    await app.waitFor('Where to keep the key', 15_000);
    const choice = app.screenText();
    expect(choice).toContain('The OS keychain is unavailable, so the key cannot be stored safely.');
    expect(choice).toContain('no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)');
    expect(choice).toContain('1  Store it in a plaintext file');
    expect(choice).toContain('2  Use it for this session only');
    expect(choice).toContain('3  Quit, and set KEYDECK_TOKEN myself');
    expect(choice).not.toMatch(/mk_[A-Za-z0-9_-]{16,}/);

    // The plaintext file, chosen knowingly: then the key is created, shown once, stored with
    // mode 0600, and the header warns.
    app.write('1');
    await app.waitFor('Name the management key', 15_000);
    app.write('\r');
    await app.waitFor('I have saved it', 15_000);
    app.write('y');
    await app.waitFor(SUBSCRIPTION_KEY_NAME, 15_000);
    await app.waitFor('stored in plaintext');
    const file = path.join(dir, 'config', 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
