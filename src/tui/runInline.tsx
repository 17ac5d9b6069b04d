/**
 * How an inline face of the TUI runs (`keydeck monitor`, `keydeck monitor --all-profiles`): one Ink
 * render redrawn in place, ended by the face's own quit (exit code 0 or 130 for Ctrl-C as the
 * keymap says), SIGTERM (143) or SIGINT (130), whichever comes first.
 */
import type { ReactElement } from 'react';
import { render } from 'ink';

/** Where an inline face draws and reads keys (the process's own terminal unless given). */
export interface InlineStreams {
  readonly stdout?: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
}

/**
 * Renders `app(quit)` and resolves with the exit code once it is unmounted: the code `quit` was
 * first called with, 143 on SIGTERM, 130 on SIGINT, 1 when Ink ends in an error. Never rejects.
 */
export function runInline(app: (quit: (code: number) => void) => ReactElement, streams: InlineStreams = {}): Promise<number> {
  return new Promise((resolve) => {
    let done = false;
    let code = 0;
    const quit = (exitCode: number) => {
      if (done) return;
      done = true;
      code = exitCode;
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      instance.unmount();
    };
    const onTerm = () => quit(143);
    const onInt = () => quit(130);
    const instance = render(app(quit), {
      stdout: streams.stdout ?? process.stdout,
      ...(streams.stdin && { stdin: streams.stdin }),
      exitOnCtrlC: false,
      patchConsole: false,
      // Redraw in place even where CI=true is set: these commands only run on a terminal.
      interactive: true,
    });
    process.once('SIGTERM', onTerm);
    process.once('SIGINT', onInt);
    void instance.waitUntilExit().then(
      () => resolve(code),
      () => resolve(1),
    );
  });
}
