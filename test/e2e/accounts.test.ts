/**
 * End to end, the built app in a pseudo-terminal with three profiles on two real sandboxes, one of
 * them stopped (and a fourth profile with no stored credential): `0` shows the Accounts pane with
 * every profile in one screen at 100×30 and 80×24, the stopped one down with its reason; enter on
 * another profile switches the other panes (and the header) to it. The time to every row (3 s at
 * most) is measured by bench/accounts.mjs, not here.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { createCredentialStore } from '../../src/credentials/index.js';
import { cleanEnv, e2eRig } from './session.js';

const rig = e2eRig();
let live: Awaited<ReturnType<typeof startSandbox>>;
let stoppedUrl: string;

beforeAll(async () => {
  live = await startSandbox({ port: 0 });
  const other = await startSandbox({ port: 0 });
  stoppedUrl = other.url;
  await other.close();
});
afterAll(() => live?.close());

/** A user with four profiles: alpha and beta (read-only) on the live sandbox, gamma (protected) and nokey on the stopped one. */
async function fourProfiles(): Promise<NodeJS.ProcessEnv> {
  const env = cleanEnv(rig.tempDir('keydeck-accounts-'));
  const configDir = env.KEYDECK_CONFIG_DIR!;
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  chmodSync(configDir, 0o700);
  const file = path.join(configDir, 'config.json');
  const profiles = { alpha: { baseUrl: live.url }, beta: { baseUrl: live.url, readOnly: true }, gamma: { baseUrl: stoppedUrl, protected: true }, nokey: { baseUrl: stoppedUrl } };
  writeFileSync(file, JSON.stringify({ version: 1, currentProfile: 'alpha', profiles }), { mode: 0o600 });
  const store = createCredentialStore({ env, loadKeytar: () => Promise.reject(new Error('no keychain in this test')) });
  for (const [name, url] of [
    ['alpha', live.url],
    ['beta', live.url],
    ['gamma', stoppedUrl],
  ] as const) {
    await store.set(name, live.token, { origin: new URL(url).origin, insecureStorage: true });
  }
  return env;
}

describe('the Accounts pane in a terminal', () => {
  for (const [columns, rows] of [
    [100, 30],
    [80, 24],
  ] as const) {
    it(`at ${columns}×${rows}: every profile in one screen, the stopped one down; enter switches`, { timeout: 60_000 }, async () => {
      const env = await fourProfiles();
      const app = rig.start({ args: [], env, columns, rows });
      await app.waitFor('profile alpha', 20_000);
      app.write('0');
      const all = (s: string) => /alpha .*\$84\.20/.test(s) && /beta RO .*\$84\.20/.test(s) && /gamma P .*down/.test(s) && /nokey .*no key/.test(s) && /↳ offline since .*ECONNREFUSED/.test(s);
      await app.waitFor(all, 15_000);
      // The time to every row (target 3 s) is bench/accounts.mjs's figure; here, what the screen says.
      const screen = app.screen();
      expect(screen.length).toBeLessThanOrEqual(rows);
      for (const line of screen) expect(line.length).toBeLessThanOrEqual(columns);
      // alpha (shown, selected first) → beta, then enter: the header and the Keys pane are beta's.
      app.write('j');
      await app.waitFor(/▶ beta RO/);
      app.write('\r');
      await app.waitFor((s) => s.split('\n')[0]!.includes('profile beta') && s.includes('▶1 Keys'), 10_000);
      expect(app.screen()[0]).toMatch(/RO {3}profile beta/);
      app.write('q');
      expect((await app.exited).exitCode).toBe(0);
    });
  }

  it('keydeck monitor --all-profiles: the same rows inline at 80×24, q leaves them on screen', { timeout: 60_000 }, async () => {
    const env = await fourProfiles();
    const app = rig.start({ args: ['monitor', '--all-profiles'], env, columns: 80, rows: 24 });
    await app.waitFor(
      (s) => /•alpha .*\$84\.20 .*up/.test(s) && /beta RO .*\$84\.20/.test(s) && /gamma P .*down/.test(s) && /↳ offline since .*ECONNREFUSED/.test(s) && /nokey .*no key/.test(s),
      10_000,
    );
    const screen = app.screen();
    expect(screen[0]).toBe('keydeck monitor · 4 profiles · r reads now · q quits');
    // Down first, then the accounts with figures, the one without a key last.
    const at = (name: string) => screen.findIndex((l) => l.includes(` ${name} `) || l.includes(`•${name} `));
    expect([at('gamma'), at('alpha'), at('beta'), at('nokey')]).toEqual([...[at('gamma'), at('alpha'), at('beta'), at('nokey')]].sort((a, b) => a - b));
    for (const line of screen) expect(line.length).toBeLessThanOrEqual(80);
    app.write('q');
    expect((await app.exited).exitCode).toBe(0);
    expect(app.screenText()).toContain('gamma P');
  });

  it('keydeck monitor --all-profiles refuses a flag of one account (exit 2) before reading anything', { timeout: 30_000 }, async () => {
    const env = await fourProfiles();
    const app = rig.start({ args: ['monitor', '--all-profiles', '--auto-topup'], env, columns: 100, rows: 30 });
    expect((await app.exited).exitCode).toBe(2);
    expect(app.screenText().replace(/\s*\n\s*/g, ' ')).toContain('--all-profiles only reads every account; --auto-topup is for one account (keydeck monitor) or for keydeck exporter --all-profiles');
  });
});
