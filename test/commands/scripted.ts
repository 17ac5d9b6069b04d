/**
 * Harness of the scriptable-command suites (keys, mgmt-keys, billing, cli): the built CLI
 * (`dist/cli.js`) run against an in-process sandbox on loopback with a clean environment
 * (temp HOME and config dir, no D-Bus), plus a streaming runner for `billing watch`.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { cliPath, makeTempHome, runCli, type CliResult, type CliRunner, type TempHome } from '../credentials/harness.js';
import { countCliStart } from '../cli-starts.js';

export { FULL_KEY } from '../credentials/harness.js';
export type { CliResult, TempHome };

/** An address where nothing listens: requests fail at once with ECONNREFUSED. */
export const UNREACHABLE = 'http://127.0.0.1:9';

/** A CLI bound to one service and one temp home. */
export interface Scripted {
  readonly home: TempHome;
  /** Runs `keydeck …args` with `KEYDECK_TOKEN=token` (unless undefined) and the base URL. */
  run(token: string | undefined, args: readonly string[], extraEnv?: Record<string, string | undefined>): Promise<CliResult>;
  /** Starts `keydeck …args` and streams its output (for `billing watch`). */
  start(token: string | undefined, args: readonly string[], extraEnv?: Record<string, string | undefined>): Streaming;
}

/**
 * Creates a {@link Scripted} for `baseUrl`; call `home.remove()` when done. `runner` overrides how
 * its one-shot runs start (test/credentials/harness.ts `CLI_RUNNER`): `process` for a suite about
 * what only a process has (NODE_EXTRA_CA_CERTS, read by Node when the process starts).
 */
export function scripted(baseUrl: string, options: { runner?: CliRunner } = {}): Scripted {
  const home = makeTempHome();
  const envFor = (token: string | undefined, extra: Record<string, string | undefined> = {}) => home.env({ KEYDECK_BASE_URL: baseUrl, ...(token !== undefined && { KEYDECK_TOKEN: token }), ...extra });
  return {
    home,
    run: (token, args, extra) => runCli(args, { env: envFor(token, extra), ...(options.runner && { runner: options.runner }) }),
    start: (token, args, extra) => startCli(args, envFor(token, extra)),
  };
}

/**
 * The suite-level rig of the command suites: a sandbox started and a {@link Scripted} bound to it
 * before the suite's tests (in the `describe` or file where it is called), both removed after
 * them. `ready` receives them once started.
 */
export function useScriptedSandbox(ready: (sb: TestSandbox, cli: Scripted) => void): void {
  let sb: TestSandbox | undefined;
  let cli: Scripted | undefined;
  beforeAll(async () => {
    sb = await startTestSandbox();
    cli = scripted(sb.url);
    ready(sb, cli);
  });
  afterAll(async () => {
    cli?.home.remove();
    await sb?.close();
  });
}

/** A running CLI whose output is read while it runs. */
export interface Streaming {
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches (rejects after `timeoutMs` with what was seen). */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves once stderr matches. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Settles with the exit code (null when killed by a signal it did not handle). */
  readonly exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

/** Spawns the built CLI (the harness's snapshot of dist/) with `…args`, `env` and stdin closed. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv): Streaming {
  countCliStart('process');
  const child = spawn(process.execPath, [cliPath(), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitFor = async (read: () => string, pattern: RegExp, timeoutMs: number): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(read())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}\nstdout: ${out}\nstderr: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    stdout: () => out,
    stderr: () => err,
    waitForStdout: (pattern, timeoutMs = 15_000) => waitFor(() => out, pattern, timeoutMs),
    waitForStderr: (pattern, timeoutMs = 15_000) => waitFor(() => err, pattern, timeoutMs),
    exited,
    kill: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** The lines of a text, without the final empty one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l, i, all) => !(i === all.length - 1 && l === ''));
}

/** The columns of a whitespace-aligned table line (cells may hold single spaces). */
export function cells(line: string): string[] {
  return line.trim().split(/\s{2,}/);
}
