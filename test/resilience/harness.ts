/**
 * The resilience suites' rig: a sandbox started in-process (in memory, on loopback), a
 * {@link FaultProxy} in front of it, a management key created on the sandbox, and the built app
 * (`dist/cli.js`) in a pseudo-terminal with `KEYDECK_TOKEN` = that key, `KEYDECK_BASE_URL` =
 * the proxy, a 2-second poll (`--interval 2`) and a short call deadline
 * (`KEYDECK_TIMEOUT_MS`: a held answer is a timeout within 3 s instead of 10 s, while a loaded
 * machine still answers every healthy call well within it).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { CLI, startApp, type PtyApp, type StartAppOptions } from '../e2e/pty.js';
import { cleanEnv } from '../e2e/session.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

/** The call deadline keydeck gets in these suites, ms (KEYDECK_TIMEOUT_MS). */
export const CALL_TIMEOUT_MS = 3000;
/** The poll interval keydeck gets, seconds (`--interval`). */
export const POLL_SECONDS = 2;
/** The name of the credit key every rig starts with (a second row in the Keys table). */
export const CREDIT_KEY_NAME = 'chaos-key';
/** The account's subscription key, as the demo account's first one (a row; its name cut to fit 80 columns). */
export const SUBSCRIPTION_KEY_NAME = 'Standard sub';

/**
 * The environment of a clean user (test/e2e/session.ts: no keychain, no CI, temp config and data
 * dirs), without XDG_RUNTIME_DIR or KEYDECK_TIMEOUT_MS; the given variables on top (undefined removes one).
 */
export function isolatedEnv(root: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv(root);
  for (const name of ['XDG_RUNTIME_DIR', 'KEYDECK_TIMEOUT_MS']) delete env[name];
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * What runs behind keydeck: the sandbox (in memory), the fault proxy in front of it, a
 * management key, a credit key, a temp dir, and the environment keydeck gets.
 */
export interface Upstream {
  readonly sandbox: TestSandbox;
  readonly proxy: FaultProxy;
  /** The session token of the account keydeck manages ($25, one credit key at the start; secret). */
  readonly account: string;
  /** The management key keydeck uses (secret: never printed by the tests). */
  readonly managementKey: string;
  /** Its id on the sandbox (to delete it "from another session"). */
  readonly managementKeyId: string;
  /** A temp dir (config and data dirs of keydeck) removed by {@link Upstream.close}. */
  readonly dir: string;
  /** keydeck's environment: {@link isolatedEnv} with KEYDECK_TOKEN, KEYDECK_BASE_URL = the proxy, KEYDECK_TIMEOUT_MS. */
  readonly env: NodeJS.ProcessEnv;
  /** Stops proxy and sandbox, removes the temp dir. */
  close(): Promise<void>;
}

/** Starts the {@link Upstream}. */
export async function startUpstream(): Promise<Upstream> {
  const sandbox = await startTestSandbox();
  const proxy = await startFaultProxy(sandbox.url);
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-resilience-'));
  // An account of its own as the demo account used to be: $25 and a standard subscription key (the
  // demo account now has three weeks of history).
  const account = await sandbox.fundedUser(25);
  await sandbox.subscription(account, 'standard', ['europe']);
  const created = await sandbox.call<{ id: string; apiKey: string }>('POST', '/api/keys/management', { token: account, body: { name: 'resilience' } });
  if (created.status !== 200) throw new Error(`could not create the management key: HTTP ${created.status}`);
  await sandbox.creditKey(account, CREDIT_KEY_NAME);
  return {
    sandbox,
    proxy,
    account,
    managementKey: created.body.apiKey,
    managementKeyId: created.body.id,
    dir,
    env: isolatedEnv(dir, { KEYDECK_TOKEN: created.body.apiKey, KEYDECK_BASE_URL: proxy.url, KEYDECK_TIMEOUT_MS: String(CALL_TIMEOUT_MS) }),
    async close() {
      await proxy.close();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A running rig: the {@link Upstream} and keydeck's TUI in a pty. */
export interface Rig extends Upstream {
  readonly app: PtyApp;
  /** The pid of keydeck's node process (the pty's child, or the shell's child with `after`). */
  keydeckPid(): number;
  /** Kills the app (if still running), then closes the upstream. */
  close(): Promise<void>;
}

/** Options of {@link startRig}. */
export interface RigOptions extends Pick<StartAppOptions, 'columns' | 'rows'> {
  /** Extra arguments after `--interval 2`. */
  readonly args?: readonly string[];
  /** Called after the proxy is up and before keydeck starts (e.g. to kill the upstream). */
  readonly beforeStart?: (proxy: FaultProxy) => Promise<void> | void;
  /**
   * A shell command run in the same terminal after keydeck exits (keydeck then runs under
   * `sh -c '<keydeck>; <after>'`), e.g. `stty -a` to read the settings keydeck left behind.
   */
  readonly after?: string;
}

/** Starts the upstream and keydeck (see the module comment). */
export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const upstream = await startUpstream();
  await options.beforeStart?.(upstream.proxy);
  const args = ['--interval', String(POLL_SECONDS), ...(options.args ?? [])];
  const app = startApp({
    args,
    ...(options.after !== undefined && { command: ['sh', '-c', `${[process.execPath, CLI, ...args].map(shellQuote).join(' ')}; ${options.after}`] as const }),
    env: upstream.env,
    columns: options.columns ?? 100,
    rows: options.rows ?? 30,
  });
  let closed = false;
  return {
    ...upstream,
    app,
    keydeckPid: () => (options.after === undefined ? app.pty.pid : childOf(app.pty.pid)),
    async close() {
      if (closed) return;
      closed = true;
      app.kill('SIGKILL');
      await Promise.race([app.exited, new Promise((r) => setTimeout(r, 2000))]);
      await upstream.close();
    },
  };
}

/** Waits until the Keys table shows both keys and the header the demo balance: the app is up with data. */
export async function waitForData(app: PtyApp, balance = '$25.00 left'): Promise<void> {
  await app.waitFor(SUBSCRIPTION_KEY_NAME, 20_000);
  await app.waitFor(CREDIT_KEY_NAME, 10_000);
  await app.waitFor(balance, 10_000);
}

/** Quotes one word for `sh`. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** The (single) child process of `pid`, from /proc (Linux). */
function childOf(pid: number): number {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  if (children.length !== 1) throw new Error(`expected one child of ${pid}, found ${children.length}`);
  return children[0]!;
}
