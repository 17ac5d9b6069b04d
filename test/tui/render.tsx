/**
 * Test render helper: ink-testing-library's fake streams, with a stdout that has both
 * `columns` and `rows` (ink-testing-library's has only columns, so Ink would fall back to the
 * real terminal's height and full-screen frames would differ from machine to machine), a
 * `resize()`, key helpers, and `waitFor()`.
 */
import { EventEmitter } from 'node:events';
import { render as inkRender, type Instance } from 'ink';
import type { ReactElement } from 'react';

/** A fake TTY stdout of a fixed size that records every frame. */
export class FakeStdout extends EventEmitter {
  readonly isTTY = true;
  readonly frames: string[] = [];
  /** Terminal mode switches written (`\x1b[?2004h`…), kept apart from the frames. */
  readonly modes: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  /** Called after each frame is written (a {@link TuiHandle.waitFor} waiting for the next one). */
  onFrame: (() => void) | undefined;
  write = (chunk: string): boolean => {
    if (/^\x1b\[\?[\d;]+[hl]$/.test(chunk)) this.modes.push(chunk);
    else {
      this.frames.push(chunk);
      this.onFrame?.();
    }
    return true;
  };
  lastFrame = (): string | undefined => this.frames.at(-1);
}

/** A fake TTY stdin: `write()` delivers keys to Ink. */
export class FakeStdin extends EventEmitter {
  readonly isTTY = true;
  private data: string | null = null;
  write = (data: string): void => {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  };
  read = (): string | null => {
    const { data } = this;
    this.data = null;
    return data;
  };
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

/** Escape sequences of named keys, as a terminal sends them. */
export const KEYS = {
  enter: '\r',
  esc: '\x1b',
  tab: '\t',
  shiftTab: '\x1b[Z',
  up: '\x1b[A',
  down: '\x1b[B',
  left: '\x1b[D',
  right: '\x1b[C',
  pgUp: '\x1b[5~',
  pgDn: '\x1b[6~',
  home: '\x1b[H',
  end: '\x1b[F',
  backspace: '\x7f',
  space: ' ',
  ctrlC: '\x03',
} as const;

/** What {@link renderTui} returns. */
export interface TuiHandle {
  readonly stdout: FakeStdout;
  readonly stdin: FakeStdin;
  readonly instance: Instance;
  /** The last frame written (empty string before the first). */
  lastFrame(): string;
  /** Every frame written so far. */
  frames(): readonly string[];
  /** Writes raw input, then lets Ink process it (a lone ESC needs Ink's 20 ms escape timeout). */
  press(...inputs: string[]): Promise<void>;
  /** Types text one character at a time. */
  type(text: string): Promise<void>;
  /** Pastes text as a terminal in bracketed-paste mode sends it (one write). */
  paste(text: string): Promise<void>;
  /** Changes the terminal size and emits `resize`. */
  resize(columns: number, rows: number): void;
  /** Waits until the last frame satisfies `test` (text: contains it); throws with the frame after `timeoutMs`. */
  waitFor(test: string | RegExp | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  unmount(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Renders `node` into a fake terminal of `columns` × `rows` (default 80×24). */
export function renderTui(node: ReactElement, size: { columns?: number; rows?: number } = {}): TuiHandle {
  const stdout = new FakeStdout(size.columns ?? 80, size.rows ?? 24);
  const stderr = new FakeStdout(size.columns ?? 80, size.rows ?? 24);
  const stdin = new FakeStdin();
  const instance = inkRender(node, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    debug: true,
    interactive: false,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  const lastFrame = () => stdout.lastFrame() ?? '';
  let unmounted = false;
  const handle: TuiHandle = {
    stdout,
    stdin,
    instance,
    lastFrame,
    frames: () => stdout.frames,
    async press(...inputs) {
      for (const input of inputs) {
        stdin.write(input);
        await sleep(input === KEYS.esc ? 60 : 15);
      }
    },
    async type(text) {
      for (const ch of text) {
        stdin.write(ch);
        await sleep(5);
      }
      await sleep(15);
    },
    async paste(text) {
      stdin.write(`\x1b[200~${text}\x1b[201~`);
      await sleep(15);
    },
    resize(columns, rows) {
      stdout.columns = columns;
      stdout.rows = rows;
      stdout.emit('resize');
    },
    async waitFor(test, timeoutMs = 8000) {
      const match = typeof test === 'function' ? test : (f: string) => (typeof test === 'string' ? f.includes(test) : test.test(f));
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const frame = lastFrame();
        if (match(frame)) return frame;
        if (Date.now() > deadline) throw new Error(`waitFor(${String(test)}) timed out; last frame:\n${frame}`);
        // Look again at the next frame, or after 20 ms for a test of something else than the frame.
        // A frame is written in React's commit, before the effects it schedules (the input handlers
        // of what it shows, src/tui's useInput): the look waits for those (React's scheduler runs
        // them in a setImmediate queued before this one), as a user's key never comes sooner.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            stdout.onFrame = undefined;
            resolve();
          }, 20);
          stdout.onFrame = () => {
            stdout.onFrame = undefined;
            clearTimeout(timer);
            setImmediate(resolve);
          };
        });
      }
    },
    unmount() {
      if (unmounted) return;
      unmounted = true;
      instance.unmount();
      instance.cleanup();
    },
  };
  return handle;
}
