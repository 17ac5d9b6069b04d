/**
 * `keydeck sandbox` from the built CLI (the run's snapshot of dist/cli.js, built and copied by
 * test/global-setup.ts, so a rebuild of dist/ meanwhile cannot pull files from under the test):
 * the two stdout lines, a working server, the request log on stderr, a clean exit 0 on SIGTERM
 * and SIGINT, the same session token after a restart with the same database, and `--dialect`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath } from '../credentials/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'keydeck-sandbox-cli-'));
const cli = cliPath();

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdoutLines: string[];
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, [cli, ...args], { cwd: dir, env: { ...process.env, ...env } });
  const stdoutLines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => stdoutLines.push(line));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, stdoutLines, stderr: () => stderr, exit };
}

/** Waits for the two stdout lines; returns the URL and the token they give. */
async function started(running: Running): Promise<{ url: string; token: string }> {
  const deadline = Date.now() + 15_000;
  while (running.stdoutLines.length < 2) {
    if (Date.now() > deadline || running.child.exitCode !== null) {
      throw new Error(`sandbox did not start: ${running.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const [first, second] = running.stdoutLines;
  const url = /^sandbox listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first!)?.[1];
  const token = /^session token: (\S+)$/.exec(second!)?.[1];
  expect(url, first).toBeDefined();
  expect(token, second).toBeDefined();
  return { url: url!, token: token! };
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('keydeck sandbox', () => {
  it('prints the two lines, serves, logs without secrets, exits 0 on SIGTERM; a restart prints the same token', async () => {
    const dbPath = join(dir, 'cli.db');
    const first = run(['sandbox', '--port', '0', '--db', dbPath]);
    const { url, token } = await started(first);
    expect(first.stdoutLines).toHaveLength(2);

    const res = await fetch(`${url}/api/billing/credits`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, data: { totalTopUp: 125, remaining: 84.2 } });
    const keys = await fetch(`${url}/api/keys`, { headers: { authorization: `Bearer ${token}` } });
    expect(await keys.json()).toEqual(expect.arrayContaining([expect.objectContaining({ keyType: 'subscription', keyPlan: 'standard', isActive: true })]));

    first.child.kill('SIGTERM');
    expect(await first.exit).toEqual({ code: 0, signal: null });
    expect(first.stderr()).toMatch(/^GET \/api\/billing\/credits 200 \d+\.\dms$/m);
    expect(first.stderr()).not.toContain(token);
    expect(first.stderr()).not.toContain('beyond this machine');
    expect(first.stdoutLines).toHaveLength(2);

    const second = run(['sandbox', '--port', '0', '--db', dbPath]);
    const again = await started(second);
    expect(again.token).toBe(token);
    second.child.kill('SIGINT');
    expect(await second.exit).toEqual({ code: 0, signal: null });
  });

  it('uses <user data dir>/sandbox.db without --db, or $KEYDECK_DATA_DIR/sandbox.db', async () => {
    const dataHome = join(dir, 'xdg-data');
    const running = run(['sandbox', '--port', '0'], { XDG_DATA_HOME: dataHome });
    await started(running);
    running.child.kill('SIGTERM');
    expect((await running.exit).code).toBe(0);
    expect(existsSync(join(dataHome, 'keydeck', 'sandbox.db'))).toBe(true);

    // KEYDECK_DATA_DIR wins over the platform's data dir.
    const dataDir = join(dir, 'keydeck-data');
    const moved = run(['sandbox', '--port', '0'], { XDG_DATA_HOME: dataHome, KEYDECK_DATA_DIR: dataDir });
    await started(moved);
    moved.child.kill('SIGTERM');
    expect((await moved.exit).code).toBe(0);
    expect(existsSync(join(dataDir, 'sandbox.db'))).toBe(true);
  });

  it('bound beyond this machine (--host 0.0.0.0) it serves, and says on stderr that its /sandbox/* routes are anyone’s', async () => {
    const running = run(['sandbox', '--host', '0.0.0.0', '--port', '0', '--db', join(dir, 'exposed.db')]);
    const deadline = Date.now() + 15_000;
    while (!running.stderr().includes('beyond this machine') && Date.now() < deadline && running.child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    expect(running.stdoutLines[0]).toMatch(/^sandbox listening on http:\/\/0\.0\.0\.0:\d+$/);
    expect(running.stderr()).toContain(
      'keydeck: warning: the sandbox listens on 0.0.0.0, beyond this machine: its /sandbox/* routes (new users, the clock, the usage switch, checkout payments, simulated transfers) take no credential',
    );
    expect(running.stderr()).toContain('--host 127.0.0.1');
    running.child.kill('SIGTERM');
    expect((await running.exit).code).toBe(0);
  });

  it('exits 2 on a bad --port and 1 when the port is taken', async () => {
    const bad = run(['sandbox', '--port', 'eighty', '--db', join(dir, 'bad.db')]);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr()).toMatch(/--port/);

    const holder = run(['sandbox', '--port', '0', '--db', join(dir, 'holder.db')]);
    const { url } = await started(holder);
    const taken = run(['sandbox', '--port', new URL(url).port, '--db', join(dir, 'taken.db')]);
    expect((await taken.exit).code).toBe(1);
    expect(taken.stderr()).toMatch(/already in use/);
    holder.child.kill('SIGTERM');
    expect((await holder.exit).code).toBe(0);
  });

  it('--dialect docs-v1 answers as the older pages (bare, money as strings); an unknown dialect exits 2', async () => {
    const running = run(['sandbox', '--port', '0', '--db', join(dir, 'dialect.db'), '--dialect', 'docs-v1']);
    const { url, token } = await started(running);
    const res = await fetch(`${url}/api/billing/credits`, { headers: { authorization: `Bearer ${token}` } });
    expect(await res.json()).toEqual({ totalTopUp: '125.00', remaining: '84.20', hasCreditKey: true, creditKeyId: expect.any(String) });
    running.child.kill('SIGTERM');
    expect((await running.exit).code).toBe(0);

    const bad = run(['sandbox', '--port', '0', '--db', join(dir, 'dialect.db'), '--dialect', 'docs-v3']);
    expect((await bad.exit).code).toBe(2);
    expect(bad.stderr()).toMatch(/--dialect/);
  });
});
