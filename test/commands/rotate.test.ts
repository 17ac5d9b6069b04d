/**
 * `keydeck keys rotate` as the built CLI against the sandbox in the dialect of the newer
 * documentation pages (lists carry `lastUsedAt`): a running application stand-in
 * (test/delivery/fixtures/standin-app.mjs) uses the old key until it re-reads its dotenv file, and
 * not one of its requests fails while the key is replaced; a subscription key is refused with what
 * works instead; a rotation killed half way is named at the next start and finished (a new
 * successor when the first never reached its destination) or undone; a key still in use is left
 * alone when --wait-idle runs out.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsumptionKeyListSchema } from '../../src/api/schemas.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { FULL_KEY, scripted, startCli, type Scripted } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox({ dialect: 'docs-v2' });
  cli = scripted(sb.url);
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-rotate-'));
});
afterAll(async () => {
  cli.home.remove();
  rmSync(root, { recursive: true, force: true });
  await sb.close();
});

const STANDIN = path.join(import.meta.dirname, '../delivery/fixtures/standin-app.mjs');
/** The keys of `token`'s account (the newer pages' dialect wraps every answer in `{ success, data }`). */
const listed = async (token: string) => ConsumptionKeyListSchema.parse((await sb.call('GET', '/api/keys', { token })).body.data);
/** A test's own data dir (the rotation record lives there), as the environment that names it. */
type DataEnv = { KEYDECK_DATA_DIR: string };
const newDataEnv = (): DataEnv => ({ KEYDECK_DATA_DIR: mkdtempSync(path.join(root, 'data-')) });
/** The rotation record in `data`. */
const record = (data: DataEnv) => {
  try {
    return JSON.parse(readFileSync(path.join(data.KEYDECK_DATA_DIR, 'rotations.json'), 'utf8')).rotations as Array<{ state: string; old: { id: string } }>;
  } catch {
    return [];
  }
};

/** A funded user with a credit key `name` delivered into a fresh dotenv file (the record in `data`); returns both. */
async function userWithKey(name: string, data: DataEnv): Promise<{ user: string; env: string; key: string }> {
  const user = await sb.fundedUser(25);
  const dir = mkdtempSync(path.join(root, 'app-'));
  const env = path.join(dir, '.env');
  writeFileSync(env, 'PORT=8080\n', { mode: 0o600 });
  const r = await cli.run(user, ['keys', 'create', '--name', name, '--to-file', env], data);
  expect(r.code, r.stderr).toBe(0);
  const key = /KEYDECK_API_KEY=(\S+)/.exec(readFileSync(env, 'utf8'))![1]!;
  return { user, env, key };
}

/** The key the dotenv file `env` holds. */
const keyIn = (env: string) => /KEYDECK_API_KEY=(\S+)/.exec(readFileSync(env, 'utf8'))?.[1];

/** Starts the application stand-in on `env`; `stop()` ends it and returns its counts. */
function startStandin(env: string) {
  const child = spawn(process.execPath, [STANDIN, sb.url, env, 'KEYDECK_API_KEY'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    async stop(): Promise<{ ok: number; failed: number; failures: unknown[]; keys: number }> {
      child.kill('SIGTERM');
      await done;
      return JSON.parse(out);
    },
  };
}

// The tests run at once: they mostly wait (for a key to be idle, for --wait-idle to run out), and
// each has its own user, data dir and destinations (and its own `expect`, for expect.poll).
describe.concurrent('keys rotate', () => {
  it('replaces a key a running application uses, with no failed request: deliver, wait until idle, deactivate', { timeout: 60_000 }, async ({ expect }) => {
    const data = newDataEnv();
    const { user, env, key: oldKey } = await userWithKey('web', data);
    const app = startStandin(env);
    // The old key is in use before the rotation starts.
    await expect.poll(async () => (await listed(user)).find((k) => k.name === 'web')?.lastUsedAt ?? null, { timeout: 10_000 }).not.toBeNull();
    // No destination given: keydeck delivered "web" into the file, so the successor goes there too.
    const r = await cli.run(user, ['keys', 'rotate', 'web', '--old', 'deactivate', '--wait-idle', '30s', '--idle-for', '3s'], data);
    // The application goes on after the old key is deactivated: a request with the successor after
    // the rotation ended, before it is stopped (so its counts cover the time after, too).
    const rotated = Date.now();
    await expect.poll(async () => Date.parse((await listed(user)).find((k) => k.name === 'web' && k.isActive)?.lastUsedAt ?? '') || 0, { timeout: 10_000 }).toBeGreaterThan(rotated);
    const counts = await app.stop();
    expect(r.code, r.stderr).toBe(0);
    expect(counts.failed, JSON.stringify(counts.failures)).toBe(0);
    expect(counts.keys).toBe(2);
    expect(counts.ok).toBeGreaterThan(3);
    expect(r.stdout).toMatch(/^The old key was delivered by keydeck to .*\.env \(KEYDECK_API_KEY\): the successor goes there too\.$/m);
    expect(r.stdout).toMatch(/^Rotating the key "web" \(id [^)]+\) to a successor; it takes the name "web", and the old key becomes "web \(rotated \d{4}-\d\d-\d\d\)" once it is delivered\.$/m);
    expect(r.stdout).toMatch(/^The old key "web \(rotated \d{4}-\d\d-\d\d\)" was last used \d+ s ago/m);
    expect(r.stdout).toMatch(/^It is idle: last used \d+ s ago/m);
    // The spend figures (one usage read spent: none was kept yet).
    expect(r.stdout).toMatch(/^Usage figures of just now: the old key "?.*spent \$0\.[0-9]{2} in 24 h\.$/m);
    expect(r.stdout).toMatch(/^Deactivated the old key "web \(rotated \d{4}-\d\d-\d\d\)"/m);
    expect(r.stdout + r.stderr).not.toMatch(FULL_KEY);
    const keys = await listed(user);
    // The successor took the name "web"; the old key is named for its rotation.
    expect(keys.find((k) => k.name.startsWith('web (rotated '))!.isActive).toBe(false);
    expect(keys.find((k) => k.name === 'web')!.isActive).toBe(true);
    const newKey = /KEYDECK_API_KEY=(\S+)/.exec(readFileSync(env, 'utf8'))![1]!;
    expect(newKey).not.toBe(oldKey);
    expect(readFileSync(env, 'utf8')).toBe(`PORT=8080\nKEYDECK_API_KEY=${newKey}\n`);
    expect((await sb.infer(newKey)).status).toBe(200);
    expect((await sb.infer(oldKey)).status).toBe(403);
    expect(record(data)).toEqual([]);
    // And the successor is remembered in turn: the next rotation needs no flags either.
    const again = await cli.run(user, ['keys', 'rotate', 'web', '--old', 'delete'], data);
    expect(again.code, again.stderr).toBe(0);
    expect(keyIn(env)).not.toBe(newKey);
    expect((await listed(user)).map((k) => [k.name.replace(/\d{4}-\d\d-\d\d/, 'DATE'), k.isActive]).sort()).toEqual([
      ['web (rotated DATE)', false],
      ['web', true],
    ]);
  });

  it('refuses a subscription key and says what works instead; without --old and a terminal it changes nothing', async ({ expect }) => {
    const data = newDataEnv();
    const user = await sb.fundedUser(25);
    const sub = await sb.subscription(user, 'standard', ['europe']);
    const r = await cli.run(user, ['keys', 'rotate', sub.id, '--to-file', path.join(root, 'sub.env'), '--old', 'keep'], data);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keydeck: subscription_key: .* is a subscription key, and those cannot be rotated: .*one per subscription payment\b.*keydeck keys disable /m);
    const { user: u2 } = await userWithKey('ci', data);
    const noOld = await cli.run(u2, ['keys', 'rotate', 'ci', '--to-file', path.join(root, 'x.env')], data);
    expect(noOld.code).toBe(2);
    expect(noOld.stderr).toMatch(/pass --old deactivate\|delete\|keep; nothing was changed/);
    expect((await listed(u2)).map((k) => k.name)).toEqual(['ci']);
  });

  it('a rotation killed before its successor reached the destination is named at the next start, and finished with the successor its file holds', { timeout: 60_000 }, async ({ expect }) => {
    const data = newDataEnv();
    const { user, env } = await userWithKey('api', data);
    const slow = path.join(root, 'slow.sh');
    // Slow the first time only (killed while it runs), quick when the finish runs it again.
    writeFileSync(slow, `#!/bin/sh\ncat > /dev/null\n[ -f "${root}/slow.started" ] && exit 0\necho started > "${root}/slow.started"\nsleep 5\n`, { mode: 0o755 });
    // The file is written first, then the slow command: killed while it runs.
    // With a 10-minute grace, which the finishing run's own --grace replaces.
    const run = startCli(
      ['keys', 'rotate', 'api', '--to-file', env, '--to-command', slow, '--old', 'delete', '--grace', '10m'],
      cli.home.env({ KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url, ...data }),
    );
    await expect
      .poll(
        () => {
          try {
            return readFileSync(path.join(root, 'slow.started'), 'utf8');
          } catch {
            return '';
          }
        },
        { timeout: 15_000 },
      )
      .toContain('started');
    run.kill('SIGKILL');
    await run.exited;
    expect(record(data).map((r) => r.state)).toEqual(['created']);
    const oldId = record(data)[0]!.old.id;
    const firstSuccessor = (await listed(user)).find((k) => k.name === 'api' && k.id !== oldId)!;

    const next = await cli.run(user, ['keys', 'list'], data);
    expect(next.stderr).toMatch(
      /warning: the rotation of the key "api" \(id [^)]+\) was interrupted before its successor reached every destination .*keydeck keys rotate --finish [^`]+` or undo it with `keydeck keys rotate --undo /,
    );
    // Said only by the commands that touch keys: a cron job on the balance mails nothing about it.
    const unrelated = await cli.run(user, ['billing', 'credits'], data);
    expect(unrelated.code).toBe(0);
    expect(unrelated.stderr).toBe('');

    // Finishing: a new successor, delivered to the same file (the slow command too, given time).
    const finishing = Date.now();
    const fin = await cli.run(user, ['keys', 'rotate', '--finish', 'api', '--grace', '1s'], data);
    expect(fin.code, fin.stderr).toBe(0);
    expect(Date.now() - finishing).toBeLessThan(30_000);
    // The file held the first successor: its value is read back from there, and it goes on to the command.
    expect(fin.stdout).toMatch(/^The successor "api" was read back from .*\.env \(KEYDECK_API_KEY\), which holds it/m);
    expect(fin.stdout).toMatch(/^Deleted the old key "api \(rotated \d{4}-\d\d-\d\d\)"/m);
    const keys = await listed(user);
    expect(keys.map((k) => k.name)).toEqual(['api']);
    expect(keys[0]!.id).toBe(firstSuccessor.id);
    expect(keys[0]!.id).not.toBe(oldId);
    const delivered = /KEYDECK_API_KEY=(\S+)/.exec(readFileSync(env, 'utf8'))![1]!;
    expect((await sb.infer(delivered)).status).toBe(200);
    expect(record(data)).toEqual([]);
  });

  it('a failed destination leaves the old key untouched and the rotation recorded; --undo deletes the successor', { timeout: 30_000 }, async ({ expect }) => {
    const data = newDataEnv();
    const { user, env, key } = await userWithKey('batch', data);
    const r = await cli.run(user, ['keys', 'rotate', 'batch', '--to-file', env, '--to-command', 'false', '--old', 'deactivate'], data);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/delivery_failed: the successor "batch" \(id [^)]+\) was created, but `false` did not take it; the old key "batch" is untouched and still works/);
    // Repro 3: the message names the undo that puts the file back, not a bare `keys delete`.
    expect(r.stderr).not.toMatch(/keydeck keys delete/);
    expect(r.stderr).toMatch(/`keydeck keys rotate --undo [^`]+` puts back what .*\.env \(KEYDECK_API_KEY\) held and deletes the successor/);
    expect(keyIn(env)).not.toBe(key);
    expect((await sb.infer(key)).status).toBe(200);
    expect(record(data).map((x) => x.state)).toEqual(['created']);
    const noYes = await cli.run(user, ['keys', 'rotate', '--undo', 'batch'], data);
    expect(noYes.code).toBe(2);
    const undo = await cli.run(user, ['keys', 'rotate', '--undo', 'batch', '--yes'], data);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toMatch(/^Put back .*\.env \(KEYDECK_API_KEY\) as it was before\.$/m);
    expect(undo.stdout).toMatch(/^Deleted the successor /m);
    expect((await listed(user)).map((k) => [k.name, k.isActive])).toEqual([['batch', true]]);
    // The file holds the old key again, byte for byte as before, and it works.
    expect(readFileSync(env, 'utf8')).toBe(`PORT=8080\nKEYDECK_API_KEY=${key}\n`);
    expect((await sb.infer(key)).status).toBe(200);
    expect(record(data)).toEqual([]);
  });

  it('the docs’ cron line, run three times, leaves one active key of the lineage, named as the job names it, in the file', { timeout: 60_000 }, async ({ expect }) => {
    // The line as docs/delivery.md gives it, its grace shortened (a test does not wait 30 minutes).
    // Its textfile for node_exporter goes to a file of the test's; its stdout, sent to /dev/null there, is read here.
    const line = readFileSync(path.join(import.meta.dirname, '../../docs/delivery.md'), 'utf8')
      .split('\n')
      .find((l) => /^\S+ \S+ \S+ \S+ \S+\s+keydeck (--quiet )?keys rotate /.test(l))!;
    const prom = path.join(root, 'keydeck-rotate-ci.prom');
    const args = line
      .replace(/^.*?keydeck /, '')
      .replace(/\s*>.*$/, '')
      .split(/\s+/)
      .map((a) => (a === '30m' ? '3s' : a.endsWith('.prom') ? prom : a));
    expect(args).toEqual(['--quiet', 'keys', 'rotate', 'ci', '--old', 'delete', '--grace', '3s', '--metrics-textfile', prom]);
    const data = newDataEnv();
    const { user, env } = await userWithKey('ci', data);
    const seen: string[] = [];
    for (let run = 1; run <= 3; run++) {
      const before = keyIn(env);
      const job = startCli(args, cli.home.env({ KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url, ...data }));
      // During the grace: the key in use and its predecessor, no more.
      await job.waitForStdout(/^Waiting \d s \(--grace\)/m);
      const during = (await listed(user))
        .filter((k) => k.isActive)
        .map((k) => k.name.replace(/\d{4}-\d\d-\d\d/, 'DATE'))
        .sort();
      expect(during).toEqual(['ci', 'ci (rotated DATE)']);
      expect(await job.exited, job.stderr()).toBe(0);
      // Quiet for cron: nothing on stderr; the run in the textfile, exit 0.
      expect(job.stderr()).toBe('');
      expect(readFileSync(prom, 'utf8')).toMatch(/^keydeck_cron_last_run_exit_code\{command="keys rotate",profile="default",origin="[^"]+"\} 0$/m);
      const keys = await listed(user);
      expect(keys.map((k) => [k.name, k.isActive])).toEqual([['ci', true]]);
      expect(keyIn(env)).not.toBe(before);
      expect((await sb.infer(keyIn(env)!)).status).toBe(200);
      seen.push(keys[0]!.id);
    }
    expect(new Set(seen).size).toBe(3);
    expect(record(data)).toEqual([]);
  });

  it('leaves a key that stays in use alone when --wait-idle runs out, and says how to finish', { timeout: 60_000 }, async ({ expect }) => {
    const data = newDataEnv();
    const { user, env } = await userWithKey('busy', data);
    const app = startStandin(env);
    await expect.poll(async () => (await listed(user)).find((k) => k.name === 'busy')?.lastUsedAt ?? null, { timeout: 10_000 }).not.toBeNull();
    // The successor goes elsewhere: the application keeps the old key.
    mkdirSync(path.join(root, 'other'), { mode: 0o700 });
    const r = await cli.run(user, ['keys', 'rotate', 'busy', '--to-file', path.join(root, 'other', '.env'), '--old', 'deactivate', '--wait-idle', '3s', '--idle-for', '10s'], data);
    const counts = await app.stop();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /still_in_use: the old key "busy \(rotated \d{4}-\d\d-\d\d\)" was last used \d+ s ago .*after waiting 3 s, so it was left as it is; the rotation stays recorded: run `keydeck keys rotate --finish /,
    );
    expect(counts.failed).toBe(0);
    expect((await listed(user)).find((k) => k.name === 'busy')!.isActive).toBe(true);
    expect(record(data).map((x) => x.state)).toEqual(['delivered']);
    const keep = await cli.run(user, ['keys', 'rotate', '--finish', 'busy', '--old', 'keep'], data);
    expect(keep.code, keep.stderr).toBe(0);
    expect(keep.stdout).toMatch(/^Kept the old key "busy \(rotated \d{4}-\d\d-\d\d\)" \(id [^)]+\) active, as asked/m);
    // The first handover read usage; this one, minutes later, spends none and says so.
    expect(keep.stdout).toMatch(/^Usage figures of just now \(no usage read spent: the last is recent; reads are rationed to 12 per 12 h\): the old key spent \$\d+\.\d{2} in 24 h/m);
    expect(record(data)).toEqual([]);
  });
});
