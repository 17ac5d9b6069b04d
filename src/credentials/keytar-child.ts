/**
 * keytar in a child process. A keytar call runs on a libuv worker thread; when the Secret
 * Service hangs, that thread never returns, and Node's exit joins the worker threads, so even
 * `process.exit()` would hang. Running keytar in a small child process (`node -e`, one per
 * keydeck process, started on first use) lets keydeck kill it after a timeout and exit normally.
 * The secret travels over the child's stdin pipe, never in argv or the environment.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';

/** The part of keytar's API keydeck uses. */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/** The child's program: loads keytar from argv[1], answers one JSON request per line. */
const CHILD_SOURCE = `
let keytar, loadError;
try { keytar = require(process.argv[1]); } catch (e) { loadError = String((e && e.message) || e); }
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    const { id, op, args } = JSON.parse(line);
    const reply = (o) => process.stdout.write(JSON.stringify({ id, ...o }) + '\\n');
    if (loadError) { reply({ error: loadError }); continue; }
    Promise.resolve().then(() => keytar[op](...args)).then(
      (value) => reply({ value: value === undefined ? null : value }),
      (e) => reply({ error: String((e && e.message) || e) }));
  }
});
process.stdin.on('end', () => process.exit(0));
`;

/**
 * The absolute path of the installed keytar module.
 * @throws Error (`MODULE_NOT_FOUND`) when keytar is not installed.
 */
export function resolveKeytar(): string {
  return createRequire(import.meta.url).resolve('keytar');
}

/** A {@link KeytarLike} backed by a child process, plus `kill()` (used after a timeout). */
export interface ChildKeytar extends KeytarLike {
  /** Kills the child at once (SIGKILL); pending calls reject. */
  kill(): void;
}

/**
 * Starts the child for keytar at `modulePath` with `env` (its D-Bus variables matter). The child
 * and its pipes do not keep keydeck alive; a pending call's own timer does.
 */
export function startChildKeytar(modulePath: string, env: NodeJS.ProcessEnv): ChildKeytar {
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(process.execPath, ['-e', CHILD_SOURCE, modulePath], {
    env,
    stdio: ['pipe', 'pipe', 'ignore'],
    windowsHide: true,
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let gone: Error | undefined;
  let buffer = '';

  const failAll = (error: Error): void => {
    gone ??= error;
    for (const p of pending.values()) p.reject(gone);
    pending.clear();
  };
  child.on('error', (err) => failAll(err));
  child.on('exit', (code, signal) => failAll(new Error(`the keytar process ended (${signal ?? `exit ${code}`})`)));
  child.stdin.on('error', () => {
    /* the child is gone; 'exit' reports it */
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (data: string) => {
    buffer += data;
    let i;
    while ((i = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      let reply: { id: number; value?: unknown; error?: string };
      try {
        reply = JSON.parse(line) as typeof reply;
      } catch {
        // not a reply line: the child's request times out on its own
        continue;
      }
      const p = pending.get(reply.id);
      if (!p) continue;
      pending.delete(reply.id);
      if (reply.error !== undefined) p.reject(new Error(reply.error));
      else p.resolve(reply.value);
    }
  });
  child.unref();
  (child.stdin as Writable & { unref?: () => void }).unref?.();
  (child.stdout as Readable & { unref?: () => void }).unref?.();

  const call = <T>(op: keyof KeytarLike, args: string[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (gone) return reject(gone);
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.stdin.write(`${JSON.stringify({ id, op, args })}\n`);
    });

  return {
    getPassword: (service, account) => call<string | null>('getPassword', [service, account]),
    setPassword: (service, account, password) => call<void>('setPassword', [service, account, password]),
    deletePassword: (service, account) => call<boolean>('deletePassword', [service, account]),
    kill() {
      if (!gone) child.kill('SIGKILL');
      failAll(new Error('the keytar process was stopped'));
    },
  };
}
