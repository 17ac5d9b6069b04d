/**
 * Local files trusted the way ssh trusts its own, and one cross-process lock around
 * every read-modify-write. The built CLI against a sandbox: a config file or dir (or the data dir)
 * writable by others, a key file readable by others, a FIFO in place of either (refused at once, no hang);
 * `doctor` reports each; eight concurrent logins keep eight profiles and eight keys.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { cliPath, makeTempHome, newSandboxUser, runCli, type TempHome } from '../credentials/harness.js';

const posix = process.platform !== 'win32';

let sandbox: RunningSandbox;
let home: TempHome;
let configFile: string;
let keyFile: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(() => {
  home = makeTempHome();
  configFile = path.join(home.configDir, 'config.json');
  keyFile = path.join(home.configDir, 'credentials.json');
});
afterEach(() => home.remove());

async function login(profile = 'default') {
  const session = await newSandboxUser(sandbox.url);
  const r = await runCli(['--insecure-storage', '--profile', profile, 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], { env: home.env(), input: session });
  expect(r.code, r.stderr).toBe(0);
}

describe.runIf(posix)('file trust', () => {
  it('refuses a config file writable by group or others, naming the file and the chmod', async () => {
    await login();
    chmodSync(configFile, 0o664);
    const r = await runCli(['keys', 'list'], { env: home.env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the config file ${configFile} is writable by group or others (mode 0664)`);
    expect(r.stderr).toContain(`chmod 600 ${configFile}`);
    chmodSync(configFile, 0o644);
    expect((await runCli(['keys', 'list'], { env: home.env() })).code).toBe(0);
  });

  it('refuses a config dir writable by others', async () => {
    await login();
    chmodSync(home.configDir, 0o777);
    const r = await runCli(['keys', 'list'], { env: home.env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the config dir ${home.configDir} is writable by group or others (mode 0777)`);
    expect(r.stderr).toContain(`chmod 700 ${home.configDir}`);
    chmodSync(home.configDir, 0o700);
  });

  it('refuses a data dir writable by others, as the config dir: the commands and the balance history alike', async () => {
    await login();
    const dataDir = path.join(home.home, 'data');
    mkdirSync(dataDir, { recursive: true });
    chmodSync(dataDir, 0o777);
    const r = await runCli(['keys', 'list'], { env: home.env({ KEYDECK_DATA_DIR: dataDir }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the data dir ${dataDir} is writable by group or others (mode 0777): another user could replace the records keydeck keeps in it`);
    expect(r.stderr).toContain(`chmod 700 ${dataDir}`);
    const { openHistoryDatabase } = await import('../../src/billing/historyDb.js');
    expect(() => openHistoryDatabase(path.join(dataDir, 'history.db'))).toThrow(/the data dir .* is writable by group or others/);
    chmodSync(dataDir, 0o700);
    expect((await runCli(['keys', 'list'], { env: home.env({ KEYDECK_DATA_DIR: dataDir }) })).code).toBe(0);
  });

  it('refuses a data dir under a directory others may write (ssh’s StrictModes: every directory above too)', async () => {
    await login();
    const shared = path.join(home.home, 'shared');
    const dataDir = path.join(shared, 'data');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(shared, 0o777);
    const r = await runCli(['keys', 'list'], { env: home.env({ KEYDECK_DATA_DIR: dataDir }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the directory ${shared} can be written by group or others (mode 0777), who could move ${dataDir} away and put a link in its place: fix it with \`chmod go-w ${shared}\``,
    );
    const { openHistoryDatabase } = await import('../../src/billing/historyDb.js');
    expect(() => openHistoryDatabase(path.join(dataDir, 'history.db'))).toThrow(/the directory .*shared can be written by group or others/);
    chmodSync(shared, 0o755);
    expect((await runCli(['keys', 'list'], { env: home.env({ KEYDECK_DATA_DIR: dataDir }) })).code).toBe(0);
  });

  it('refuses a key file readable by others', async () => {
    await login();
    chmodSync(keyFile, 0o644);
    const r = await runCli(['keys', 'list'], { env: home.env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the key file ${keyFile} is readable by group or others (mode 0644)`);
    expect(r.stderr).toContain(`chmod 600 ${keyFile}`);
    const doctor = await runCli(['doctor'], { env: home.env() });
    expect(doctor.stdout).toMatch(new RegExp(`^fail +keyfile +the key file ${keyFile.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is readable`, 'm'));
  });

  it('refuses a FIFO in place of the config file or the key file at once (no hang)', async () => {
    mkdirSync(home.configDir, { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', ['-m', '600', configFile]);
    const r = await runCli(['keys', 'list'], { env: home.env({ KEYDECK_TOKEN: 'mk_FifoTest000000000000' }), timeoutMs: 10_000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the config file ${configFile} is not a regular file`);
    const doctor = await runCli(['doctor'], { env: home.env(), timeoutMs: 10_000 });
    expect(doctor.stdout).toMatch(/^fail +config +the config file .* is not a regular file/m);
    rmSync(configFile);

    execFileSync('mkfifo', ['-m', '600', keyFile]);
    const k = await runCli(['--base-url', sandbox.url, 'keys', 'list'], { env: home.env(), timeoutMs: 10_000 });
    expect(k.code).toBe(1);
    expect(k.stderr).toContain(`the key file ${keyFile} is not a regular file`);
  });

  it('doctor says ok for files as keydeck writes them', async () => {
    await login();
    const doctor = await runCli(['doctor'], { env: home.env() });
    expect(doctor.stdout).toMatch(/^ok +config +/m);
    expect(doctor.stdout).toMatch(/^ok +keyfile +.* readable by you only/m);
  });
});

describe('one lock around every read-modify-write', () => {
  it('eight concurrent logins to eight profiles keep eight profiles and eight keys', async () => {
    const sessions = await Promise.all(Array.from({ length: 8 }, () => newSandboxUser(sandbox.url)));
    const runs = await Promise.all(
      sessions.map((session, i) =>
        runCli(['--insecure-storage', '--profile', `p${i}`, 'auth', 'login', '--base-url', sandbox.url, '--token-stdin'], {
          env: home.env(),
          input: session,
          timeoutMs: 60_000,
        }),
      ),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as { profiles: Record<string, unknown> };
    expect(Object.keys(config.profiles).sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    const keys = JSON.parse(readFileSync(keyFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(keys)).toHaveLength(8);
  }, 90_000);

  it('the lock is released when its holder dies (no stale lock)', async () => {
    const { withConfigLock } = await import('../../src/config/lock.js');
    mkdirSync(home.configDir, { recursive: true, mode: 0o700 });
    // A process that takes the lock and is killed while holding it.
    const script = `const { DatabaseSync } = require('node:sqlite'); const db = new DatabaseSync(${JSON.stringify(path.join(home.configDir, '.keydeck.lock'))}); db.exec('BEGIN EXCLUSIVE'); process.stdout.write('held'); setInterval(() => {}, 1000);`;
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    await expect(withConfigLock(home.configDir, async () => 'got it', 200)).rejects.toThrow(/could not lock/);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(await withConfigLock(home.configDir, async () => 'got it', 2000)).toBe('got it');
  });
});

describe.runIf(process.platform === 'linux')('the config read without waiting', () => {
  /** The built CLI run with `args` (a process of its own); its output and the names of its threads as it exits (/proc/self/task). */
  function runWithThreads(args: readonly string[]): { stdout: string; threads: string[] } {
    const out = path.join(home.home, 'threads.txt');
    const hook = path.join(home.home, 'threads.mjs');
    writeFileSync(
      hook,
      "import { readdirSync, readFileSync, writeFileSync } from 'node:fs';\n" +
        `process.on('exit', () => writeFileSync(${JSON.stringify(out)}, readdirSync('/proc/self/task').map((t) => readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim()).join('\\n')));\n`,
    );
    const stdout = execFileSync(process.execPath, ['--import', hook, cliPath(), ...args], { env: home.env(), encoding: 'utf8', timeout: 30_000 });
    return { stdout, threads: readFileSync(out, 'utf8').split('\n') };
  }

  it('a completion of profile names and `profile list` read the trusted config without starting libuv’s thread pool', async () => {
    expect((await runCli(['profile', 'add', 'work', '--base-url', sandbox.url], { env: home.env() })).code).toBe(0);
    for (const args of [
      ['__complete', '--', '--profile', ''],
      ['profile', 'list'],
    ]) {
      const { stdout, threads } = runWithThreads(args);
      expect(stdout, args.join(' ')).toContain('work');
      expect(threads.length, args.join(' ')).toBeGreaterThan(1); // the main thread and V8's
      expect(
        threads.filter((name) => name === 'libuv-worker'),
        args.join(' '),
      ).toEqual([]);
    }
    // Still trusted as ssh trusts its own: a config file others may write names no profile.
    chmodSync(configFile, 0o666);
    expect(runWithThreads(['__complete', '--', '--profile', '']).stdout).toBe('');
  });
});
