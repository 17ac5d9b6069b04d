/**
 * `keydeck --sandbox <command>`: every command works on the one demo account of the data
 * dir, whether this command starts the sandbox or another keydeck process (a TUI left open) serves
 * it; what one command makes, the next finds. The built CLI, a fresh home each test.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSharedSandbox } from '../../src/sandbox/shared.js';
import { call } from '../sandbox/helpers.js';
import { makeTempHome, runCli, type TempHome } from '../credentials/harness.js';
import { startCli } from './scripted.js';

const homes: TempHome[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) home.remove();
});

/** A fresh home whose data dir (the sandbox's database) is inside it. */
function freshHome(): { home: TempHome; env: NodeJS.ProcessEnv; dbPath: string } {
  const home = makeTempHome();
  homes.push(home);
  const dataDir = path.join(home.home, 'data');
  return { home, env: home.env({ KEYDECK_DATA_DIR: dataDir }), dbPath: path.join(dataDir, 'sandbox.db') };
}

describe('keydeck --sandbox <command>', () => {
  it('works with nothing set up: the demo account, and the next command finds what the last one made', async () => {
    const { env, dbPath } = freshHome();
    const created = await runCli(['--sandbox', 'keys', 'create', '--name', 'x'], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/Created the credit key "x"/);
    expect(created.stderr).toBe('');

    const listed = await runCli(['--sandbox', 'keys', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as Array<{ name: string }>).map((k) => k.name);
    expect(names).toEqual(expect.arrayContaining(['x', 'prod-backend', 'batch-jobs']));

    const credits = await runCli(['--sandbox', 'billing', 'credits', '--json'], { env });
    expect(JSON.parse(credits.stdout)).toMatchObject({ totalTopUp: 125, remaining: 84.2 });

    // The demo session token, never stored: auth status says where the key comes from.
    const status = await runCli(['--sandbox', 'auth', 'status', '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ profile: 'sandbox', store: 'sandbox', tokenKind: 'session', accepted: true });
    // Same origin each time: the port of the first start was taken again.
    expect(statSync(`${dbPath}.port`).isFile()).toBe(true);
    expect(JSON.parse(status.stdout).baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('joins the sandbox another keydeck process serves (a TUI left open): same origin, same account', async () => {
    const { env, dbPath } = freshHome();
    const open = await openSharedSandbox({ dbPath, keep: true });
    try {
      const created = await runCli(['--sandbox', 'keys', 'create', '--name', 'from-a-second-shell', '--json'], { env });
      expect(created.code, created.stderr).toBe(0);
      const seen = await call(open.url, 'GET', '/api/keys', { token: open.token });
      expect(seen.body.map((k: { name: string }) => k.name)).toContain('from-a-second-shell');
      const status = await runCli(['--sandbox', 'auth', 'status', '--json'], { env });
      expect(JSON.parse(status.stdout).baseUrl).toBe(open.url);
      expect(open.role()).toBe('serving');
    } finally {
      await open.close();
    }
  });

  it('uses the management key stored for the sandbox once `--sandbox auth login` made one, and saves no profile', async () => {
    const { env, home } = freshHome();
    const login = await runCli(['--sandbox', '--insecure-storage', 'auth', 'login'], { env });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/Created the management key .* from the session token/);
    const status = await runCli(['--sandbox', 'auth', 'status', '--json'], { env });
    expect(JSON.parse(status.stdout)).toMatchObject({ store: 'file', tokenKind: 'management', accepted: true });
    const listed = await runCli(['--sandbox', 'mgmt-keys', 'list', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    // The plaintext file is said at login and in `auth status`, not on every command.
    expect(listed.stderr).not.toMatch(/plaintext/);
    expect(login.stderr + status.stdout).toMatch(/plaintext|"store":"file"/);
    // Without --sandbox, keydeck's profiles are as they were: nothing points at the sandbox.
    const plain = await runCli(['keys', 'list'], { env });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/profile "default" has no base URL/);
    expect(() => statSync(path.join(home.configDir, 'config.json'))).toThrow();
  });

  it('every hint a command prints under --sandbox carries the flag', async () => {
    const { env } = freshHome();
    const confirm = await runCli(['--sandbox', 'keys', 'delete', 'prod-backend'], { env });
    expect(confirm.code).toBe(2);
    expect(confirm.stderr).toContain('to proceed run `keydeck --sandbox keys delete prod-backend --yes`.');
    const accept = await runCli(['--sandbox', 'billing', 'history', '--accept-loss'], { env });
    expect(accept.stderr).not.toMatch(/keydeck (?!--sandbox)(keys|billing|auth|mgmt-keys|autotopup) /);
    const empty = await runCli(['--sandbox', '--profile', 'sandbox', 'autotopup', 'status'], { env });
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toMatch(/keydeck --sandbox (--profile sandbox )?autotopup set/);
    expect(empty.stdout).not.toMatch(/keydeck (?!--sandbox)(keys|billing|auth|mgmt-keys|autotopup) /);
    // Without --sandbox, the same hint as before.
    const plain = await runCli(['--base-url', 'http://127.0.0.1:9', 'keys', 'delete', 'x'], { env });
    expect(plain.stderr).toContain('to proceed run `keydeck keys delete x --yes`.');
  });

  it('says so when it joins a sandbox another process serves in another dialect than --dialect asks', async () => {
    const { env, dbPath } = freshHome();
    const open = await openSharedSandbox({ dbPath, keep: true, dialect: 'seed' });
    try {
      const other = await runCli(['--sandbox', '--dialect', 'docs-v1', 'billing', 'credits'], { env });
      expect(other.code, other.stderr).toBe(0);
      expect(other.stderr).toBe(
        `warning: --dialect docs-v1 was not applied: this process joined the sandbox another keydeck process serves at ${open.url}, which answers in the seed dialect; to use docs-v1, stop that process first (or set KEYDECK_SANDBOX_DB to another file)\n`,
      );
      const same = await runCli(['--sandbox', '--dialect', 'seed', 'billing', 'credits'], { env });
      expect(same.stderr).toBe('');
    } finally {
      await open.close();
    }
  });

  it('refuses --sandbox with --base-url (two services named), before starting anything', async () => {
    const { env, dbPath } = freshHome();
    const result = await runCli(['--sandbox', '--base-url', 'https://api.example.com', 'keys', 'list'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('keydeck: --sandbox and --base-url name two different services: give one of them.\n');
    expect(() => statSync(dbPath)).toThrow();
  });

  it('keeps the demo account at its home while `keydeck sandbox` serves it on another port: a checkout link outlives that process', { timeout: 60_000 }, async () => {
    const { env, dbPath } = freshHome();
    const foreground = startCli(['sandbox', '--port', '0'], env);
    let sessionUrl: string;
    let home: string;
    try {
      await foreground.waitForStdout(/session token: /);
      await foreground.waitForStderr(/finds this demo account at /);
      const own = /sandbox listening on (\S+)/.exec(foreground.stdout())![1]!;
      home = /finds this demo account at (http:\/\/127\.0\.0\.1:\d+)/.exec(foreground.stderr())![1]!;
      expect(home).not.toBe(own);
      expect(readFileSync(`${dbPath}.port`, 'utf8').trim()).toBe(new URL(home).port);
      const status = await runCli(['--sandbox', 'auth', 'status', '--json'], { env });
      expect(JSON.parse(status.stdout).baseUrl).toBe(home);
      const topup = await runCli(['--sandbox', 'billing', 'topup', '--amount', '10', '--method', 'card_checkout', '--json'], { env });
      expect(topup.code, topup.stderr).toBe(0);
      sessionUrl = JSON.parse(topup.stdout).sessionUrl as string;
      expect(sessionUrl.startsWith(`${home}/sandbox/checkout/`)).toBe(true);
    } finally {
      foreground.kill('SIGINT');
      await foreground.exited;
    }
    // The foreground sandbox is gone; a keydeck process (a TUI, say) serves the database again, at its home.
    const again = await openSharedSandbox({ dbPath, keep: true });
    try {
      expect(again.url).toBe(home);
      const page = await fetch(sessionUrl);
      expect(page.status).toBe(200);
      const paid = await fetch(sessionUrl, { method: 'POST' });
      expect(paid.status).toBeLessThan(400);
      const credits = await call(again.url, 'GET', '/api/billing/credits', { token: again.token });
      expect(credits.body.data?.totalTopUp ?? credits.body.totalTopUp).toBe(135);
    } finally {
      await again.close();
    }
  });
});
