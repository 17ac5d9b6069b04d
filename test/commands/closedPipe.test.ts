/**
 * A closed pipe on stdout (`keydeck autotopup status | head -1`): every command ends quietly, as
 * other Unix tools do, with no stack trace: exit 141 (128 + SIGPIPE) when it had more to write
 * after the pipe closed (`autotopup status` with a policy, `billing watch`), or its own code when
 * its last write was the one that failed. The built CLI as a process, its stdout a pipe whose
 * reader is gone before it writes.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countCliStart } from '../cli-starts.js';
import { cliPath } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { scripted, type Scripted } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
beforeAll(async () => {
  sb = await startTestSandbox();
  cli = scripted(sb.url);
});
afterAll(async () => {
  cli?.home.remove();
  await sb?.close();
});

/** Runs `keydeck …args` in `on`'s home with its stdout's reader closed at once; its exit code and stderr. */
function withClosedStdout(on: Scripted, args: readonly string[], token: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  countCliStart('process');
  const env = on.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token });
  const child = spawn(process.execPath, [cliPath(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

describe.concurrent('a closed pipe on stdout', () => {
  it('ends `keydeck autotopup status` with a policy quietly: no stack trace, exit 141', { timeout: 30_000 }, async () => {
    const token = await sb.fundedUser(25);
    const home = scripted(sb.url);
    try {
      const set = await home.run(token, ['autotopup', 'set', '--below', '20', '--amount', '30', '--yes']);
      expect(set.code, set.stderr).toBe(0);
      const r = await withClosedStdout(home, ['autotopup', 'status'], token);
      expect(r.stderr).toBe('');
      expect([r.code, r.signal]).toEqual([141, null]);
    } finally {
      home.home.remove();
    }
  });

  it('ends `keydeck billing watch` (which would write on) at once, quietly: exit 141', { timeout: 30_000 }, async () => {
    const r = await withClosedStdout(cli, ['billing', 'watch', '--interval', '2'], await sb.fundedUser(25));
    expect(r.stderr).toBe('');
    expect([r.code, r.signal]).toEqual([141, null]);
  });

  // `--version` and a completion request are answered without the program (src/bin.ts, src/complete.ts): written without a stream for stdout.
  for (const args of [
    ['keys', 'list'],
    ['billing', 'credits', '--json'],
    ['help', 'commands'],
    ['billing', 'status'],
    ['--version'],
    ['-V'],
    ['__complete', '--', 'keys', ''],
    ['__complete', '--', '--profile', ''],
  ]) {
    it(`ends \`keydeck ${args.join(' ')}\` quietly: no stack trace, exit 0 or 141`, { timeout: 30_000 }, async () => {
      const r = await withClosedStdout(cli, args, await sb.fundedUser(25));
      expect(r.stderr).toBe('');
      expect([0, 141]).toContain(r.code);
    });
  }
});

/**
 * Runs `command` with its stdout a pipe made non-blocking (as some shells and parents leave it)
 * whose reader waits a second and then reads 16 KB every 20 ms; Perl (part of every Debian and
 * macOS) makes the pipe, as Node cannot. What came through, and the exit code.
 */
function throughSlowNonBlockingPipe(command: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  const PERL = `use Fcntl;
pipe(my $r, my $w) or die "pipe: $!";
fcntl($w, F_SETFL, fcntl($w, F_GETFL, 0) | O_NONBLOCK) or die "fcntl: $!";
my $pid = fork();
if (!$pid) { close $r; open(STDOUT, '>&', $w) or die "dup: $!"; exec @ARGV; die "exec: $!"; }
close $w;
sleep 1;
binmode STDOUT;
while (1) { my $n = sysread($r, my $buf, 16384); last if !$n; print $buf; select(undef, undef, undef, 0.02); }
waitpid($pid, 0);
exit($? >> 8);`;
  countCliStart('process');
  const child = spawn('perl', ['-e', PERL, ...command], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks), stderr })));
}

describe('a full pipe on stdout', () => {
  it('gets all of a long completion answer, when the pipe is non-blocking and its reader slow', { timeout: 30_000 }, async () => {
    // 3,000 profiles of 60 characters: a 183 KB answer, past the 64 KiB a pipe holds. On a
    // non-blocking pipe the direct write stops part-way (EAGAIN); the rest must follow before the exit.
    const home = scripted(sb.url);
    try {
      mkdirSync(home.home.configDir, { recursive: true, mode: 0o700 });
      const names = Array.from({ length: 3000 }, (_, i) => `profile-${String(i).padStart(5, '0')}-${'x'.repeat(46)}`);
      writeFileSync(path.join(home.home.configDir, 'config.json'), JSON.stringify({ profiles: Object.fromEntries(names.map((n) => [n, {}])) }), { mode: 0o600 });
      const r = await throughSlowNonBlockingPipe([process.execPath, cliPath(), '__complete', '--', '--profile', ''], home.home.env());
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.toString('utf8')).toBe(`${names.join('\n')}\n`);
    } finally {
      home.home.remove();
    }
  });
});
