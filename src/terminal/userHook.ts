/**
 * How the user's own command lines run (`--on-low`, `--on-anomaly`, `--on-auto-topup`, run by the
 * notifier of ./notify.ts, and `--on-guardrail`): through the user's shell (`$SHELL -c CMD`,
 * `cmd /d /s /c` on Windows), spawned without a shell of keydeck's, the figures in the environment
 * only and never keydeck's secrets (./secretEnv.ts), the output discarded, killed after 30 s.
 * What each command is given is in ./notify.ts (`onLowEnvironment` and its siblings).
 */
import { spawn } from 'node:child_process';
import { withoutSecrets } from './secretEnv.js';

/** Options of {@link runUserHook}. */
export interface UserHookOptions {
  /** Default process.env (the shell). */
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  readonly spawn?: typeof spawn;
  /** Killed after this long, ms (default 30 s). */
  readonly timeoutMs?: number;
}

/**
 * Runs the user's command line `line` (the flag `flag` gave it) through their shell as the
 * notifier's commands run (its output discarded, killed after 30 s), with `figures` as its
 * environment less keydeck's secrets (./secretEnv.ts), and waits for it to end.
 * @returns undefined when it exited 0, else one sentence (it could not run, it failed)
 */
export function runUserHook(flag: string, line: string, figures: NodeJS.ProcessEnv, options: UserHookOptions = {}): Promise<string | undefined> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const run = options.spawn ?? spawn;
  const [shell, args] = platform === 'win32' ? [env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', line]] : [env.SHELL || '/bin/sh', ['-c', line]];
  return new Promise((resolve) => {
    try {
      const child = run(shell, args, { stdio: 'ignore', env: withoutSecrets(figures), shell: false });
      const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs ?? 30_000);
      timer.unref();
      child.on('error', (error) => {
        clearTimeout(timer);
        resolve(`${flag} could not run: ${error.message}`);
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve(code === 0 ? undefined : `${flag} exited ${signal ? `on ${signal}` : `with ${code}`}`);
      });
    } catch (error) {
      resolve(`${flag} could not run: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
