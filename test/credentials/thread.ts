/**
 * The `thread` runner of test/credentials/harness.ts's `runCli`: the built CLI (the run's snapshot
 * of dist/) run in the test's own thread, against the modules an earlier run of the same worker
 * already loaded. A worker thread (the runner this one replaced) built a V8 isolate, loaded ~50
 * modules of dist/ and grew a heap for each run, ~180 ms of CPU of a one-shot command's ~225; here
 * a run costs the command's own work (config, requests, output): ~7 ms of CPU on average, the
 * sandbox's side included (docs/development.md).
 *
 * What a run has of its own, a process has of its own too, and the CLI reads it from `process`:
 * `process.env`, `process.argv`, stdin, stdout, stderr, `process.exit`, `process.cwd()` and `os.homedir()`. While a
 * run is under way those answer from the run's {@link AsyncLocalStorage} store, so runs at once in
 * one thread (the concurrent suites) each see their own, and the test's code (outside any run)
 * sees the real ones. `process.exit(code)` ends the run with `code` and throws {@link CliExit} to
 * stop what called it, as a process stops there; output written after it is dropped, as a process
 * writes none. `process.exitCode` set by the CLI is the run's code when it exits without calling
 * `process.exit`, and the test process's own is put back. What is the whole process's and not a
 * run's is refused to a run: Node's compile cache (src/cli/main.ts) and replacing the process
 * (src/cli/startFlags.ts). (V8's flags are the whole
 * process's too; src/ never changes them, which test/house checks.)
 *
 * Each run calls the snapshot's `program.js` (src/cli/main.ts: build the command line, parse argv),
 * which the thread loads once with the chunks it imports. So a module-level state of the CLI would
 * leak from one run to the next: src/ keeps none but memos of pure functions (docs/development.md). What a thread cannot be, the runs that need it get elsewhere: signals, a
 * terminal, the Node.js version check and the version's read (dist/cli.js and main.js are not run
 * here; test/build/ runs them), and the end of
 * whatever a command leaves running (a process exits over it). CI runs every CLI run as a process
 * (KEYDECK_TEST_CLI=process), and test/commands/runner.test.ts checks the two ways agree.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import nodeModule, { createRequire, syncBuiltinESMExports } from 'node:module';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import type { Socket } from 'node:net';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';

/** What `process.exit` throws inside a run, to stop its caller as a process stops there. */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`keydeck exited with code ${code}`);
    this.name = 'CliExit';
  }
}

/** One run's own `process`: its environment, argv, streams and how it ended. */
interface RunState {
  readonly env: Record<string, string>;
  /** The run's working directory (`process.cwd()`), when it has its own. */
  readonly cwd?: string | undefined;
  readonly argv: string[];
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Set by `process.exit`: the run is over, whatever still runs of it. */
  exited?: number;
  /** The test process's `process.exitCode` when the run began, put back when it ends. */
  readonly exitCodeBefore: typeof process.exitCode;
  /** The connections the run opened (its clients' keep-alive sockets): a process's exit closes them. */
  readonly sockets: Set<Socket>;
}

const runs = new AsyncLocalStorage<RunState>();
let installed = false;
/** Node's own `import()`, not vitest's: the snapshot is loaded as Node loads it in a process. */
const nativeImport = createRequire(import.meta.url)('./native-import.cjs') as (specifier: string) => Promise<unknown>;

/** The text written to a run's stdout or stderr until it ends (a process writes nothing after its exit). */
class Capture extends Writable {
  text = '';
  constructor(private readonly ended: () => boolean) {
    super({ decodeStrings: false });
  }
  override _write(chunk: string | Buffer, _encoding: BufferEncoding, callback: () => void): void {
    if (!this.ended()) this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    callback();
  }
}

/**
 * The code a process exits with when it sets `process.exitCode` (0 if it did not): the CLI sets
 * the test process's own, which the run puts back when it ends.
 */
function exitCodeSetBy(run: RunState): number {
  return process.exitCode !== run.exitCodeBefore ? Number(process.exitCode) : 0;
}

/** Makes `process`'s per-process parts answer from the current run, once per thread. */
function install(): void {
  if (installed) return;
  installed = true;
  const realEnv = process.env;
  const envOf = () => runs.getStore()?.env ?? realEnv;
  // A proxy, not a getter: modules that kept `process.env` at load (env-paths) read the run's too.
  process.env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_t, k) => Reflect.get(envOf(), k),
    set: (_t, k, v) => Reflect.set(envOf(), k, String(v)),
    has: (_t, k) => Reflect.has(envOf(), k),
    deleteProperty: (_t, k) => Reflect.deleteProperty(envOf(), k),
    ownKeys: () => Reflect.ownKeys(envOf()),
    getOwnPropertyDescriptor: (_t, k) => {
      const value = Reflect.get(envOf(), k);
      return value === undefined ? undefined : { value, writable: true, enumerable: true, configurable: true };
    },
    defineProperty: (_t, k, d) => Reflect.defineProperty(envOf(), k, d),
  });
  for (const name of ['stdin', 'stdout', 'stderr'] as const) {
    const real = Object.getOwnPropertyDescriptor(process, name)!;
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: real.enumerable,
      get() {
        const run = runs.getStore();
        return run ? run[name] : real.get!.call(process);
      },
    });
  }
  const realArgv = process.argv;
  Object.defineProperty(process, 'argv', {
    configurable: true,
    enumerable: true,
    get: () => runs.getStore()?.argv ?? realArgv,
    set: () => undefined,
  });
  const realExit = process.exit;
  process.exit = function exit(code?: number | string | null): never {
    const run = runs.getStore();
    if (!run) return realExit.call(process, code);
    if (run.exited === undefined) run.exited = code === undefined || code === null ? exitCodeSetBy(run) : Number(code);
    throw new CliExit(run.exited);
  } as typeof process.exit;
  // A process has its own working directory (a `.keydeck` file is looked up from it): a run may too.
  const realCwd = process.cwd.bind(process);
  process.cwd = () => runs.getStore()?.cwd ?? realCwd();
  // A process's libuv reads $HOME for os.homedir(); this thread's would read the test process's.
  const realHomedir = os.homedir;
  os.homedir = () => runs.getStore()?.env.HOME ?? realHomedir();
  // A resident command starts again with its V8 flags (src/cli/startFlags.ts): in a run, that would
  // replace the test's process. Refused there, as a system without execve refuses it (the command
  // runs on with V8's defaults).
  const realExecve = process.execve;
  process.execve = ((...args: Parameters<NonNullable<typeof process.execve>>) => {
    if (runs.getStore()) throw new Error('a run in the test’s thread cannot replace the process');
    return realExecve!.apply(process, args);
  }) as typeof process.execve;
  // Node's compile cache (src/cli/main.ts turns it on for a one-shot command) would be this process's,
  // written to the run's snapshot at its exit, after the snapshot is gone: in a run, as if
  // NODE_DISABLE_COMPILE_CACHE were set. (The thread compiles the bundle once anyway.)
  const realEnableCompileCache = nodeModule.enableCompileCache;
  nodeModule.enableCompileCache = ((...args: Parameters<typeof nodeModule.enableCompileCache>) =>
    runs.getStore() ? { status: nodeModule.constants.compileCacheStatus.DISABLED } : realEnableCompileCache(...args)) as typeof nodeModule.enableCompileCache;
  syncBuiltinESMExports();
  // Every connection a run opens, to close at its end as a process's exit does: each client keeps
  // its own keep-alive agent, whose idle sockets would stay open to the test's servers (and keep
  // the run's objects in memory) until the server times them out.
  diagnosticsChannel.subscribe('net.client.socket', (message) => {
    runs.getStore()?.sockets.add((message as { socket: Socket }).socket);
  });
}

/** A snapshot's command line (src/cli/main.ts `main`) and the package's version, as src/cli.ts gives it. */
interface CommandLine {
  readonly main: (version: string, argv: readonly string[]) => Promise<void>;
  readonly version: string;
}

/** The command lines loaded so far, by the path of the snapshot's cli.js: one per snapshot and thread. */
const commandLines = new Map<string, Promise<CommandLine>>();

/** Loads the command line of the snapshot of `cli` (its dist/program.js) once. */
function commandLineOf(cli: string): Promise<CommandLine> {
  let loaded = commandLines.get(cli);
  if (!loaded) {
    const dist = path.dirname(cli);
    loaded = Promise.all([nativeImport(pathToFileURL(path.join(dist, 'program.js')).href) as Promise<Pick<CommandLine, 'main'>>, readFile(path.join(dist, '..', 'package.json'), 'utf8')]).then(
      ([{ main }, pkg]) => ({ main, version: (JSON.parse(pkg) as { version: string }).version }),
    );
    commandLines.set(cli, loaded);
  }
  return loaded;
}

/** Options of {@link runCliInThread}. */
export interface ThreadRunOptions {
  /** The CLI's whole environment. */
  readonly env: NodeJS.ProcessEnv;
  /** The run's working directory (default the test process's). */
  readonly cwd?: string | undefined;
  /** stdin's whole content; stdin is at its end once read. */
  readonly input: string;
  /** The run's snapshot of dist/cli.js; the command line of its `program.js` is run. */
  readonly cli: string;
  /** How long the run may take, ms. */
  readonly timeoutMs: number;
  /** The error of a run that took longer, from what it had written by then. */
  readonly timedOut: (stdout: string, stderr: string) => Error;
}

/** The outcome of one run. */
export interface ThreadRunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `keydeck …args` in this thread (see the module comment). Resolves once the CLI called
 * `process.exit`, or its command line settled without (the code is then `process.exitCode`, or 0);
 * an error the CLI throws out of its command line ends it as Node ends a process, with the stack
 * on stderr and code 1. Rejects with `timedOut(…)` after `timeoutMs`: the run is then left to what
 * it waits for (a thread cannot be killed), its output no longer kept.
 */
export async function runCliInThread(args: readonly string[], options: ThreadRunOptions): Promise<ThreadRunResult> {
  install();
  const env = Object.fromEntries(Object.entries(options.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  // env-paths (the config and data dirs, src/config/paths.ts) keeps `os.homedir()` from when it
  // was loaded, by the thread's first run; it reads the XDG dirs from the environment at each call.
  // So a run without them gets those that Linux's rule derives from its HOME, where a process would look.
  if (env.HOME !== undefined && process.platform === 'linux') {
    env.XDG_CONFIG_HOME ??= path.join(env.HOME, '.config');
    env.XDG_DATA_HOME ??= path.join(env.HOME, '.local', 'share');
  }
  const ended = () => run.exited !== undefined;
  const stdout = new Capture(ended);
  const stderr = new Capture(ended);
  const run: RunState = {
    env,
    cwd: options.cwd,
    argv: [process.execPath, options.cli, ...args],
    stdin: Readable.from(options.input ? [Buffer.from(options.input)] : [], { objectMode: false }),
    stdout,
    stderr,
    sockets: new Set(),
    exitCodeBefore: process.exitCode,
  };
  const { main, version } = await commandLineOf(options.cli);
  let timer: NodeJS.Timeout | undefined;
  let late: Error | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      late = options.timedOut(stdout.text, stderr.text);
      resolve();
    }, options.timeoutMs);
  });
  try {
    await Promise.race([runs.run(run, () => main(version, run.argv)), timeout]);
  } catch (error) {
    if (!(error instanceof CliExit) && !ended()) {
      stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n\nNode.js ${process.version}\n`);
      run.exited = 1;
    }
  } finally {
    clearTimeout(timer);
  }
  run.exited ??= exitCodeSetBy(run);
  process.exitCode = run.exitCodeBefore;
  for (const socket of run.sockets) socket.destroy();
  if (late) throw late;
  return { code: run.exited, stdout: stdout.text, stderr: stderr.text };
}
