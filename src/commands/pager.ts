/**
 * A long text for a terminal goes through a pager, as git and gh do: `$PAGER` when set (empty or
 * `cat`: none), else `less` with `LESS=FRX` unless `LESS` is set (quit at once when the text fits
 * on one screen, colours as they are, the screen not cleared after), the text written to its
 * stdin. Without a terminal on stdout (a pipe, a file, a test), or without a pager to run, the text
 * goes to stdout as it is. ctrl-c belongs to the pager while it runs.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Where {@link pageText} writes and what it reads (the process's by default; tests pass their own). */
export interface PagerOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly stdout?: NodeJS.WriteStream;
}

/** True when `command` is an executable file on `PATH`. */
function onPath(command: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      // Not here.
    }
  }
  return false;
}

/** The pager's command line, or undefined for none (see the module comment). */
export function pagerCommand(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.PAGER;
  if (chosen !== undefined) return chosen.trim() === '' || chosen.trim() === 'cat' ? undefined : chosen;
  return process.platform !== 'win32' && onPath('less', env) ? 'less' : undefined;
}

/**
 * Shows `text` through the pager when stdout is a terminal (see the module comment), else writes
 * it to stdout. Resolves once the pager has ended (or the text is written). Never throws: a pager
 * that cannot be started leaves the text written as it is.
 */
export async function pageText(text: string, options: PagerOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const stdout = options.stdout ?? process.stdout;
  const command = stdout.isTTY ? pagerCommand(env) : undefined;
  if (command === undefined) {
    stdout.write(text);
    return;
  }
  const ignoreInterrupt = () => undefined;
  process.on('SIGINT', ignoreInterrupt);
  try {
    const started = await new Promise<boolean>((resolve) => {
      const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' } });
      child.once('error', () => resolve(false));
      child.once('close', () => resolve(true));
      // The pager may quit before reading everything (q): what is left is not wanted.
      child.stdin.on('error', () => undefined);
      child.stdin.end(text);
    });
    if (!started) stdout.write(text);
  } finally {
    process.off('SIGINT', ignoreInterrupt);
  }
}
