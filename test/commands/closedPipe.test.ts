/**
 * A closed pipe on stdout (`keydeck autotopup status | head -1`): every command ends quietly, as
 * other Unix tools do, with no stack trace: exit 141 (128 + SIGPIPE) when it had more to write
 * after the pipe closed (`autotopup status` with a policy, `billing watch`), or its own code when
 * its last write was the one that failed. The built CLI as a process, its stdout a pipe whose
 * reader is gone before it writes.
 */
import { spawn } from 'node:child_process';
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
