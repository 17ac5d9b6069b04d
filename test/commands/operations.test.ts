/**
 * The repros for the key operations (src/operations/), as the built CLI against the
 * sandbox: a rotation killed while its command runs is undone without leaving the file a deleted
 * key (2); a destination keydeck cannot write stops the command before any key exists (5); a
 * creating answer keydeck cannot fully read still delivers the key it holds, with a warning, and a
 * pledge whose answer was lost is minted again (6); keydeck's secrets never reach a destination
 * command (7); a command past its bound is killed with its whole process group, and a newline in
 * a path never splits a printed line (8). Repro 3 is in ./rotate.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUntilKilled } from '../crash/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { FULL_KEY, scripted, startCli, type Scripted } from './scripted.js';

let sb: TestSandbox;
let pools: TestSandbox;
let cli: Scripted;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  pools = await startTestSandbox({ dialect: 'docs-v2' });
  cli = scripted(sb.url);
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-operations-'));
});
afterAll(async () => {
  cli.home.remove();
  rmSync(root, { recursive: true, force: true });
  await sb.close();
  await pools.close();
});

/** A fresh directory under the test's root (mode 0700). */
const dir = (name: string) => mkdtempSync(path.join(root, `${name}-`));
/** The keys of `token`'s account on `on` (either dialect). */
const listed = async (token: string, on: TestSandbox = sb) => {
  const body = (await on.call('GET', '/api/keys', { token })).body;
  return (Array.isArray(body) ? body : body.data) as Array<{ id: string; name: string; isActive: boolean }>;
};
const keyIn = (file: string) => /KEYDECK_API_KEY=(\S+)/.exec(readFileSync(file, 'utf8'))?.[1];

/**
 * A proxy in front of `upstream` that forwards everything, and hands the answer of the first
 * request matching `method path` to `rewrite` (the upstream's body text in, the client's out).
 */
async function rewritingProxy(upstream: string, method: string, pathname: string, rewrite: (body: string) => string): Promise<{ url: string; close(): Promise<void>; original(): string | undefined }> {
  let original: string | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k))) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${upstream}${req.url}`, { method: req.method!, headers, ...(body && { body }) });
        let text = await answer.text();
        if (original === undefined && req.method === method && req.url?.split('?')[0] === pathname) {
          original = text;
          text = rewrite(text);
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
    original: () => original,
  };
}

describe('the key operations keep their promise', () => {
  it('repro 2: a rotation killed while its command runs is undone: the file holds the old key again, the successor the command may hold is kept and named', { timeout: 60_000 }, async () => {
    const token = await sb.fundedUser(25);
    const old = await sb.creditKey(token, 'api');
    const app = dir('app');
    const env = path.join(app, '.env');
    writeFileSync(env, `PORT=8080\nKEYDECK_API_KEY=${old.apiKey}\n`, { mode: 0o600 });
    const slow = path.join(app, 'slow.sh');
    writeFileSync(slow, '#!/bin/sh\ncat > /dev/null\nsleep 2\n', { mode: 0o755 });
    const data = { KEYDECK_DATA_DIR: dir('data') };
    const runEnv = cli.home.env({ KEYDECK_TOKEN: token, KEYDECK_BASE_URL: sb.url, ...data });
    // Killed once the command runs: the file already holds the successor.
    await runUntilKilled('command.spawned:slow.sh#1', ['keys', 'rotate', 'api', '--to-file', env, '--to-command', slow, '--old', 'delete'], { env: runEnv });
    expect(keyIn(env)).not.toBe(old.apiKey);
    const undo = await cli.run(token, ['keys', 'rotate', '--undo', 'api', '--yes'], data);
    expect(undo.code, undo.stderr).toBe(0);
    expect(readFileSync(env, 'utf8')).toBe(`PORT=8080\nKEYDECK_API_KEY=${old.apiKey}\n`);
    expect((await sb.infer(old.apiKey)).status).toBe(200);
    const successor = (await listed(token)).find((k) => k.id !== old.id)!;
    expect(successor.name).toBe('api (kept after undo)');
    expect(undo.stdout).toMatch(/^`.*slow\.sh` may have taken the new key, and a command cannot be undone\.$/m);
    expect(undo.stdout).toContain(`Kept the successor "api (kept after undo)" (id ${successor.id})`);
    expect(undo.stdout).toMatch(/^The old key "api" is active, as before\.$/m);
  });

  it('an operation in progress in another keydeck is not taken for an interrupted one: not named, not taken up; once that keydeck is killed, it is', { timeout: 60_000 }, async () => {
    const token = await sb.fundedUser(25);
    const app = dir('app');
    const slow = path.join(app, 'slow.sh');
    writeFileSync(slow, `#!/bin/sh\ncat > /dev/null\necho started > "${app}/started"\nsleep 30\n`, { mode: 0o755 });
    const data = { KEYDECK_DATA_DIR: dir('data') };
    const running = startCli(
      ['keys', 'create', 'web', '--to-file', path.join(app, '.env'), '--to-command', slow, '--command-timeout', '60'],
      cli.home.env({ KEYDECK_TOKEN: token, KEYDECK_BASE_URL: sb.url, ...data }),
    );
    try {
      await expect.poll(() => existsSync(path.join(app, 'started')), { timeout: 15_000 }).toBe(true);
      const [list, finish] = await Promise.all([cli.run(token, ['keys', 'list'], data), cli.run(token, ['keys', 'create', '--finish', 'web'], data)]);
      expect(list.stderr).not.toMatch(/was interrupted/);
      expect(finish.code).toBe(1);
      expect(finish.stderr).toMatch(/operation_in_progress: the creation of "web" is in progress in another keydeck/);
    } finally {
      running.kill('SIGKILL');
      await running.exited;
    }
    const after = await cli.run(token, ['keys', 'list'], data);
    expect(after.stderr).toMatch(/the creation of the key "web" was interrupted before the new key reached every destination/);
  });

  it('repro 5: a --to-file keydeck cannot write (a read-only place, a parent that is a file) stops keys create and keys rotate before any key exists', async () => {
    const token = await sb.fundedUser(25);
    const file = path.join(dir('plain'), 'regular.txt');
    writeFileSync(file, 'x', { mode: 0o600 });
    const readOnly = path.join('/proc/self', 'app.env');
    const [a, b] = await Promise.all([cli.run(token, ['keys', 'create', 'web', '--to-file', readOnly]), cli.run(token, ['keys', 'create', 'web', '--to-file', path.join(file, '.env')])]);
    expect([a.code, b.code]).toEqual([1, 1]);
    expect(a.stderr).toMatch(
      /destination_refused: keydeck cannot create files in \/proc\/\d+ \(\w+\), so \/proc\/self\/app\.env cannot be written: choose a directory you can write to; no key was created/,
    );
    expect(b.stderr).toMatch(/destination_refused: .*regular\.txt.*; no key was created/);
    await sb.creditKey(token, 'old');
    const r = await cli.run(token, ['keys', 'rotate', 'old', '--to-file', readOnly, '--old', 'delete']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/destination_refused: keydeck cannot create files in .*; no key was created/);
    expect((await listed(token)).map((k) => k.name)).toEqual(['old']);
  });

  it('repro 6: a creating answer keydeck cannot fully read still delivers the key it holds, with a warning naming what was unexpected', async () => {
    const token = await sb.fundedUser(25);
    // The value under another field, keyType/isActive/createdAt missing.
    const proxy = await rewritingProxy(sb.url, 'POST', '/api/keys/credit', (text) => {
      const { apiKey, id, name } = JSON.parse(text) as { apiKey: string; id: string; name: string };
      return JSON.stringify({ id, name, secret_value: apiKey });
    });
    try {
      const env = path.join(dir('app'), '.env');
      const r = await cli.run(token, ['keys', 'create', 'web', '--to-file', env], { KEYDECK_BASE_URL: proxy.url, KEYDECK_DATA_DIR: dir('data') });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^warning: the service's answer could not be fully read \(.*\), but it held the key's value \(in secret_value\): keydeck goes on with it$/m);
      const sent = (JSON.parse(proxy.original()!) as { apiKey: string }).apiKey;
      expect(keyIn(env)).toBe(sent);
      expect((await sb.infer(sent)).status).toBe(200);
      expect(r.stdout + r.stderr).not.toMatch(FULL_KEY);
    } finally {
      await proxy.close();
    }
  });

  it('repro 6: a pledge whose minting answer was lost is minted again: "one key per subscription" does not block it', async () => {
    const token = await pools.newUser();
    const pledge = (await pools.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['asia'] } })).body.id as string;
    const proxy = await rewritingProxy(pools.url, 'POST', '/api/keys/subscription', (text) => text.slice(0, 20));
    const data = { KEYDECK_DATA_DIR: dir('data') };
    const env = path.join(dir('app'), '.env');
    let fin;
    let lost;
    try {
      const r = await cli.run(token, ['keys', 'create', '--subscription', pledge, 'pool-key', '--to-file', env], { KEYDECK_BASE_URL: proxy.url, ...data });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/warning: the key "pool-key" may have been created: `keydeck keys create --finish pool-key` finds it/);
      lost = (await listed(token, pools)).find((k) => k.name === 'pool-key')!;
      expect(lost.isActive).toBe(true);
      // The same service (the proxy passes everything from now on): the record belongs to its origin.
      fin = await cli.run(token, ['keys', 'create', '--finish', 'pool-key'], { KEYDECK_BASE_URL: proxy.url, ...data });
    } finally {
      await proxy.close();
    }
    expect(fin.code, fin.stderr).toBe(0);
    expect(fin.stdout).toMatch(/^The key "pool-key" \(id [^)]+\) was created, but its value never reached keydeck: a new key is made, and this one deleted once that is delivered\.$/m);
    const keys = await listed(token, pools);
    expect(keys.map((k) => [k.name, k.isActive])).toEqual([['pool-key', true]]);
    expect(keys[0]!.id).not.toBe(lost.id);
    expect((await pools.infer(keyIn(env)!)).status).not.toBe(401);
  });

  it('repro 7: keydeck’s secrets never reach a destination command: named on its line it is refused before anything exists; its environment holds none', async () => {
    const token = await sb.fundedUser(25);
    const refused = await cli.run(token, ['keys', 'create', 'web', '--to-command', 'cmd $KEYDECK_TOKEN_PROD ${KEYDECK_SK}']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/invalid_destination: --to-command: \$KEYDECK_TOKEN_PROD is one of keydeck's secrets/);
    const quoted = await cli.run(token, ['keys', 'create', 'web', '--to-command', `sh -c 'echo $KEYDECK_SK'`]);
    expect(quoted.code).toBe(2);
    const app = dir('app');
    const dump = path.join(app, 'dump.sh');
    writeFileSync(dump, `#!/bin/sh\ncat > /dev/null\nenv > "${app}/env"\nprintf '%s\\n' "$@" > "${app}/argv"\n`, { mode: 0o755 });
    const other = 'sk_AnotherKeyOfTheUsers0123456789abcdef';
    const r = await cli.run(token, ['keys', 'create', 'web', '--to-command', `${dump} --label x`], {
      KEYDECK_TOKEN_PROD: 'mk_prodProfileKey0123456789',
      KEYDECK_SK: other,
      MY_OPENAI: other,
      KEYDECK_DATA_DIR: dir('data'),
    });
    expect(r.code, r.stderr).toBe(0);
    const childEnv = readFileSync(path.join(app, 'env'), 'utf8');
    expect(childEnv).not.toMatch(/^KEYDECK_TOKEN/m);
    expect(childEnv).not.toMatch(/^KEYDECK_SK/m);
    expect(childEnv).not.toContain(other);
    expect(childEnv).not.toContain(token);
    expect(childEnv).toMatch(/^PATH=/m);
    expect((await listed(token)).map((k) => k.name)).toEqual(['web']);
  });

  it('repro 8: a command past --command-timeout is killed with its whole process group; a newline in a --to-file path never splits a printed line', { timeout: 30_000 }, async () => {
    const token = await sb.fundedUser(25);
    const app = dir('app');
    const hang = path.join(app, 'hang.sh');
    writeFileSync(hang, `#!/bin/sh\ncat > /dev/null\nsleep 60 &\necho $! > "${app}/grandchild"\nsleep 60\n`, { mode: 0o755 });
    const r = await cli.run(token, ['keys', 'create', 'slow', '--to-command', hang, '--command-timeout', '1'], { KEYDECK_DATA_DIR: dir('data') });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/did not finish within 1 s and was killed/);
    const grandchild = readFileSync(path.join(app, 'grandchild'), 'utf8').trim();
    await expect.poll(() => existsSync(`/proc/${grandchild}`) && !/State:\s+Z/.test(readFileSync(`/proc/${grandchild}/status`, 'utf8')), { timeout: 5000 }).toBe(false);

    const odd = path.join(app, 'a\nb');
    mkdirSync(odd, { mode: 0o700 });
    const w = await cli.run(token, ['keys', 'create', 'web', '--to-file', path.join(odd, '.env')], { KEYDECK_DATA_DIR: dir('data') });
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toMatch(/^delivered: wrote KEYDECK_API_KEY into .*a\\u000ab\/\.env \(a new file, mode 0600\)$/m);
    expect(w.stdout.split('\n').some((l) => l.startsWith('b/'))).toBe(false);
  });
});
