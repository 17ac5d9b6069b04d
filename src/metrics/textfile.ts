/**
 * A cron job's run as Prometheus sees it: the file `--metrics-textfile PATH` writes for
 * node_exporter's textfile collector (`--collector.textfile.directory`, files named `*.prom`), after
 * `keydeck autotopup run --once`, `keys rotate` and `mgmt-keys rotate`. The file is replaced
 * atomically (written beside it under another name, then renamed: the collector never reads half a
 * file), mode 0644 (node_exporter runs as another user), and holds the last run only: node_exporter
 * serves it on every scrape until the next run replaces it. Every series is labelled `command`,
 * `profile` and `origin`:
 *
 * | metric | labels | what |
 * |---|---|---|
 * | `keydeck_cron_last_run_timestamp_seconds` | | when the run ended (Unix seconds): its age says a job that stopped running |
 * | `keydeck_cron_last_run_exit_code` | | its exit code (0 done; docs/commands.md, "Exit codes") |
 * | `keydeck_autotopup_last_run` | `outcome`, `decision` | auto top-up: 1, labelled with what the run did (`credited`, `skipped`…) and why (`not_needed`, `capped`…) |
 * | `keydeck_autotopup_paused` | | auto top-up: 1 while the policy is paused after failed charges, else 0 (the exporter's name: its alert fires on either) |
 * | `keydeck_autotopup_capped` | `cap` (`day`, `month`) | auto top-up: 1 when the run charged nothing because of that cap |
 * | `keydeck_autotopup_cap_remaining_usd` | `cap` | auto top-up: what the UTC day's and month's caps still allow, USD |
 * | `keydeck_autotopup_recorded_charges` | `outcome` (`credited`, `failed`, `unknown`, `not_sent`) | auto top-up: the auto charges in this machine's top-up record, by outcome |
 */
import { Gauge, Registry } from 'prom-client';
import { writeFileAtomically } from '../config/atomic.js';
import { AUTO_TOP_UP_OUTCOMES, type AutoTopUpChargeOutcome } from './autoTopUp.js';

/** Which run, for the labels: `command` (`autotopup run`, `keys rotate`, `mgmt-keys rotate`), `profile`, `origin`. */
export interface CronRunLabels {
  readonly command: string;
  readonly profile: string;
  readonly origin: string;
}

/** What an auto top-up run leaves in the file. Amounts USD. */
export interface AutoTopUpRunFigures {
  /** What the run did (an `AutoTopUpOutcome` kind) and why (its decision's kind, when it has one). */
  readonly outcome: string;
  readonly decision?: string | undefined;
  readonly paused: boolean;
  /** The cap that stopped a charge, when one did. */
  readonly capped?: 'day' | 'month' | undefined;
  readonly dayCapRemaining: number;
  readonly monthCapRemaining: number;
  /** Auto charges on record, by outcome. */
  readonly charges: Readonly<Record<AutoTopUpChargeOutcome, number>>;
}

/** The metrics of one cron run (see the module comment), written by {@link CronTextfile.write}. */
export class CronTextfile {
  readonly registry = new Registry();
  readonly #labels: Record<string, string>;

  constructor(labels: CronRunLabels) {
    this.#labels = { ...labels };
    this.registry.setDefaultLabels({ ...labels });
  }

  #gauge(name: string, help: string, labelNames: string[] = []): Gauge<string> {
    return new Gauge({ name, help, labelNames: [...labelNames, 'command', 'profile', 'origin'], registers: [this.registry] });
  }

  /** The run ended at epoch ms `t` with `exitCode`. */
  ended(exitCode: number, t = Date.now()): void {
    this.#gauge('keydeck_cron_last_run_timestamp_seconds', 'When the last run of this keydeck command ended (Unix seconds)').set(this.#labels, Math.floor(t / 1000));
    this.#gauge('keydeck_cron_last_run_exit_code', 'The exit code of the last run of this keydeck command (0: done)').set(this.#labels, exitCode);
  }

  /** What an auto top-up run did, and the policy's state after it. */
  autoTopUp(figures: AutoTopUpRunFigures): void {
    this.#gauge('keydeck_autotopup_last_run', 'What the last run of auto top-up did (1), by outcome and decision', ['outcome', 'decision']).set(
      { ...this.#labels, outcome: figures.outcome, decision: figures.decision ?? '' },
      1,
    );
    this.#gauge('keydeck_autotopup_paused', 'Whether auto top-up is paused after failed charges in a row (1), else 0').set(this.#labels, figures.paused ? 1 : 0);
    const capped = this.#gauge('keydeck_autotopup_capped', 'Whether the last run of auto top-up charged nothing because of this cap (1), else 0', ['cap']);
    const remaining = this.#gauge('keydeck_autotopup_cap_remaining_usd', 'What the UTC day’s and month’s caps of auto top-up still allow (USD)', ['cap']);
    for (const cap of ['day', 'month'] as const) {
      capped.set({ ...this.#labels, cap }, figures.capped === cap ? 1 : 0);
      remaining.set({ ...this.#labels, cap }, Math.max(0, cap === 'day' ? figures.dayCapRemaining : figures.monthCapRemaining));
    }
    // A gauge: the file states the record's count (a counter is the exporter's own, keydeck_autotopup_charges_total).
    const charges = new Gauge({
      name: 'keydeck_autotopup_recorded_charges',
      help: 'Auto charges in this machine’s top-up record, by outcome',
      labelNames: ['outcome', 'command', 'profile', 'origin'],
      registers: [this.registry],
    });
    for (const outcome of AUTO_TOP_UP_OUTCOMES) charges.set({ ...this.#labels, outcome }, figures.charges[outcome]);
  }

  /**
   * Replaces the file at `file` with the metrics, atomically, mode 0644.
   * @throws Error with the fs error's `code` when it cannot be written (the old file is then unchanged).
   */
  async write(file: string): Promise<void> {
    await writeFileAtomically(file, await this.registry.metrics(), 0o644);
  }
}
