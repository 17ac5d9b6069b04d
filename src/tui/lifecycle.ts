/**
 * The app's one exit site (as Shopify cli-kit's lifecycle root): `q`, ctrl-c, SIGTERM, SIGHUP,
 * SIGINT, an uncaught error or a render error all call {@link Lifecycle.exit}, which unmounts
 * Ink (Ink leaves the alternate screen and shows the cursor), waits for it, waits for the work the
 * app handed over ({@link Lifecycle.waitUntil}: an operation's record write, the account watcher's
 * stop; {@link WORK_BUDGET_MS} at most, saying so after {@link NOTICE_AFTER_MS}, a second exit
 * such as a second ctrl-c cutting it short), runs the cleanups (the embedded sandbox is closed), prints
 * the message or error (redacted) on stderr after the screen is restored, and sets the exit code.
 * Only the first call's code and message count.
 */
import { redactSecrets } from '../api/errors.js';

/** What the lifecycle drives. */
export interface LifecycleOptions {
  /** Unmounts the Ink app (restores the terminal). */
  readonly unmount: () => void;
  /** Settles when Ink has finished unmounting. */
  readonly waitUntilExit: () => Promise<unknown>;
  /** Where messages and errors go, after the screen is restored. Default process.stderr. */
  readonly stderr?: NodeJS.WritableStream;
  /** Sets the process exit code. Default: `process.exitCode = code`. */
  readonly setExitCode?: (code: number) => void;
  /** How long the exit waits for the work handed over, ms (default {@link WORK_BUDGET_MS}). */
  readonly workBudgetMs?: number;
  /** After how long a wait for that work is said on stderr, ms (default {@link NOTICE_AFTER_MS}). */
  readonly noticeAfterMs?: number;
}

/**
 * How long the exit waits for the work handed over, ms: a request's deadline (the client's 10 s)
 * or a record's lock (src/config/lock.ts, 10 s) and a little more. Work still under way then is
 * left as a killed process leaves it (each operation is recorded before each step and taken up at
 * the next start), and the exit says so.
 */
export const WORK_BUDGET_MS = 15_000;

/**
 * After how long the exit says it is waiting for work, ms: the screen is already restored, and a
 * shell that gives no prompt back for longer looks hung. The line says how to leave at once.
 */
export const NOTICE_AFTER_MS = 500;

/** The exit site. */
export interface Lifecycle {
  /**
   * Exits once: unmount, wait, cleanups, message (redacted), exit code. Later calls return
   * the same promise; one made while the exit waits for the work handed over (a second ctrl-c)
   * stops that wait, as its budget running out does.
   */
  exit(code: number, message?: string): Promise<number>;
  /** Runs `fn` during exit, after Ink is unmounted and the work handed over has settled (e.g. closing the sandbox). */
  onCleanup(fn: () => Promise<void> | void): void;
  /**
   * Hands over `work` that must not be cut short by the exit (a record written after its dialog
   * closed, the account watcher's stop): the exit waits for it to settle (fulfilled or rejected)
   * before the cleanups, work handed over while it waits included, for at most
   * {@link LifecycleOptions.workBudgetMs}.
   * @returns `work` itself, for its owner to go on with
   */
  readonly waitUntil: <T>(work: Promise<T>) => Promise<T>;
  /** Adds a value to redact from anything printed (a session token, say). */
  addSecret(value: string): void;
  /** Settles with the exit code once exit has finished. */
  readonly done: Promise<number>;
  readonly exiting: boolean;
}

/** Creates the exit site. See the module comment. */
export function createLifecycle(options: LifecycleOptions): Lifecycle {
  const cleanups: Array<() => Promise<void> | void> = [];
  const secrets: string[] = [];
  const work = new Set<Promise<unknown>>();
  const stderr = options.stderr ?? process.stderr;
  const setExitCode = options.setExitCode ?? ((code: number) => (process.exitCode = code));
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  let exiting: Promise<number> | undefined;
  /** Set while the exit waits for the work handed over: a second exit (a second ctrl-c) stops that wait. */
  let leaveNow: (() => void) | undefined;

  const run = async (code: number, message?: string): Promise<number> => {
    try {
      options.unmount();
    } catch {
      // Already unmounted.
    }
    try {
      await options.waitUntilExit();
    } catch {
      // A render error rejects waitUntilExit; it is reported below through `message`.
    }
    let timer: NodeJS.Timeout | undefined;
    const budgetMs = options.workBudgetMs ?? WORK_BUDGET_MS;
    // The screen is the shell's again: a wait the user would notice says what it is, and how to cut it.
    const notice = setTimeout(
      () => work.size > 0 && stderr.write(`keydeck: finishing the work under way (at most ${Math.round(budgetMs / 1000)} s; ctrl-c again leaves now)\n`),
      options.noticeAfterMs ?? NOTICE_AFTER_MS,
    );
    const inTime = await Promise.race([
      settled(work).then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), budgetMs);
        leaveNow = () => resolve(false);
      }),
    ]);
    clearTimeout(timer);
    clearTimeout(notice);
    leaveNow = undefined;
    if (!inTime) stderr.write('keydeck: left work still under way (an operation stopped half way is offered again at the next start)\n');
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (error) {
        stderr.write(`keydeck: while closing: ${redactSecrets(error instanceof Error ? error.message : String(error), secrets)}\n`);
      }
    }
    if (message) stderr.write(`${redactSecrets(message, secrets)}\n`);
    setExitCode(code);
    resolveDone(code);
    return code;
  };

  return {
    exit(code, message) {
      if (exiting) leaveNow?.();
      exiting ??= run(code, message);
      return exiting;
    },
    onCleanup(fn) {
      cleanups.push(fn);
    },
    waitUntil: (promise) => track(work, promise),
    addSecret(value) {
      if (value) secrets.push(value);
    },
    done,
    get exiting() {
      return exiting !== undefined;
    },
  };
}

/**
 * Adds `promise` to `work` until it settles (its failure is its owner's to report: never thrown from here).
 * @returns `promise` itself
 */
export function track<T>(work: Set<Promise<unknown>>, promise: Promise<T>): Promise<T> {
  const settling = promise.then(
    () => undefined,
    () => undefined,
  );
  work.add(settling);
  void settling.then(() => work.delete(settling));
  return promise;
}

/** Resolves once every promise of `work` has settled, those added meanwhile included. */
export async function settled(work: ReadonlySet<Promise<unknown>>): Promise<void> {
  while (work.size > 0) await Promise.all(work);
}
