/**
 * Auto top-up as metrics, on an account's registry (./account.ts: labelled `profile`
 * and `origin`), exported by the faces that were told to act (`keydeck exporter --auto-topup`,
 * `keydeck monitor --auto-topup --metrics`) and only while the profile has a policy:
 *
 * | metric | labels | what |
 * |---|---|---|
 * | `keydeck_autotopup_charges_total` | `outcome` (`credited`, `failed`, `unknown`, `not_sent`) | charges auto top-up made, by outcome (`unknown`: sent, its answer lost or unclear) |
 * | `keydeck_autotopup_paused` | | 1 while the policy is paused after failed charges in a row, else 0 |
 * | `keydeck_autotopup_cap_remaining_usd` | `cap` (`day`, `month`) | what the UTC day's and month's caps still allow, USD (auto charges on this machine's record) |
 * | `keydeck_autotopup_capped` | `cap` (`day`, `month`) | 1 while the last run charged nothing because the charge would pass that cap, else 0 |
 * | `keydeck_autotopup_two_machines` | | 1 while this machine's policy is paused because another machine charged the card for the same fall of the balance first (two machines run auto top-up for the account), else 0 |
 */
import { Counter, Gauge } from 'prom-client';
import type { AccountMetrics } from './account.js';

/** The outcomes of `keydeck_autotopup_charges_total`. */
export const AUTO_TOP_UP_OUTCOMES = ['credited', 'failed', 'unknown', 'not_sent'] as const;
/** See {@link AUTO_TOP_UP_OUTCOMES}. */
export type AutoTopUpChargeOutcome = (typeof AUTO_TOP_UP_OUTCOMES)[number];

/** What the policy's state is, as the metrics show it. Amounts USD. */
export interface AutoTopUpGauges {
  readonly paused: boolean;
  readonly dayCapRemaining: number;
  readonly monthCapRemaining: number;
  /** Set while this machine's policy is paused for two machines (the sentence naming the other charge). */
  readonly twoMachines?: string | undefined;
}

/** The auto top-up metrics of one account (see the module comment). */
export class AutoTopUpMetrics {
  readonly #account: AccountMetrics;
  readonly #labels: { profile: string; origin: string };
  readonly #charges: Counter<'outcome' | 'profile' | 'origin'>;
  readonly #paused: Gauge<'profile' | 'origin'>;
  readonly #capRemaining: Gauge<'cap' | 'profile' | 'origin'>;
  readonly #capped: Gauge<'cap' | 'profile' | 'origin'>;
  readonly #twoMachines: Gauge<'profile' | 'origin'>;

  constructor(account: AccountMetrics) {
    this.#account = account;
    this.#labels = { profile: account.profile, origin: account.origin };
    const registers = [account.registry];
    this.#charges = new Counter({ name: 'keydeck_autotopup_charges_total', help: 'Charges auto top-up made to the card on file, by outcome', labelNames: ['outcome', 'profile', 'origin'], registers });
    this.#paused = new Gauge({ name: 'keydeck_autotopup_paused', help: 'Whether auto top-up is paused after failed charges in a row (1), else 0', labelNames: ['profile', 'origin'], registers });
    this.#capRemaining = new Gauge({
      name: 'keydeck_autotopup_cap_remaining_usd',
      help: 'What the UTC day’s and month’s caps of auto top-up still allow (USD)',
      labelNames: ['cap', 'profile', 'origin'],
      registers,
    });
    this.#capped = new Gauge({
      name: 'keydeck_autotopup_capped',
      help: 'Whether the last run of auto top-up charged nothing because of this cap (1), else 0',
      labelNames: ['cap', 'profile', 'origin'],
      registers,
    });
    this.#twoMachines = new Gauge({
      name: 'keydeck_autotopup_two_machines',
      help: 'Whether auto top-up is paused on this machine because another machine charged for the same fall first (1), else 0',
      labelNames: ['profile', 'origin'],
      registers,
    });
  }

  /** The policy's state now (undefined: no policy, so no series). */
  state(gauges: AutoTopUpGauges | undefined): void {
    if (gauges === undefined) {
      this.#paused.reset();
      this.#capRemaining.reset();
      this.#capped.reset();
      this.#charges.reset();
      this.#twoMachines.reset();
    } else {
      for (const outcome of AUTO_TOP_UP_OUTCOMES) this.#charges.inc({ ...this.#labels, outcome }, 0);
      this.#paused.set(this.#labels, gauges.paused ? 1 : 0);
      this.#capRemaining.set({ ...this.#labels, cap: 'day' }, Math.max(0, gauges.dayCapRemaining));
      this.#capRemaining.set({ ...this.#labels, cap: 'month' }, Math.max(0, gauges.monthCapRemaining));
      for (const cap of ['day', 'month'] as const) this.#capped.set({ ...this.#labels, cap }, this.#cappedBy === cap ? 1 : 0);
      this.#twoMachines.set(this.#labels, gauges.twoMachines !== undefined ? 1 : 0);
    }
    this.#account.changed();
  }

  #cappedBy: 'day' | 'month' | undefined;

  /** The last run charged nothing because of `cap` (undefined: it was not stopped by a cap). Shown at the next {@link state}. */
  capped(cap: 'day' | 'month' | undefined): void {
    this.#cappedBy = cap;
  }

  /** A charge ended with `outcome`. */
  charged(outcome: AutoTopUpChargeOutcome): void {
    this.#charges.inc({ ...this.#labels, outcome });
    this.#account.changed();
  }
}
