/**
 * Auto top-up in an account watcher (`--auto-topup`): auto top-up's runner
 * (src/operations/autoTopUpRunner.ts) run after a reading on a task of its own, so that its settle
 * wait and its lock never hold the next poll back; one run at a time (a reading that arrives during
 * a run is not acted on, as the runner itself does).
 */
import type { CreditBalance } from '../api/schemas.js';
import type { AutoTopUpClient } from '../operations/autoTopUp.js';
import type { AutoTopUpStep } from '../operations/autoTopUpRunner.js';
import type { WatcherAutoTopUp, WatcherClient } from './types.js';

/** What a run did: its step, or why it could not be made (nothing was charged then). */
export type AutoTopUpDone = { readonly step: AutoTopUpStep } | { readonly error: unknown };

/** See the module comment. */
export class AutoTopUpRun {
  readonly #auto: WatcherAutoTopUp;
  #run: Promise<void> | undefined;

  constructor(auto: WatcherAutoTopUp) {
    this.#auto = auto;
  }

  /** Runs auto top-up after the reading `credits` with `client`, unless a run is under way; `done` hears what it did. */
  start(client: WatcherClient, credits: CreditBalance, done: (what: AutoTopUpDone) => void): void {
    if (this.#run) return;
    const auto = this.#auto;
    const runnerClient = auto.clientOf ? auto.clientOf(client) : (client as unknown as AutoTopUpClient);
    this.#run = (async () => {
      let what: AutoTopUpDone;
      try {
        what = { step: await auto.runner.afterReading(runnerClient, credits) };
      } catch (error) {
        what = { error };
      }
      this.#run = undefined;
      done(what);
    })().catch((error: unknown) => {
      // A listener's failure (a face's bug), thrown again where nothing catches it.
      queueMicrotask(() => {
        throw error;
      });
    });
  }

  /** Resolves once no run is under way (a charge is never cut in two by a stop). */
  async idle(): Promise<void> {
    await this.#run;
  }
}
