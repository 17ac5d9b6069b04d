/**
 * `--to-command 'CMD ARGS'`: the key handed to a program on its standard input only:
 * `gh secret set NAME`, `kubectl create secret generic NAME --from-file=key=/dev/stdin`,
 * `pass insert -m NAME`, `vault kv put PATH key=-`, `op item create …`.
 *
 * - Run with `node:child_process` `spawn`, never a shell; argv as ./destinations.ts split it; in a
 *   process group of its own.
 * - Standard input gets exactly the key (no newline after it), then end of file. The key is never
 *   in argv, and the child's environment is keydeck's without its secrets (src/terminal/secretEnv.ts, the
 *   filter of the hooks too).
 * - Its exit status decides: 0 delivered, anything else failed. A command still running after
 *   `timeoutMs` has its whole process group sent SIGTERM, then SIGKILL two seconds later (or at
 *   once when it ended and left children), and is reported as killed.
 * - Its output (stdout and stderr, in the order they came, at most {@link MAX_OUTPUT_CHARS}) is
 *   returned for the faces to show sanitised; an output that holds the key (any 16 characters of
 *   it in a row, or its base64 as `kubectl -o yaml` prints) is withheld: `outputHidden`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import which from 'which';
import { failpoint } from '../failpoints/index.js';
import { withoutSecrets } from '../terminal/secretEnv.js';
import { DeliveryError, type Destination } from './destinations.js';

/** Default bound of a destination command, ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
/** Most characters of a command's output kept. */
export const MAX_OUTPUT_CHARS = 8_192;
/** After SIGTERM, how long a command has before SIGKILL, ms. */
const KILL_GRACE_MS = 2_000;
/** After the command exited, how long its output pipes may stay open (a child it left behind), ms. */
const PIPE_GRACE_MS = 1_000;

type CommandDestination = Extract<Destination, { kind: 'command' }>;

/** What running a destination command gave. */
export interface CommandDelivery {
  /** Exit code, or null when it ended by a signal (or was killed). */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when it outlived its bound and was killed. */
  readonly timedOut: boolean;
  /** Its output (stdout and stderr merged), raw (not sanitised), or '' when hidden. */
  readonly output: string;
  /** True when the output held the key and is not returned. */
  readonly outputHidden: boolean;
  /** True when the output was longer than {@link MAX_OUTPUT_CHARS} and was cut. */
  readonly truncated: boolean;
}

/**
 * Checks, before any key exists, that the program of `d` can be found (on `PATH` from `env`, or
 * at the path given) and is executable.
 * @throws DeliveryError `destination_refused` naming the program.
 */
export async function checkCommandDestination(d: CommandDestination, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const program = d.argv[0]!;
  const found = await which(program, { path: env.PATH ?? '', nothrow: true });
  if (found === null) {
    throw new DeliveryError('destination_refused', program.includes('/') ? `${program} is not an executable file` : `${program} was not found on PATH (is it installed?); nothing was created`);
  }
}

/** True when `output` shows `key`: 16 of its characters in a row, or its base64. */
export function revealsKey(output: string, key: string): boolean {
  const span = Math.min(16, key.length);
  for (let i = 0; i + span <= key.length; i++) if (output.includes(key.slice(i, i + span))) return true;
  const b64 = Buffer.from(key, 'utf8').toString('base64').replace(/=+$/, '');
  return output.includes(b64.slice(0, Math.max(16, b64.length - 4)));
}

/**
 * Runs the command of `d` with `key` on its standard input (see the module comment).
 * @returns the outcome; it never throws for the command's own failure (a non-zero exit, a kill)
 * @throws DeliveryError `delivery_failed` when the program could not be started at all.
 */
export function runKeyCommand(d: CommandDestination, key: string, options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; secrets?: readonly string[] } = {}): Promise<CommandDelivery> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    // A process group of its own (POSIX: setsid), so that a bound that runs out ends the command
    // and every process it started, not the command alone.
    const group = process.platform !== 'win32';
    const child = spawn(d.argv[0]!, d.argv.slice(1), {
      env: withoutSecrets(options.env ?? process.env, options.secrets),
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
      detached: group,
    });
    /** Sends `signal` to the command's whole process group (or to it alone where there are none). */
    const signalAll = (signal: NodeJS.Signals) => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // The group is gone already.
      }
    };
    // keydeck ending (ctrl-c, an error) ends the command's group too: it was keydeck's to run.
    const onExit = () => signalAll('SIGKILL');
    process.once('exit', onExit);
    failpoint('command.spawned', path.basename(d.argv[0]!));
    let output = '';
    let truncated = false;
    let timedOut = false;
    let settled = false;
    const keep = (chunk: Buffer) => {
      // Keep a little more than shown, so a key cut at the limit is still recognised.
      if (output.length >= MAX_OUTPUT_CHARS + key.length) {
        truncated = true;
        return;
      }
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    // A program that does not read its input closes the pipe: not an error of keydeck's.
    child.stdin.on('error', () => undefined);
    child.stdin.end(key);

    let killTimer: NodeJS.Timeout | undefined;
    const bound = setTimeout(() => {
      timedOut = true;
      signalAll('SIGTERM');
      killTimer = setTimeout(() => signalAll('SIGKILL'), KILL_GRACE_MS);
    }, timeoutMs);

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(bound);
      clearTimeout(killTimer);
      process.removeListener('exit', onExit);
      // Killed for its bound: what its group still runs goes too (a SIGTERM it ignored, a child
      // that outlived it).
      if (timedOut) signalAll('SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
      const hidden = revealsKey(output, key);
      if (output.length > MAX_OUTPUT_CHARS) {
        output = output.slice(0, MAX_OUTPUT_CHARS);
        truncated = true;
      }
      resolve({ exitCode, signal, timedOut, output: hidden ? '' : output, outputHidden: hidden, truncated: truncated && !hidden });
    };
    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(bound);
      process.removeListener('exit', onExit);
      const code = (err as NodeJS.ErrnoException).code;
      reject(new DeliveryError('delivery_failed', `could not start ${d.argv[0]}: ${code === 'ENOENT' ? 'not found' : (code ?? err.message)}`));
    });
    child.on('exit', (exitCode, signal) => {
      failpoint('command.exited', path.basename(d.argv[0]!));
      // Its output pipes close once every process holding them is gone: wait a little for the
      // rest of the output, but not for a child it left running.
      const grace = setTimeout(() => finish(exitCode, signal), PIPE_GRACE_MS);
      child.on('close', () => {
        clearTimeout(grace);
        finish(exitCode, signal);
      });
    });
  });
}
