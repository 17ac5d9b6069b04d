/**
 * Auto top-up in a face that reads the balance again and again: `keydeck exporter
 * --auto-topup`, `keydeck monitor --auto-topup` and the TUI's `--auto-topup`, each through its
 * account watcher (src/watcher), which calls the runner after each balance read. It gives the
 * policy's state from this machine's record (for the metrics, the Billing pane's line) and, when
 * the balance read is below the threshold, runs the operation once
 * (./autoTopUp.ts: it reads everything again under the account's lock and charges at most once).
 * One run at a time: a read that arrives while a run is under way is not acted on.
 *
 * The policy is read from the config file at each read (a small file), so `keydeck autotopup
 * set`, `off` or `resume` in another shell take effect at the next read.
 */
import type { CreditBalance } from '../api/schemas.js';
import { inScope, type JournalEntry, type JournalScope, type TopUpJournal } from '../billing/journal.js';
import type { AutoTopUpPolicy, SettleBounds } from '../config/autoTopUp.js';
import type { Failpoints } from '../failpoints/index.js';
import { runAutoTopUp, summarize, type AutoTopUpClient, type AutoTopUpOutcome, type AutoTopUpPause, type AutoTopUpSummary } from './autoTopUp.js';
import { autoTopUpFailedLine, autoTopUpLine, type AutoTopUpLine } from './wordingAutoTopUp.js';

/** What a face's auto top-up works with. */
export interface AutoTopUpRunnerOptions {
  readonly journal: TopUpJournal;
  /** The profile's records (host and profile). */
  readonly scope: JournalScope;
  /** keydeck's data dir (the account's lock). */
  readonly dataDir: string;
  /** Reads the profile's policy afresh (undefined: none). */
  readPolicy(): Promise<AutoTopUpPolicy | undefined>;
  /** Pauses the profile's policy on this machine (another machine charged for the same fall first). */
  pausePolicy(pause: AutoTopUpPause): Promise<void>;
  /** The card-on-file method names at this service. */
  readonly cardMethodNames: readonly string[];
  /** The settle wait's bounds (default: the operation's; a refused value fails each run). */
  readonly settle?: SettleBounds | { readonly problem: string };
  /** The failpoints of the machine's steps (src/failpoints `failpointsFrom`: crash walks only). */
  readonly failpoints?: Failpoints | undefined;
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

/** What a face shows of auto top-up: one line, its tone, and when it last changed (ms). */
export interface AutoTopUpView extends AutoTopUpLine {
  readonly at: number;
}

/** A charge's outcome as a notification (src/terminal/notify.ts `auto_top_up`), or undefined for a run that charged nothing. */
export type AutoTopUpNotice = {
  readonly outcome: 'credited' | 'failed' | 'unknown' | 'not_sent';
  readonly amount: number;
  readonly remaining?: number;
  readonly paused?: boolean;
  readonly reason?: string;
};

/**
 * Auto top-up's line for a face on a terminal (the TUI, `keydeck monitor`): takes what each run of
 * {@link AutoTopUpRunner} did (the account watcher, src/watcher, runs it after each balance read),
 * keeps the line the face shows (the wording table's `autoTopUpLine`), tells its listeners when it changes, and
 * hands every charge to `notify` (never a silent charge).
 */
export class AutoTopUpFeed {
  readonly #notify: (notice: AutoTopUpNotice, entry: JournalEntry) => void;
  readonly #listeners = new Set<() => void>();
  #view: AutoTopUpView | undefined;
  #last: { outcome: AutoTopUpOutcome; at: number } | undefined;

  /** `notify`: hears each charge, with its record. */
  constructor(notify: (notice: AutoTopUpNotice, entry: JournalEntry) => void) {
    this.#notify = notify;
  }

  /** The line to show now (undefined: no policy, or nothing read yet). */
  get view(): AutoTopUpView | undefined {
    return this.#view;
  }

  /** Calls `listener` whenever {@link view} changes; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** What a run after a balance read did. Never throws. */
  took(step: AutoTopUpStep): void {
    const now = Date.now();
    if (step.outcome) {
      if (step.outcome.kind !== 'skipped' || step.outcome.decision.kind !== 'not_needed') this.#last = { outcome: step.outcome, at: now };
      const o = step.outcome;
      if (o.kind === 'credited' || o.kind === 'failed' || o.kind === 'unknown' || o.kind === 'not_sent') {
        this.#notify(
          {
            outcome: o.kind,
            amount: o.kind === 'credited' ? (o.entry.credited ?? o.entry.amount) : o.entry.amount,
            ...(o.entry.balance !== undefined && { remaining: o.entry.balance }),
            ...(o.kind === 'failed' && { paused: o.paused }),
            // Another machine charged for the same fall first: this machine paused itself.
            ...((o.kind === 'credited' || o.kind === 'unknown') && o.secondCharge !== undefined && { paused: true }),
            ...((o.kind === 'failed' || o.kind === 'not_sent') && o.entry.reason !== undefined && { reason: o.entry.reason }),
          },
          o.entry,
        );
      }
    }
    this.#show(step.policy === undefined ? undefined : { ...autoTopUpLine(step.policy, step.summary, this.#last), at: now });
  }

  /** A run that could not be made (nothing was charged): the line says why. */
  failed(error: unknown): void {
    this.#show({ line: autoTopUpFailedLine((error as Error).message), tone: 'warning', at: Date.now() });
  }

  #show(next: AutoTopUpView | undefined): void {
    if (next?.line === this.#view?.line && next?.tone === this.#view?.tone) return;
    this.#view = next;
    for (const listener of this.#listeners) listener();
  }
}
