/**
 * Test harness of the credential, config and auth suites: a temp HOME + config dir per test,
 * the built CLI (a snapshot of `dist/`, built by test/global-setup.ts) run as a child process or in
 * the test's own thread ({@link runCli}) with a clean environment (no D-Bus, no KEYDECK_* variables),
 * D-Bus helpers, and the secret scan.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { countCliStart } from '../cli-starts.js';
import { runCliInThread } from './thread.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The path of the run's snapshot of the built CLI's `cli.js` (test/global-setup.ts takes it right
 * after the build, so a rebuild of dist/ during the run cannot pull the files from under a test,
 * and removes it after the run, with the compile cache it points NODE_COMPILE_CACHE at).
 */
export function cliPath(): string {
  return inject('cliSnapshot');
}

/** A full key value (prefix + more than the 8 characters of a keyPrefix). */
export const FULL_KEY = /\b(?:mk|sk)_[A-Za-z0-9]{12,}/;

/** A throwaway HOME with `config/` as KEYDECK_CONFIG_DIR. */
export interface TempHome {
  readonly home: string;
  readonly configDir: string;
  /** The environment of a CLI run: no D-Bus, no KEYDECK_TOKEN/PROFILE/BASE_URL, plus `extra`. */
  env(extra?: Record<string, string | undefined>): NodeJS.ProcessEnv;
  remove(): void;
}

/** Creates a {@link TempHome}. */
export function makeTempHome(): TempHome {
  const home = mkdtempSync(path.join(tmpdir(), 'keydeck-home-'));
  const configDir = path.join(home, 'config');
  return {
    home,
    configDir,
    env(extra = {}) {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const name of [
        'DBUS_SESSION_BUS_ADDRESS',
        'XDG_RUNTIME_DIR',
        'XDG_CONFIG_HOME',
        'XDG_DATA_HOME',
        'KEYDECK_TOKEN',
        'KEYDECK_PROFILE',
        'KEYDECK_BASE_URL',
        'KEYDECK_KEYCHAIN_TIMEOUT_MS',
        'KEYDECK_CHAIN_RPC',
        'KEYDECK_CHAIN_CHECKS',
        'DISPLAY',
      ]) {
        delete env[name];
      }
      Object.assign(env, { HOME: home, KEYDECK_CONFIG_DIR: configDir, NO_COLOR: '1' });
      for (const [k, v] of Object.entries(extra)) {
        if (v === undefined) delete env[k];
        else env[k] = v;
      }
      return env;
    },
    remove() {
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The outcome of one CLI run. */
export interface CliResult {
  readonly code: number | null;
  /** The signal that ended the process (a run as a process killed by one: `SIGKILL`); else absent. */
  readonly signal?: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time of the run, ms. */
  readonly ms: number;
}

/**
 * How {@link runCli} starts the built CLI. `process` (KEYDECK_TEST_CLI=process):
 * `node cli.js …args`, a child process, exactly as a user's shell does. `thread` (the default, for
 * `npm test` and CI alike): the run's snapshot of dist/ in the test's own thread, with its own
 * `process.env`, argv, stdin, stdout, stderr and exit code (test/credentials/thread.ts). A process
 * costs ~225 ms of CPU for a one-shot command (exec, Node's bootstrap, loading ~50 modules of
 * dist/); a run in the thread costs the command's own work, ~7 ms on average, its modules loaded
 * by the test process's first run; the suites run the CLI about 470 times this way (and ~90 times as processes,
 * 72 of them in a pseudo-terminal). What a thread cannot be, the suites that need it spawn
 * themselves: signals (`startCli`), a terminal (test/e2e/pty.ts), the Node.js version check of the
 * executable (test/build/); and test/commands/runner.test.ts checks that both ways give the same
 * code, stdout and stderr.
 */
export const CLI_RUNNER: CliRunner = process.env.KEYDECK_TEST_CLI === 'process' ? 'process' : 'thread';

/** Where {@link runCli} runs the CLI (see {@link CLI_RUNNER}). */
export type CliRunner = 'process' | 'thread';

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** The CLI's whole environment. */
  readonly env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed (default: nothing). */
  readonly input?: string;
  /** Default 15,000. */
  readonly timeoutMs?: number;
  /** Default {@link CLI_RUNNER}. */
  readonly runner?: CliRunner;
  /** The working directory (default the test process's). */
  readonly cwd?: string;
}

/**
 * Runs `keydeck …args` (the run's snapshot of dist/cli.js) with `env`, writing `input` to stdin
 * (then closing it), in a child process or the test's thread ({@link CLI_RUNNER}, or `runner`).
 * Rejects after `timeoutMs` (default 15 s): a process is killed; a run in the thread is left to
 * what it waits for, its output no longer read.
 */
export function runCli(args: readonly string[], options: RunCliOptions): Promise<CliResult> {
  const runner = options.runner ?? CLI_RUNNER;
  countCliStart(runner);
  return runner === 'thread' ? runInThread(args, options) : runCliInProcess(args, options);
}

/** {@link runCli} in the test's own thread (test/credentials/thread.ts). */
async function runInThread(args: readonly string[], options: RunCliOptions): Promise<CliResult> {
  const started = performance.now();
  const result = await runCliInThread(args, {
    env: options.env,
    cwd: options.cwd,
    input: options.input ?? '',
    cli: cliPath(),
    timeoutMs: options.timeoutMs ?? 15_000,
    timedOut: (stdout, stderr) => timedOut(args, options, stdout, stderr),
  });
  return { ...result, ms: performance.now() - started };
}

/** The error of a run that outlived its `timeoutMs`, with what it had written. */
function timedOut(args: readonly string[], options: RunCliOptions, stdout: string, stderr: string): Error {
  return new Error(`keydeck ${args.join(' ')} did not finish within ${options.timeoutMs ?? 15_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`);
}

function runCliInProcess(args: readonly string[], options: RunCliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cliPath(), ...args], { env: options.env, stdio: ['pipe', 'pipe', 'pipe'], ...(options.cwd !== undefined && { cwd: options.cwd }) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(timedOut(args, options, stdout, stderr));
    }, options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, ...(signal !== null && { signal }), stdout, stderr, ms: performance.now() - started });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Every file under `dir` (recursively). */
export function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/**
 * The files under `dir` that hold a full key value (or one of `secrets`), except `allowed`
 * (the consented credentials.json). The scan every test ends with: it must be empty.
 */
export function filesWithSecrets(dir: string, secrets: readonly string[] = [], allowed: readonly string[] = []): string[] {
  return filesUnder(dir).filter((file) => {
    if (allowed.includes(file)) return false;
    const text = readFileSync(file, 'latin1');
    return new RegExp(FULL_KEY.source).test(text) || secrets.some((s) => s.length > 0 && text.includes(s));
  });
}

/**
 * Kills (SIGKILL) this user's processes whose environment has `HOME=home`: what a test started in a
 * throwaway home and may have left behind when it failed or timed out. A keyring daemon forks away
 * from the D-Bus session that started it and outlives a session killed mid-way (one was found
 * orphaned after a run in which two tests failed under load). Linux's /proc; elsewhere nothing.
 */
export function killProcessesOfHome(home: string): void {
  const needle = Buffer.from(`\0HOME=${home}\0`);
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      if (Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${pid}/environ`)]).includes(needle)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
}

/** True when `cmd` is on PATH. */
export function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** A new sandbox user: its session token (POST /sandbox/users). */
export async function newSandboxUser(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/sandbox/users`, { method: 'POST' });
  if (!res.ok) throw new Error(`POST /sandbox/users: HTTP ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

/** Calls the sandbox's /api with `token` (test set-up and checks; not the code under test). */
export async function api<T>(baseUrl: string, token: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${route}: HTTP ${res.status}`);
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The management keys of the account of `token`. */
export function managementKeys(baseUrl: string, token: string): Promise<Array<{ id: string; name: string; keyPrefix: string }>> {
  return api(baseUrl, token, 'GET', '/api/keys/management');
}
