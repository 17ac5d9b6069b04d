/**
 * The two ways the suites run the built CLI (test/credentials/harness.ts `runCli`): a child
 * process, as a user's shell does, and the test's own thread, the edit-test loop's cheaper run
 * (test/credentials/thread.ts). For each kind of run a suite makes (an answer, a usage error, a
 * refusal, the network down, an exit code set without `process.exit`, stdin read and stdin never
 * read, a file in the home's data dir), both ways give the same exit code, stdout and stderr, so a
 * suite that passes one way means the same the other; and runs at once in the thread keep to
 * their own environment and output, and leave the test's own alone. `npm test` and CI (.ci/run) run
 * the suites' one-shot commands in the thread; KEYDECK_TEST_CLI=process runs them all as processes.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../credentials/harness.js';
import { scripted, UNREACHABLE, useScriptedSandbox, type Scripted } from './scripted.js';
import type { TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

/** What a user sees of a run. */
const seen = (r: CliResult) => ({ code: r.code, stdout: r.stdout, stderr: r.stderr });

/** Runs `args` both ways, one after the other, with the same environment and input. */
async function both(args: string[], env: NodeJS.ProcessEnv, input?: string) {
  const inProcess = await runCli(args, { env, input, runner: 'process' });
  const inThread = await runCli(args, { env, input, runner: 'thread' });
  return { inProcess: seen(inProcess), inThread: seen(inThread) };
}

describe('the CLI as a child process and in the test’s thread', () => {
  it('gives the same code, stdout and stderr for answers, usage errors, refusals and a network failure', async () => {
    const user = await sb.fundedUser(25);
    await sb.call('POST', '/api/keys', { token: user, body: { name: 'parity' } });
    const env = (extra: Record<string, string | undefined> = {}) => cli.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: user, ...extra });
    const cases: Array<[string[], NodeJS.ProcessEnv, number]> = [
      [['--version'], env(), 0],
      [['keys', 'list', '--json'], env(), 0],
      [['billing', 'credits'], env(), 0],
      [['keys', 'frobnicate'], env(), 2],
      [['keys', 'create', '--name', 'x'], env({ KEYDECK_TOKEN: 'mk_NotAKeyOfThisAccount0000' }), 1],
      [['keys', 'list'], env({ KEYDECK_BASE_URL: UNREACHABLE }), 4],
      // Ends with `process.exitCode`, not `process.exit`.
      [['sandbox', '--port', 'http'], env(), 2],
    ];
    for (const [args, e, code] of cases) {
      const { inProcess, inThread } = await both(args, e);
      expect(inProcess.code, `keydeck ${args.join(' ')}: ${inProcess.stderr}`).toBe(code);
      expect(inThread, `keydeck ${args.join(' ')}`).toEqual(inProcess);
    }
  });

  it('gives the same answers to what the executable answers without the program (--version, completion requests)', async () => {
    // The executable (src/bin.ts) answers a lone `--version` or `-V` itself, src/complete.ts a completion request from dist/completion.json; the thread runs the program.
    const user = await sb.fundedUser(25);
    await sb.call('POST', '/api/keys/credit', { token: user, body: { name: 'completed' } });
    const env = cli.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: user });
    const cases: string[][] = [
      ['-V'],
      ['--version', '--quiet'],
      ['__complete', '--', 'keys', ''],
      ['__complete', '--', 'help', ''],
      ['__complete', '--', '--dialect', ''],
      ['__complete', '--', 'keys', 'delete', ''],
      ['__complete', '--', 'keys', 'list', '--'],
    ];
    for (const args of cases) {
      const { inProcess, inThread } = await both(args, env);
      expect(inProcess.code, `keydeck ${args.join(' ')}: ${inProcess.stderr}`).toBe(0);
      expect(inThread, `keydeck ${args.join(' ')}`).toEqual(inProcess);
    }
    // The key ids come from the service, both ways.
    expect((await both(['__complete', '--', 'keys', 'delete', ''], env)).inProcess.stdout).toMatch(/\S+\n/);
  }, 60_000);

  it('reads stdin to its end, and exits when stdin holds what it never reads', async () => {
    const session = await sb.newUser();
    const own = scripted(sb.url);
    try {
      // Read: a token on stdin, refused the same way (not a token of this service).
      const env = own.home.env({ KEYDECK_BASE_URL: sb.url });
      const read = await both(['auth', 'login', '--token-stdin', '--insecure-storage'], env, 'not-a-token\n');
      expect(read.inThread).toEqual(read.inProcess);
      expect(read.inProcess.code).not.toBe(0);
      // Never read: `--version` with something on stdin still exits at once, both ways.
      const unread = await both(['--version'], env, `${session}\n`);
      expect(unread.inThread).toEqual(unread.inProcess);
      expect(unread.inProcess).toMatchObject({ code: 0, stdout: /^\d+\.\d+\.\d+\n$/ });
    } finally {
      own.home.remove();
    }
  });

  it('keeps its files under the HOME of its environment, not the test process’s', async () => {
    const user = await sb.fundedUser(0);
    const own = scripted(sb.url);
    try {
      const env = own.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: user, KEYDECK_CONFIG_DIR: undefined });
      const journal = path.join(own.home.home, '.local', 'share', 'keydeck', 'topups.db');
      const topup = await runCli(['billing', 'topup', '--amount', '10', '--method', 'usdc'], { env, runner: 'thread' });
      expect(topup.code, topup.stderr).toBe(0);
      expect(existsSync(journal)).toBe(true);
      const history = await both(['billing', 'history', '--json'], env);
      expect(history.inThread).toEqual(history.inProcess);
      expect(JSON.parse(history.inProcess.stdout)).toHaveLength(1);
    } finally {
      own.home.remove();
    }
  });

  it('runs at once in the thread each see their own environment, input and output, and leave the test’s own alone', async () => {
    const users = await Promise.all(
      ['ana', 'bo', 'cy', 'di'].map(async (name) => {
        const token = await sb.fundedUser(10);
        await sb.creditKey(token, `key-of-${name}`);
        return { name, token };
      }),
    );
    const tokenBefore = process.env.KEYDECK_TOKEN;
    const stdoutBefore = process.stdout;
    const runs = users.flatMap(({ name, token }) => [
      runCli(['keys', 'list', '--json'], { env: cli.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token }), runner: 'thread' }).then((r) => ({ name, r })),
      // One refused, one usage error, at the same time.
      runCli(['keys', 'create', '--name', name], { env: cli.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: 'mk_NotAKeyOfThisAccount0000' }), runner: 'thread' }).then((r) => ({
        name: 'refused',
        r,
      })),
      runCli(['keys', name], { env: cli.home.env(), runner: 'thread' }).then((r) => ({ name: 'usage', r })),
    ]);
    for (const { name, r } of await Promise.all(runs)) {
      if (name === 'refused') expect(r.code, r.stderr).toBe(1);
      else if (name === 'usage') expect(r).toMatchObject({ code: 2, stdout: '', stderr: /unknown command/ });
      else {
        expect(r.code, r.stderr).toBe(0);
        expect((JSON.parse(r.stdout) as Array<{ name: string }>).map((k) => k.name)).toEqual([`key-of-${name}`]);
      }
    }
    expect(process.env.KEYDECK_TOKEN).toBe(tokenBefore);
    expect(process.stdout).toBe(stdoutBefore);
    expect(process.exitCode).toBeUndefined();
  });
});
