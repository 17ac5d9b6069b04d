/**
 * The guardrails as metrics (docs/guardrails.md), on an account's registry (./account.ts:
 * labelled `profile` and `origin`), exported by `keydeck exporter --enforce`: each governed key's
 * budget, and what the guardrails did. At most {@link MAX_BUDGET_KEYS} keys are exported (those
 * nearest their limit), so a `*` rule over thousands of keys keeps the series bounded.
 *
 * | metric | labels | what |
 * |---|---|---|
 * | `keydeck_key_budget_used_ratio` | `key_id`, `key_name`, `period` (`day`, `week`, `month`) | spent in the period over the limit (1: at the limit; the soft cap may pass it) |
 * | `keydeck_key_budget_limit_usd` | `key_id`, `key_name`, `period` | the budget's limit, USD |
 * | `keydeck_key_budget_reset_timestamp_seconds` | `key_id`, `key_name`, `period` | when the period ends (a key the budget disabled comes back then) |
 * | `keydeck_key_budget_overshoot_usd` | `key_id`, `key_name`, `period` | the soft cap's worst case: what the key can spend at its rate before the next usage read, USD |
 * | `keydeck_key_guardrail_disabled` | `key_id`, `key_name` | 1 for each key a guardrail has disabled now |
 * | `keydeck_key_guardrail_action_total` | `action` (`threshold`, `warning`, `limit`, `flagged`, `disabled`, `enabled`, `overridden`, `rotated`, `rotate_failed`, `no_destination`) | what the guardrails said or did, since the exporter started |
 */
import { Counter, Gauge } from 'prom-client';
import type { BudgetView } from '../billing/guardrails.js';
import { visible } from '../terminal/sanitize.js';
import type { AccountMetrics } from './account.js';

/** Most keys exported with their budget. */
export const MAX_BUDGET_KEYS = 50;

/** The values of `action` in `keydeck_key_guardrail_action_total`. */
export const GUARDRAIL_ACTIONS = ['threshold', 'warning', 'limit', 'flagged', 'disabled', 'enabled', 'overridden', 'rotated', 'rotate_failed', 'no_destination'] as const;

/** A governed key as the gauges show it. */
export interface BudgetGauge {
  readonly id: string;
  readonly name: string;
  readonly budget: BudgetView;
}

const label = (name: string): string => visible(name, { maxLength: 128 });

/** The guardrail metrics of one account (see the module comment). */
export class GuardrailMetrics {
  readonly #account: AccountMetrics;
  readonly #labels: { profile: string; origin: string };
  readonly #ratio: Gauge;
  readonly #limit: Gauge;
  readonly #reset: Gauge;
  readonly #overshoot: Gauge;
  readonly #disabled: Gauge;
  readonly #actions: Counter<'action' | 'profile' | 'origin'>;

  constructor(account: AccountMetrics) {
    this.#account = account;
    this.#labels = { profile: account.profile, origin: account.origin };
    const registers = [account.registry];
    const keyed = ['key_id', 'key_name', 'period', 'profile', 'origin'];
    this.#ratio = new Gauge({ name: 'keydeck_key_budget_used_ratio', help: 'Spend of each governed key in its budget period over its limit (1: at the limit)', labelNames: keyed, registers });
    this.#limit = new Gauge({ name: 'keydeck_key_budget_limit_usd', help: 'The limit of each governed key’s budget (USD per period)', labelNames: keyed, registers });
    this.#reset = new Gauge({ name: 'keydeck_key_budget_reset_timestamp_seconds', help: 'When each governed key’s budget period ends (UTC)', labelNames: keyed, registers });
    this.#overshoot = new Gauge({
      name: 'keydeck_key_budget_overshoot_usd',
      help: 'What each governed key can spend at its rate before the next usage read (USD): the soft cap’s worst case',
      labelNames: keyed,
      registers,
    });
    this.#disabled = new Gauge({ name: 'keydeck_key_guardrail_disabled', help: 'Keys a guardrail has disabled now (1 each)', labelNames: ['key_id', 'key_name', 'profile', 'origin'], registers });
    this.#actions = new Counter({ name: 'keydeck_key_guardrail_action_total', help: 'What the guardrails said or did, by action', labelNames: ['action', 'profile', 'origin'], registers });
    for (const action of GUARDRAIL_ACTIONS) this.#actions.inc({ ...this.#labels, action }, 0);
  }

  /** The governed keys' budgets now (the {@link MAX_BUDGET_KEYS} nearest their limit) and the keys disabled by a guardrail. */
  budgets(keys: readonly BudgetGauge[], disabled: ReadonlyArray<{ readonly id: string; readonly name: string }>): void {
    for (const g of [this.#ratio, this.#limit, this.#reset, this.#overshoot, this.#disabled]) g.reset();
    const shown = [...keys].sort((a, b) => (b.budget.ratio ?? -1) - (a.budget.ratio ?? -1)).slice(0, MAX_BUDGET_KEYS);
    for (const k of shown) {
      const l = { ...this.#labels, key_id: k.id, key_name: label(k.name), period: k.budget.rule.period };
      if (k.budget.ratio !== undefined) this.#ratio.set(l, k.budget.ratio);
      this.#limit.set(l, k.budget.rule.limitUsd);
      this.#reset.set(l, k.budget.end / 1000);
      if (k.budget.overshootUsd !== undefined) this.#overshoot.set(l, k.budget.overshootUsd);
    }
    for (const k of disabled.slice(0, MAX_BUDGET_KEYS)) this.#disabled.set({ ...this.#labels, key_id: k.id, key_name: label(k.name) }, 1);
    this.#account.changed();
  }

  /** A guardrail said or did `action` (one of {@link GUARDRAIL_ACTIONS}; another is not counted). */
  acted(action: string): void {
    if (!(GUARDRAIL_ACTIONS as readonly string[]).includes(action)) return;
    this.#actions.inc({ ...this.#labels, action });
    this.#account.changed();
  }
}
