/**
 * A closed pipe ends keydeck quietly, as it ends other Unix tools: `keydeck autotopup status |
 * head -1` stops writing once `head` has its line, with no stack trace. Node ignores SIGPIPE, so
 * a write to a pipe whose reader is gone fails with EPIPE, emitted as an `error` on the stream;
 * without a listener that is an uncaught exception, printed with its stack. Here it ends the
 * process with exit code 141 (128 + SIGPIPE's 13: what a shell reports for a tool killed by
 * SIGPIPE, so `set -o pipefail` scripts see keydeck as they see `cat`). Any other error of the
 * standard streams stays what it was.
 */

/** The exit code after a closed pipe: 128 + 13 (SIGPIPE). */
export const CLOSED_PIPE_EXIT_CODE = 141;

/** The `error` listener {@link exitQuietlyOnClosedPipe} gives stdout and stderr: EPIPE ends the process quietly, anything else stays an error. */
function exitOnClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(CLOSED_PIPE_EXIT_CODE);
  throw error;
}

/** Makes EPIPE on stdout or stderr end the process quietly (see the module comment). Once per stream: a second call adds nothing. */
export function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.listeners('error').includes(exitOnClosedPipe)) stream.on('error', exitOnClosedPipe);
  }
}

/**
 * Writes `text` to stdout before it returns, for an answer after which the process ends (`keydeck
 * --version`, a completion request): through `fs.writeSync` on descriptor 1, so that no stream is
 * made for it (`process.stdout` on a pipe is a `net.Socket`: making it loads Node's net and stream
 * code, ~14 M instructions, a sixth of `node -e 0`'s; docs/performance.md, "One-shot commands").
 * A closed pipe ends the process as {@link exitQuietlyOnClosedPipe} does: exit 141, nothing on
 * stderr. Any other failure (EAGAIN: a non-blocking pipe that is full) hands what is left to
 * `process.stdout`, with {@link exitQuietlyOnClosedPipe}'s handling, as every other command writes.
 * Plain syntax and no imports: the executable's guard (src/bin.ts) inlines it.
 * @returns undefined when all of it is written; else a promise settled once `process.stdout` has
 *   written the rest (a caller that ends the process with `process.exit` awaits it first, or loses it)
 */
export function writeStdoutNow(text: string): Promise<void> | undefined {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    const fs = process.getBuiltinModule('node:fs');
    while (written < bytes.length) written += fs.writeSync(1, bytes, written);
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') process.exit(CLOSED_PIPE_EXIT_CODE);
    exitQuietlyOnClosedPipe();
    return new Promise((resolve) => process.stdout.write(bytes.subarray(written), () => resolve()));
  }
}
