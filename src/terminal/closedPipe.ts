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

/** Makes EPIPE on stdout or stderr end the process quietly (see the module comment). Call once per run. */
export function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(CLOSED_PIPE_EXIT_CODE);
      throw error;
    });
  }
}
