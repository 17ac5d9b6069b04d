/**
 * Low-balance alert: a threshold in USD (`--alert-below`, profile `alertBelowUsd`).
 * The balance is "low" while `remaining < threshold`. The alert fires once per downward
 * crossing, not on every poll: after firing it is disarmed until the balance is back at or
 * above the threshold (a top-up), which re-arms it.
 *
 * The first observation counts as a crossing when it is already low (the previous balance is
 * unknown, taken as above): a monitor started on a low account rings once at start.
 */

/** State of the alert between observations. */
export interface LowBalanceState {
  /** True while a downward crossing would fire (the balance was last seen at or above the threshold). */
  readonly armed: boolean;
  /** True while the last observed balance was below the threshold. */
  readonly low: boolean;
}

/** The state before any observation: armed, not low. */
export const INITIAL_LOW_BALANCE_STATE: LowBalanceState = { armed: true, low: false };

/** Result of {@link observeBalance}. */
export interface LowBalanceStep {
  readonly state: LowBalanceState;
  /** True exactly when this observation crossed below the threshold while armed: ring once. */
  readonly fire: boolean;
}

/**
 * True when `remaining` USD is below `threshold` USD, compared in whole cents (float noise cannot
 * flap around the threshold); false with no threshold. The one rule behind the LOW word in the
 * header, the Billing pane and the bell.
 */
export function isBelowThreshold(remaining: number, threshold: number | undefined): boolean {
  return threshold !== undefined && Math.round(remaining * 100) < Math.round(threshold * 100);
}

/**
 * One observation of `remaining` USD against `threshold` USD (undefined: no alert configured,
 * never low, never fires). Compared in whole cents, so float noise cannot flap around the
 * threshold. Pure.
 */
export function observeBalance(state: LowBalanceState, remaining: number, threshold: number | undefined): LowBalanceStep {
  if (threshold === undefined || !Number.isFinite(threshold) || !Number.isFinite(remaining)) {
    return { state: INITIAL_LOW_BALANCE_STATE, fire: false };
  }
  const low = isBelowThreshold(remaining, threshold);
  if (!low) return { state: { armed: true, low: false }, fire: false };
  return { state: { armed: false, low: true }, fire: state.armed };
}

/** A stateful wrapper of {@link observeBalance} for callers that keep no reducer. */
export class LowBalanceAlarm {
  #state: LowBalanceState = INITIAL_LOW_BALANCE_STATE;
  /** Threshold in USD; undefined disables the alarm. May be changed at any time. */
  threshold: number | undefined;

  /** @param threshold USD; undefined disables the alarm. */
  constructor(threshold: number | undefined) {
    this.threshold = threshold;
  }

  /** True while the last observed balance was below the threshold. */
  get low(): boolean {
    return this.#state.low;
  }

  /** Observes `remaining` USD; returns true when the bell should ring (once per crossing). */
  observe(remaining: number): boolean {
    const step = observeBalance(this.#state, remaining, this.threshold);
    this.#state = step.state;
    return step.fire;
  }
}

/** The terminal bell (BEL), written once per crossing. */
export const BELL = '\x07';
