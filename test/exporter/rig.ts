/**
 * The exporter suites' rig: the built `keydeck exporter` started as its users start it, detached
 * from any terminal (a new session, setsid, stdin /dev/null), in a throwaway HOME whose config
 * names the profiles; its log read line by line; its `/metrics` scraped; signals sent to it by
 * pid. Every process started here is killed when the suite ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliPath, makeTempHome, type TempHome } from '../credentials/harness.js';
import type { TestSandbox } from '../sandbox/helpers.js';

/** Waits until `check` returns a truthy value (polled every 50 ms), else fails naming `what`. */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A profile in the test config: its service and settings. */
export interface RigProfile {
  readonly baseUrl?: string;
  readonly alertBelowUsd?: number;
}

/** Writes `profiles` as the config file of `home` (mode 0600 in a 0700 dir). */
export function writeConfig(home: TempHome, profiles: Record<string, RigProfile>, raw?: string): void {
  mkdirSync(home.configDir, { recursive: true, mode: 0o700 });
  chmodSync(home.configDir, 0o700);
  const file = path.join(home.configDir, 'config.json');
  writeFileSync(file, raw ?? JSON.stringify({ version: 1, profiles }, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** A running `keydeck exporter`. */
export interface RunningExporter {
  readonly child: ChildProcess;
  /** The metrics URL from its `listening` log line. */
  readonly url: string;
  /** Everything it wrote on stderr so far, and on stdout. */
  stderr(): string;
  stdout(): string;
  /** GET /metrics. */
  scrape(): Promise<string>;
  /** Waits for a log line matching `pattern` (after the first `skip` matches). */
  waitForLog(pattern: RegExp, skip?: number): Promise<string>;
  /** Sends `signal` by pid. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves with the exit code once it has ended. */
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];

/** Kills every exporter still running (afterAll). */
export function killAll(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
}

/**
 * Starts `keydeck exporter …args` in `home` (setsid, stdin /dev/null) with `env` added;
 * `nodeArgs` go before the CLI (a module hook). Resolves once it listens.
 */
export async function startExporter(home: TempHome, args: readonly string[], env: Record<string, string | undefined> = {}, nodeArgs: readonly string[] = []): Promise<RunningExporter> {
  const child = spawn(process.execPath, [...nodeArgs, cliPath(), 'exporter', ...args], {
    env: home.env({ KEYDECK_DATA_DIR: path.join(home.home, 'data'), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(child);
  let err = '';
  let out = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const listening = await until(
    () => (/event=listening url=(\S+)/.exec(err) ?? /"event":"listening","url":"([^"]+)"/.exec(err))?.[1] ?? (child.exitCode !== null ? 'exited' : undefined),
    'the exporter to listen',
  );
  if (listening === 'exited') throw new Error(`the exporter exited: ${err}`);
  return {
    child,
    url: listening,
    stderr: () => err,
    stdout: () => out,
    scrape: async () => {
      const res = await fetch(listening);
      if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
      return res.text();
    },
    waitForLog: (pattern, skip = 0) =>
      until(() => {
        const lines = err.split('\n').filter((l) => pattern.test(l));
        return lines[skip];
      }, `a log line matching ${pattern}`),
    signal: (signal) => process.kill(child.pid!, signal),
    exited,
  };
}

/** A throwaway HOME (see test/credentials/harness.ts), its data dir beside the config. */
export function exporterHome(): TempHome {
  return makeTempHome();
}

/** The value of the series `name{…labels}` in `text` (labels as written; none: `name` alone), or undefined. */
export function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (Object.keys(labels).length === 0 && line.startsWith(`${name} `)) return Number(line.slice(name.length + 1));
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.lastIndexOf('}'));
    if (Object.entries(labels).every(([k, v]) => inner.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** A management key of a fresh account of `sandbox` funded with `usd`: its value, its id, and the account's session token. */
export async function managementKey(sandbox: TestSandbox, usd: number): Promise<{ token: string; id: string; session: string }> {
  const session = await sandbox.fundedUser(usd);
  const created = await sandbox.call<{ id: string; apiKey: string }>('POST', '/api/keys/management', { token: session, body: { name: 'exporter' } });
  return { token: created.body.apiKey, id: created.body.id, session };
}
