/**
 * The guardrails of a profile as `keydeck apply` stores them in the config file (a profile's
 * `guardrails` field): the per-key rules of the policy file last applied (docs/guardrails.md), so
 * that every face that enforces or shows them (`apply --once`, `exporter --enforce`, the TUI's
 * Keys pane, `keys list`) reads the same rules without the file. Never a secret, never a
 * destination (where a key goes is the delivery record's: src/delivery/deliveryRecord.ts).
 *
 * A rule names its key by `name` (exact), by `match` (a pattern: `*` any run of characters, `?`
 * one; `*` alone is every key). Which rule governs a key is src/billing/guardrails.ts `ruleOf`.
 * Units: USD, seconds.
 */
import { z } from '../api/zod.js';

/** The periods a budget counts over, on UTC boundaries (a week starts on Monday). */
export const BUDGET_PERIODS = ['day', 'week', 'month'] as const;
/** One of {@link BUDGET_PERIODS}. */
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** What a budget does when its limit is reached. */
export const BUDGET_ACTIONS = ['warn', 'disable', 'rotate'] as const;
/** One of {@link BUDGET_ACTIONS}. */
export type BudgetAction = (typeof BUDGET_ACTIONS)[number];

/** The alert thresholds of a budget when none are given: 80 % and 95 % of its limit. */
export const DEFAULT_THRESHOLDS: readonly number[] = [0.8, 0.95];
/** How long before `maxAge` or `expiresIn` passes a key is warned of it, when not given (7 days), seconds. */
export const DEFAULT_WARN_BEFORE_SECONDS = 7 * 86_400;
/** Largest limit a budget may set, USD. */
export const MAX_BUDGET_USD = 1_000_000;
/** Longest `maxAge`, `expiresIn` or `warnBefore`, seconds (ten years). */
export const MAX_RULE_SECONDS = 10 * 366 * 86_400;
/** Most rules a profile keeps. */
export const MAX_RULES = 1000;

const Seconds = z.number().int().positive().max(MAX_RULE_SECONDS);

/** A budget: at most `limitUsd` per `period`. */
export const BudgetRuleSchema = z.strictObject({
  limitUsd: z.number().positive().max(MAX_BUDGET_USD),
  period: z.enum(BUDGET_PERIODS),
  /** Fractions of the limit (0 < t < 1), each said once per period; default {@link DEFAULT_THRESHOLDS}. */
  thresholds: z.array(z.number().gt(0).lt(1)).max(10).optional(),
  action: z.enum(BUDGET_ACTIONS),
  /** `disable`: false keeps the key disabled when the period ends (default true: re-enabled then). */
  reenable: z.boolean().optional(),
});
/** See {@link BudgetRuleSchema}. */
export type BudgetRule = z.infer<typeof BudgetRuleSchema>;

/** The rule of one key, or of every key whose name matches. */
export const KeyRuleSchema = z
  .strictObject({
    /** The key's name, exactly (a key the policy file declares: keydeck manages it). */
    name: z.string().min(1).max(128).optional(),
    /** Or a pattern of names (`ci-*`; `*`: every key). */
    match: z.string().min(1).max(128).optional(),
    budget: BudgetRuleSchema.optional(),
    /** A key older than this is rotated (`onMaxAge: rotate`, the default) or flagged. */
    maxAgeSeconds: Seconds.optional(),
    onMaxAge: z.enum(['rotate', 'flag']).optional(),
    /** A credit key is disabled this long after it was created. */
    expiresInSeconds: Seconds.optional(),
    /** Warned this long before `maxAge` or `expiresIn` passes (default {@link DEFAULT_WARN_BEFORE_SECONDS}). */
    warnBeforeSeconds: Seconds.optional(),
  })
  .refine((r) => (r.name === undefined) !== (r.match === undefined), 'a rule has either a name or a match, not both');
/** See {@link KeyRuleSchema}. */
export type KeyRule = z.infer<typeof KeyRuleSchema>;

/** A profile's guardrails (its `guardrails` field in the config file). */
export const GuardrailsSchema = z.strictObject({
  /** The policy file they came from (absolute), for the words of the faces. */
  file: z.string().max(4096).optional(),
  /** ISO 8601: when `keydeck apply` stored them. */
  appliedAt: z.string(),
  /** The rules, in the policy file's order: named keys first, then the patterns. */
  rules: z.array(KeyRuleSchema).max(MAX_RULES),
});
/** See {@link GuardrailsSchema}. */
export type Guardrails = z.infer<typeof GuardrailsSchema>;

/** The rules of `a` and `b` are the same (where they came from and when aside). */
export function sameRules(a: Guardrails | undefined, b: Guardrails | undefined): boolean {
  // Through the schema: the same fields in the same order, whoever wrote them.
  const rules = (g: Guardrails | undefined) => JSON.stringify(GuardrailsSchema.shape.rules.parse(g?.rules ?? []));
  return rules(a) === rules(b);
}
