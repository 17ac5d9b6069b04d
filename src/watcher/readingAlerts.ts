/**
 * What one balance reading tells beyond its figures, judged as it arrives: the low-balance
 * crossing (src/billing/alert.ts: once per crossing), a rise of `totalTopUp` since the reading
 * before (a top-up credited: a rise names no particular top-up), and the balance's burn against
 * its own baseline (src/billing/runaway.ts). Its state is three small values, whatever the number
 * of readings.
 */
import type { CreditBalance } from '../api/schemas.js';
import { INITIAL_LOW_BALANCE_STATE, observeBalance, type LowBalanceState } from '../billing/alert.js';
import type { BalanceHistory } from '../billing/history.js';
import { judgeAccount, type RunawaySettings } from '../billing/runaway.js';
import type { AccountEvent } from './types.js';

/** How far back the burn is judged, ms (the baseline's 7 days and a day). */
const BURN_SPAN_MS = 8 * 86_400_000;

/** See the module comment. */
export class ReadingAlerts {
  /** Low-balance threshold, USD (undefined: no alert). */
  threshold: number | undefined;
  readonly #runaway: RunawaySettings | undefined;
  #alarm: LowBalanceState = INITIAL_LOW_BALANCE_STATE;
  #lastTotal: number | undefined;

  /** `runaway`: judge the burn after each reading with these settings (absent: not judged). */
  constructor(threshold: number | undefined, runaway: RunawaySettings | undefined) {
    this.threshold = threshold;
    this.#runaway = runaway;
  }

  /** The events of the reading `credits` at `at` (epoch ms), `history` holding it already. */
  judge(credits: CreditBalance, at: number, history: BalanceHistory): AccountEvent[] {
    const events: AccountEvent[] = [];
    const step = observeBalance(this.#alarm, credits.remaining, this.threshold);
    this.#alarm = step.state;
    if (step.fire && this.threshold !== undefined) events.push({ kind: 'low_balance', remaining: credits.remaining, threshold: this.threshold, totalTopUp: credits.totalTopUp });
    if (this.#runaway) events.push({ kind: 'account_burn', judgement: judgeAccount(history.since(at - BURN_SPAN_MS), at, this.#runaway) });
    const before = this.#lastTotal;
    this.#lastTotal = credits.totalTopUp;
    if (before !== undefined && Math.round(credits.totalTopUp * 100) > Math.round(before * 100)) {
      events.push({ kind: 'top_up_credited', amount: Math.round((credits.totalTopUp - before) * 100) / 100, remaining: credits.remaining, totalTopUp: credits.totalTopUp });
    }
    return events;
  }
}
