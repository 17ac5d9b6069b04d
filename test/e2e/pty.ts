/**
 * Drives the built CLI (the run's snapshot of `dist/cli.js`) in a real pseudo-terminal
 * (@lydell/node-pty) and reads the screen the way a terminal shows it (@xterm/headless). Keeps
 * every byte written, so tests can check how the output ends (alternate screen left, cursor shown).
 */
import { spawn, type IPty } from '@lydell/node-pty';
import xtermHeadless from '@xterm/headless';
import { fileURLToPath } from 'node:url';
import { cliPath } from '../credentials/harness.js';
import { countCliStart } from '../cli-starts.js';

const { Terminal } = xtermHeadless;

/** How long output must pause before a woken waitFor() looks at the screen, ms (see startApp). */
const OUTPUT_SETTLE_MS = 10;

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The built CLI: the run's snapshot of dist/cli.js (test/global-setup.ts), as every suite runs it,
 * so a rebuild of dist/ meanwhile (a developer's `npm run build`, another run's set-up) cannot
 * change the program under a TUI the suite has started.
 */
export const CLI = cliPath();

/** A running keydeck in a pty. */
export interface PtyApp {
  readonly pty: IPty;
  /** Every byte written by the app, in order. */
  output(): string;
  /** The visible screen at its current size, one string per row (trailing spaces trimmed). */
  screen(): string[];
  /** The screen as one text. */
  screenText(): string;
  write(data: string): void;
  /** Waits until the screen contains `text` (or matches, or satisfies it); throws with the screen after `timeoutMs`. */
  waitFor(text: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<void>;
  /** Settles with the exit code. */
  readonly exited: Promise<{ exitCode: number; signal?: number | undefined }>;
  kill(signal?: string): void;
  resize(columns: number, rows: number): void;
}

/** Options of {@link startApp}. */
export interface StartAppOptions {
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly columns?: number;
  readonly rows?: number;
  /**
   * Run this program instead of `node dist/cli.js …args` (`args` is then ignored), e.g.
   * `['sh', '-c', 'node dist/cli.js; stty -a']` to read the terminal's settings after keydeck exits.
   */
  readonly command?: readonly [file: string, ...args: string[]];
}

/** Spawns `node CLI …args` (or `command`) in a pty of `columns` × `rows` (default 100×30), without `CI` in its environment. */
export function startApp(options: StartAppOptions = {}): PtyApp {
  const columns = options.columns ?? 100;
  const rows = options.rows ?? 30;
  const term = new Terminal({ cols: columns, rows, allowProposedApi: true });
  // A pseudo-terminal is a user's terminal: the runner's CI marker stays out (under it Ink draws no
  // live frame, is-in-ci, and the screen would stay blank until exit).
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env ?? process.env)) if (v !== undefined && k !== 'CI') env[k] = v;
  const [file, ...argv] = options.command ?? [process.execPath, CLI, ...(options.args ?? [])];
  countCliStart('pty');
  const pty = spawn(file, argv, { name: 'xterm-256color', cols: columns, rows, cwd: ROOT, env });
  let out = '';
  // A waitFor() between two looks at the screen: woken once output has arrived, been parsed by
  // the terminal (xterm parses a write later, its callback says when) and then paused for
  // OUTPUT_SETTLE_MS, so a look never reads a frame the pty delivered only in part (a whole frame
  // can come in several reads); or by its 50 ms fallback.
  let wake: (() => void) | undefined;
  pty.onData((d) => {
    out += d;
    term.write(d, () => wake?.());
  });
  const nextOutput = (ms: number) =>
    new Promise<void>((resolve) => {
      let settle: NodeJS.Timeout | undefined;
      const done = () => {
        wake = undefined;
        clearTimeout(timer);
        clearTimeout(settle);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = () => {
        clearTimeout(settle);
        settle = setTimeout(done, OUTPUT_SETTLE_MS);
      };
    });
  const screen = () => {
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < term.rows; i++) lines.push((buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '').trimEnd());
    return lines;
  };
  const flush = () => new Promise<void>((r) => term.write('', () => r()));
  // Exited once the terminal has drawn all the process wrote: xterm parses what it is given
  // asynchronously, and on a busy machine the last output is still queued when the exit arrives.
  const exited = new Promise<{ exitCode: number; signal?: number | undefined }>((resolve) =>
    pty.onExit((e) => {
      setTimeout(() => void flush().then(() => resolve(e)), 20);
    }),
  );
  return {
    pty,
    output: () => out,
    screen,
    screenText: () => screen().join('\n'),
    write: (d) => pty.write(d),
    async waitFor(text, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await flush();
        const s = screen().join('\n');
        if (typeof text === 'string' ? s.includes(text) : typeof text === 'function' ? text(s) : text.test(s)) return;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}; screen:\n${s}`);
        // The screen changes only with output (or a resize): look again once some has arrived and paused.
        await nextOutput(50);
      }
    },
    exited,
    kill: (signal) => pty.kill(signal),
    resize: (c, r) => {
      pty.resize(c, r);
      term.resize(c, r);
    },
  };
}
