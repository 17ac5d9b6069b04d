/**
 * Auto top-up in a face that reads the balance again and again (issue 47): `keydeck exporter
 * --auto-topup`, `keydeck monitor --auto-topup` and the TUI's `--auto-topup`. After each balance
 * read it gives the policy's state from this machine's record (for the metrics, the Billing pane's
 * line) and, when the balance read is below the threshold, runs the operation once
 * (./autoTopUp.ts: it reads everything again under the account's lock and charges at most once).
 * One run at a time: a read that arrives while a run is under way is not acted on.
 *
 * The policy is read from the config file at each read (a small file), so `keydeck autotopup
 * set`, `off` or `resume` in another shell take effect at the next read.
 */
import type { CreditBalance } from '../api/schemas.js';
import { inScope, type JournalScope, type TopUpJournal } from '../billing/journal.js';
import type { AutoTopUpPolicy } from '../config/autoTopUp.js';
import { runAutoTopUp, summarize, type AutoTopUpClient, type AutoTopUpOutcome, type AutoTopUpSummary } from './autoTopUp.js';

/** What a face's auto top-up works with. */
export interface AutoTopUpRunnerOptions {
  readonly journal: TopUpJournal;
  /** The profile's records (host and profile). */
  readonly scope: JournalScope;
  /** keydeck's data dir (the account's lock). */
  readonly dataDir: string;
  /** Reads the profile's policy afresh (undefined: none). */
  readPolicy(): Promise<AutoTopUpPolicy | undefined>;
  /** The card-on-file method names at this service. */
  readonly cardMethodNames: readonly string[];
}

/** What one balance read led to. */
export interface AutoTopUpStep {
  /** The policy as read now (undefined: none, and nothing else is set). */
  readonly policy?: AutoTopUpPolicy;
  /** The state after this step, from this machine's record. */
  readonly summary?: AutoTopUpSummary;
  /** What the run did, when the balance was below the threshold and a run was made. */
  readonly outcome?: AutoTopUpOutcome;
}

/** One face's auto top-up (see the module comment). */
export class AutoTopUpRunner {
  readonly #options: AutoTopUpRunnerOptions;
  #running = false;

  constructor(options: AutoTopUpRunnerOptions) {
    this.#options = options;
  }

  /**
   * After a balance read with `client` (`credits`: what it read).
   * @throws what the operation throws (the balance or status unreadable, the record unwritable,
   *   the lock held too long): nothing was charged then
   */
  async afterReading(client: AutoTopUpClient, credits: CreditBalance): Promise<AutoTopUpStep> {
    const policy = await this.#options.readPolicy();
    if (policy === undefined) return {};
    const records = async () => (await this.#options.journal.list()).filter((e) => inScope(e, this.#options.scope));
    const summary = async () => summarize(await records(), policy, client.serviceNow());
    if (credits.remaining >= policy.belowUsd || this.#running) return { policy, summary: await summary() };
    this.#running = true;
    try {
      const outcome = await runAutoTopUp({ client, ...this.#options });
      return { policy, summary: await summary(), outcome };
    } finally {
      this.#running = false;
    }
  }
}
