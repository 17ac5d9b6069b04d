/**
 * `watch` polls the balance (through the account watcher every face uses: src/watcher) and prints one line per change (`<ISO time> remaining … totalTopUp …`);
 * it runs until ctrl-c (SIGINT: exit 130) or SIGTERM (exit 0), or exits 3 as soon as `remaining` is below
 * `--alert-below` (or the profile's `alertBelowUsd`). A failing first read ends it (exit 4 for
 * network trouble, 1 for a refusal): a watch that never worked is a setup error. Later, network
 * trouble (`network_error`, `timeout`, `server_error`), `rate_limited` and `invalid_response`
 * print one line on stderr (once per distinct problem) and the watch keeps polling; any other
 * refusal (the key was deleted: `unauthorized`) ends it with exit 1, since polling cannot recover.
 */
import { KeydeckApiError, type ApiErrorCode } from '../api/errors.js';
import { type CreditBalance } from '../api/schemas.js';
import { AccountWatcher } from '../watcher/accountWatcher.js';
import { HistoryRecorder } from '../billing/historyRecorder.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { parseWatchFlags } from '../billing/settings.js';
import { apiErrorSentence, NETWORK_ERROR_CODES, type CommandDeps } from './api-command.js';
import { ExitCode, fail, openSession, printLine, type ExitCodeValue, type GlobalOptions } from './output.js';
import { isoSeconds } from './table.js';
import { visible } from '../terminal/sanitize.js';
import { formatUsdCode } from '../api/money.js';
import { billingWords } from './wordingBilling.js';

export interface WatchFlags {
  /** Seconds between reads (≥ 2; default the profile's pollIntervalSeconds, 15). */
  readonly interval?: string;
  /** USD threshold (default the profile's alertBelowUsd; none: never exits 3). */
  readonly alertBelow?: string;
}

/** Dependencies of {@link billingWatch}. */
export interface WatchDeps extends CommandDeps {
  /** Ends the watch (exit 0) when aborted. Default: SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
  /** Default `Date.now`. */
  readonly now?: () => number;
}

/** Codes that do not end a watch after its first read: the next poll may work. */
const TRANSIENT_CODES: ReadonlySet<ApiErrorCode> = new Set<ApiErrorCode>([...NETWORK_ERROR_CODES, 'rate_limited', 'invalid_response']);

/** One `billing watch` line: `<ISO time> remaining 25.00 USD totalTopUp 50.00 USD`. */
export function watchLine(t: number, credits: Pick<CreditBalance, 'remaining' | 'totalTopUp'>): string {
  return `${isoSeconds(t)} remaining ${formatUsdCode(credits.remaining)} totalTopUp ${formatUsdCode(credits.totalTopUp)}`;
}

/** A signal aborted on the first SIGINT or SIGTERM (the handlers are removed by `dispose`); `interrupted` after SIGINT. */
function signalOnInterrupt(): { signal: AbortSignal; readonly interrupted: boolean; dispose: () => void } {
  const controller = new AbortController();
  let interrupted = false;
  const stop = (): void => controller.abort();
  const onInt = (): void => {
    interrupted = true;
    controller.abort();
  };
  process.once('SIGINT', onInt);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    get interrupted() {
      return interrupted;
    },
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', stop);
    },
  };
}

/**
 * `keydeck billing watch [--interval S] [--alert-below USD]`: see the module docstring for what
 * it prints and when it ends. Flags are checked before anything is read (exit 2).
 * @returns 130 after ctrl-c (SIGINT), 0 after SIGTERM or `deps.signal`, 3 when the balance is below the threshold
 * @throws CommandFailure / KeydeckApiError as described (exit 1 or 4)
 */
export async function billingWatch(globals: GlobalOptions, flags: WatchFlags = {}, deps: WatchDeps = {}): Promise<ExitCodeValue | 130> {
  const parsed = parseWatchFlags(flags);
  if (!parsed.ok) fail(ExitCode.usage, billingWords.invalidWindow, { reason: parsed.reason });
  const { client, profile } = await openSession(globals, deps.session);
  const intervalMs = (parsed.value.intervalSeconds ?? profile.pollIntervalSeconds) * 1000;
  const threshold = parsed.value.alertBelowUsd ?? profile.alertBelowUsd;
  const now = deps.now ?? Date.now;
  // Every reading joins the balance history on disk, as the TUI's and the monitor's do.
  let store: BalanceHistoryStore | undefined;
  try {
    store = BalanceHistoryStore.open({ env: deps.session?.env ?? process.env });
  } catch (error) {
    process.stderr.write(`keydeck: the balance history is not kept: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  const recorder = new HistoryRecorder({
    series: store?.series(profile.name, originOf(profile.baseUrl)),
    now: now(),
    seed: false,
    onError: (sentence) => process.stderr.write(`keydeck: ${sentence}.\n`),
  });
  // The one poll loop of every face (src/watcher/accountWatcher.ts): the interval with a jitter,
  // longer while the service fails, never before a 429's Retry-After.
  const watcher = new AccountWatcher({ connect: () => ({ client }), intervalMs, history: recorder, alertBelowUsd: threshold, now });
  const interrupt = deps.signal ? undefined : signalOnInterrupt();
  const signal = deps.signal ?? interrupt!.signal;
  let last: string | undefined;
  let lastProblem: string | undefined;
  let read = false;
  try {
    return await new Promise<ExitCodeValue | 130>((resolve, reject) => {
      // ctrl-c ends the watch as shells expect (128 + SIGINT); SIGTERM is a normal stop.
      const stop = () => resolve(interrupt?.interrupted ? 130 : ExitCode.ok);
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      watcher.on((event) => {
        if (event.kind === 'balance') {
          read = true;
          lastProblem = undefined;
          const key = `${event.credits.remaining}|${event.credits.totalTopUp}`;
          if (key !== last) printLine(watchLine(now(), event.credits));
          last = key;
        } else if (event.kind === 'low_balance') {
          process.stderr.write(`keydeck: below_threshold: the remaining balance ${formatUsdCode(event.remaining)} is below ${formatUsdCode(event.threshold)}.\n`);
          resolve(ExitCode.belowThreshold);
        } else if (event.kind === 'failure') {
          const { error } = event;
          // A watch that never worked is a setup error; a refusal polling cannot get past ends it.
          if (!read || !(error instanceof KeydeckApiError) || !TRANSIENT_CODES.has(error.code)) return reject(error);
          const sentence = apiErrorSentence(error);
          if (sentence !== lastProblem) process.stderr.write(`${isoSeconds(now())} keydeck: ${visible(sentence)} Still watching.\n`);
          lastProblem = sentence;
        }
      });
      watcher.start();
    });
  } finally {
    await watcher.stop();
    interrupt?.dispose();
    store?.close();
    client.close();
  }
}
