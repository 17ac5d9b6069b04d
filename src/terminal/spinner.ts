/**
 * The commands' activity spinner: while a call to the service has taken longer than
 * {@link SPINNER_DELAY_MS}, a spinner turns on stderr (yocto-spinner), only when stderr is a
 * terminal that can move the cursor (not `TERM=dumb`, not CI), so pipes, `--json` and logs get
 * nothing. Overlapping calls share one spinner. It is erased before anything else is written
 * (yocto-spinner hooks stdout and stderr while it spins) and when the last call settles; ctrl-c
 * while it spins restores the cursor and exits 130.
 */
import yoctoSpinner, { type Spinner } from 'yocto-spinner';

/** A call shorter than this (ms) shows no spinner. */
export const SPINNER_DELAY_MS = 300;

/** Options of {@link createActivity}. */
export interface ActivityOptions {
  /** Default process.stderr. */
  readonly stream?: NodeJS.WriteStream;
  /** Default process.env (TERM, CI). */
  readonly env?: NodeJS.ProcessEnv;
  /** Default {@link SPINNER_DELAY_MS}. */
  readonly delayMs?: number;
}

/** Starts and ends units of work; the spinner shows while one has lasted longer than the delay. */
export interface Activity {
  /** Marks the start of a call described by `text`; the returned function marks its end (idempotent). */
  begin(text: string): () => void;
}

/** See the module comment. */
export function createActivity(options: ActivityOptions = {}): Activity {
  const stream = options.stream ?? process.stderr;
  const env = options.env ?? process.env;
  const delayMs = options.delayMs ?? SPINNER_DELAY_MS;
  const enabled = Boolean(stream.isTTY) && env.TERM !== 'dumb' && !('CI' in env);
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  let spinner: Spinner | undefined;
  return {
    begin(text) {
      if (!enabled) return () => {};
      running++;
      if (running === 1 && !spinner) {
        timer = setTimeout(() => {
          timer = undefined;
          spinner = yoctoSpinner({ text, stream }).start();
        }, delayMs);
        timer.unref();
      }
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        running--;
        if (running > 0) return;
        if (timer) clearTimeout(timer);
        timer = undefined;
        spinner?.stop();
        spinner = undefined;
      };
    },
  };
}

/**
 * `target` with every method that returns a promise wrapped in an {@link Activity} unit named
 * `text` (a client whose calls show the spinner), also the methods of its object properties (the
 * client's resources: `client.keys.list()`). Other properties pass through; getters run on the
 * real object (its private fields are not the proxy's).
 */
export function withActivity<T extends object>(target: T, activity: Activity, text: string): T {
  const nested = new Map<PropertyKey, object>();
  return new Proxy(target, {
    get(obj, prop) {
      const value = Reflect.get(obj, prop, obj) as unknown;
      if (typeof value === 'object' && value !== null) {
        let wrapped = nested.get(prop);
        if (!wrapped) nested.set(prop, (wrapped = withActivity(value, activity, text)));
        return wrapped;
      }
      if (typeof value !== 'function') return value;
      // Called on the real object (its private fields are not the proxy's).
      return (...args: unknown[]) => {
        const result = (value as (...a: unknown[]) => unknown).apply(obj, args);
        if (!(result instanceof Promise)) return result;
        const end = activity.begin(text);
        return result.finally(end);
      };
    },
  });
}
