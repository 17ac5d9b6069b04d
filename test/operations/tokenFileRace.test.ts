/**
 * `mgmt-keys rotate --token-file` run as root on a token file in a directory another user owns
 * (contrib's systemd layout: `tokens/` of the exporter's user, rotated by root's cron), while that
 * user plants links in a tight loop: at the backup's name, at the token file's own name, and over
 * every other name that appears there (the temporary files). The rotation runs as the built CLI
 * (a process) through a proxy that holds the create's answer, so the planting surely overlaps
 * every write of the rotation; the planter is a real process running as uid 65534 (`nobody`).
 * Nothing outside the token file's directory may be written, chowned or created.
 *
 * Needs root (to create files of another uid and start a process as it): skipped with a message
 * elsewhere, never in CI (CI runs as root).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, type TempHome } from '../credentials/harness.js';
import { startCli } from '../commands/scripted.js';
import { startFaultProxy, type FaultProxy } from '../resilience/fault-proxy.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';

const AS_ROOT = process.getuid?.() === 0;
/** The directory owner's uid (nobody): not root, not the test's. */
const OWNER = 65534;

if (!AS_ROOT && process.env.CI) throw new Error('test/operations/tokenFileRace.test.ts needs root, and CI runs as root: it must not be skipped there');
if (!AS_ROOT) console.warn('test/operations/tokenFileRace.test.ts: skipped, not root (it creates files of another uid and runs a process as it)');

/**
 * The planter, run as the directory's owner: waits for `go` on stdin, then in batches (so that
 * `stop` is heard) makes each watched name a link to its victim, replacing whatever is there by a
 * rename, and every other new name a link to the last victim. Prints how many links it planted.
 */
const PLANTER = `
const fs = require('node:fs'); const path = require('node:path');
const [dir, token, backup, victimToken, victimBackup, victimOther] = process.argv.slice(1);
let planted = 0; let go = false; let n = 0;
const plant = (name, victim) => {
  const link = path.join(dir, '.planter-' + (n++ % 8));
  try { fs.rmSync(link, { force: true }); fs.symlinkSync(victim, link); fs.renameSync(link, name); planted++; } catch {}
};
const round = () => {
  for (let i = 0; i < 50; i++) {
    plant(backup, victimBackup);
    plant(token, victimToken);
    let names = [];
    try { names = fs.readdirSync(dir); } catch {}
    for (const name of names) {
      if (name.startsWith('.planter-') || name === path.basename(token) || name === path.basename(backup)) continue;
      let st; try { st = fs.lstatSync(path.join(dir, name)); } catch { continue; }
      if (!st.isSymbolicLink()) plant(path.join(dir, name), victimOther);
    }
  }
  if (go) setImmediate(round);
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  if (d.includes('go') && !go) { go = true; round(); }
  if (d.includes('stop')) { go = false; process.stdout.write(String(planted) + '\\n'); process.exit(0); }
});
`;

describe.runIf(AS_ROOT)('a token file in another user’s directory, rotated by root while that user plants links', () => {
  let sb: TestSandbox;
  let proxy: FaultProxy;
  let home: TempHome;
  let base: string;
  beforeAll(async () => {
    sb = await startTestSandbox();
    proxy = await startFaultProxy(sb.url);
    home = makeTempHome();
    base = mkdtempSync(path.join(tmpdir(), 'keydeck-race-'));
    chmodSync(base, 0o755); // root's; the owner of tokens/ may go through it, not write in it
  });
  afterAll(async () => {
    rmSync(base, { recursive: true, force: true });
    home?.remove();
    await proxy?.close();
    await sb?.close();
  });

  it('overwrites, chowns and creates nothing outside the token file’s directory', async () => {
    const session = await sb.fundedUser(0);
    const key = ((await sb.call('POST', '/api/keys/management', { token: session, body: { name: 'exporter' } })).body as { apiKey: string }).apiKey;
    const tokens = path.join(base, 'tokens');
    mkdirSync(tokens, { mode: 0o700 });
    chownSync(tokens, OWNER, OWNER);
    const token = path.join(tokens, 'prod.token');
    writeFileSync(token, `${key}\n`, { mode: 0o600 });
    chownSync(token, OWNER, OWNER);
    // Root's files elsewhere, which the owner of tokens/ must never get written or handed over.
    const victims = path.join(base, 'victims');
    mkdirSync(victims, { mode: 0o700 });
    const names = ['etc-shadow', 'root-token', 'cron-job'];
    for (const n of names) writeFileSync(path.join(victims, n), `root's ${n}\n`, { mode: 0o600 });
    const node = nodeFor(OWNER, base);
    const before = snapshot(base, tokens);

    // The create's answer is held 400 ms: the rotation is then between its check and its writes.
    proxy.set({ kind: 'delay', ms: 400, count: 1, only: { method: 'POST', path: '/api/keys/management' } });
    const planter = spawn(node, ['-e', PLANTER, tokens, token, path.join(tokens, '.prod.token.keydeck-previous'), ...names.map((n) => path.join(victims, n))], {
      uid: OWNER,
      gid: OWNER,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      const env = home.env({ KEYDECK_BASE_URL: proxy.url, KEYDECK_DATA_DIR: path.join(home.home, 'data') });
      const run = startCli(['mgmt-keys', 'rotate', '--token-file', token], env);
      await waitFor(() => proxy.seen.some((r) => r.method === 'POST' && r.path === '/api/keys/management'), 15_000);
      planter.stdin.write('go\n');
      const code = await run.exited;
      const planted = await stop(planter);
      // Nothing outside tokens/ changed: the same files, contents, owners and modes.
      expect(snapshot(base, tokens)).toEqual(before);
      // It really raced: links were planted while the rotation wrote.
      expect(planted).toBeGreaterThan(100);
      // The rotation could not finish in a directory its owner kept breaking, and said why.
      expect(code, run.stderr()).not.toBe(0);
      expect(run.stderr()).toMatch(/symbolic link|not a regular file/);
    } finally {
      if (planter.exitCode === null) planter.kill('SIGKILL');
      proxy.pass();
    }
  }, 60_000);
});

/**
 * A Node.js that `uid` may run: the test's own, or a copy in `dir` when a directory on the way to
 * it is closed to that user (a clone in a private directory).
 */
function nodeFor(uid: number, dir: string): string {
  if (spawnSync(process.execPath, ['-e', ''], { uid, gid: uid }).status === 0) return process.execPath;
  const copy = path.join(dir, 'node');
  copyFileSync(process.execPath, copy);
  chmodSync(copy, 0o755);
  return copy;
}

/** Every entry under `root` but `skip` (not followed): path → owner, mode and content. */
function snapshot(root: string, skip: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const at = path.join(dir, name);
      if (at === skip) continue;
      const st = lstatSync(at);
      out[at] = `${st.uid}:${st.gid} ${(st.mode & 0o7777).toString(8)} ${st.isFile() ? readFileSync(at, 'utf8') : st.isDirectory() ? '(dir)' : '(other)'}`;
      if (st.isDirectory()) walk(at);
    }
  };
  walk(root);
  return out;
}

async function waitFor(ok: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Stops the planter; resolves with how many links it planted. */
function stop(planter: ChildProcessWithoutNullStreams): Promise<number> {
  let out = '';
  planter.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve) => {
    planter.on('close', () => resolve(Number(out.trim()) || 0));
    planter.stdin.write('stop\n');
  });
}
