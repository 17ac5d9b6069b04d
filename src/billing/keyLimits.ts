/**
 * The published limits of a consumption key, each figure with where it comes from: domain
 * knowledge shared by both faces (the Keys pane's details, `keydeck keys show`, `keys list
 * --json`), so the TUI and the commands say the same figures.
 *
 * Where each figure comes from, the service's word first:
 *
 * | key | figure | sources, first that has it |
 * |---|---|---|
 * | credit (`keyType: credit`) | 60 requests a minute, no token limit, bounded by the shared balance | the keys page (both generations: "60 RPM rate limit"); the service's limits says the same |
 * | pool (`keyPlan: pool`) | unlimited inside its reserved blocks, 429 outside, 1 concurrent request | the newer keys page and the Per-Key Plans page (the service's limits says 2 concurrent for pool subscriptions) |
 * | legacy `standard` | requests and tokens a minute | the service's `GET /api/plans` when it lists the plan; else the older Management API page (200 a minute, a budget of $0.22 per 8 hours) for the requests; the service's limits (3,333 tokens a minute) for the tokens |
 * | legacy `pro` | the same | `GET /api/plans`; else the Management API page (400 a minute, $0.67 per 8 hours); the service's limits (13,333 tokens a minute) |
 * | legacy plans | 2 concurrent requests | the service's limits ("pool subscriptions allow 2 concurrent requests per key": the seed's subscription keys are its time-block keys) |
 *
 * Pages: https://docs.cheapestinference.com/api/keys, https://cheapestinference-docs.pages.dev/api/keys/,
 * https://cheapestinference-docs.pages.dev/guides/per-key-plans/, the older
 * https://docs.cheapestinference.com/guides/management-api/ (its plan table: Plan, Billing, Price,
 * RPM, Budget per 8h), and `GET /api/plans` (the older usage page's example has the service's limits's figures; the
 * newer billing page says it now answers an empty list). Pro's `keyPlan` value is not shown in the
 * spec: `pro` is assumed.
 */
import { groupThousands, formatUsd } from '../api/money.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { KeydeckClient } from '../api/client.js';
import type { Plan } from '../api/usageSchemas.js';

/**
 * Where a figure comes from: the service's own `GET /api/plans` answer (`plans`), the service's
 * documentation pages (`pages`), or the spec's the service's limits table (`spec`).
 */
export type LimitsSource = 'plans' | 'pages' | 'spec';

/** The figures a key's limits may carry. */
export type LimitFigure = 'requestsPerMinute' | 'tokensPerMinute' | 'concurrentRequests' | 'budgetPer8HoursUsd' | 'onlyInBlocks' | 'boundedByBalance';

/** The limits of one key. A figure left out is not capped (or not published). */
export interface KeyLimits {
  /** Requests per minute; undefined when not capped (a pool key inside its blocks). */
  readonly requestsPerMinute?: number;
  /** Tokens per minute; undefined when not limited by tokens (credit and pool keys). */
  readonly tokensPerMinute?: number;
  /** Concurrent requests per key; undefined when not published. */
  readonly concurrentRequests?: number;
  /** USD a legacy plan's key may spend per 8 hours (the Management API page); undefined otherwise. */
  readonly budgetPer8HoursUsd?: number;
  /** Credit keys: bounded by the shared USD balance. */
  readonly boundedByBalance: boolean;
  /** A pool key: no rate or budget cap inside its reserved blocks, 429 outside them. */
  readonly onlyInBlocks?: boolean;
  /** Where the headline figures come from: `plans` when any figure is the service's answer, else `pages` when any is the pages', else `spec`. */
  readonly source: LimitsSource;
  /** Where each figure comes from. */
  readonly sources: Readonly<Partial<Record<LimitFigure, LimitsSource>>>;
}

/** The plan of `plans` (`GET /api/plans`) whose slug is the key's `keyPlan` (subscription keys only). */
export function planOf(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans: readonly Plan[] | undefined): Plan | undefined {
  return key.keyType === 'subscription' ? plans?.find((p) => p.slug === key.keyPlan) : undefined;
}

/** The service's limits's figures of the legacy plans (Pro's `keyPlan` assumed `pro`). */
const SPEC_PLANS: Readonly<Record<string, { rpm: number; tpm: number }>> = { standard: { rpm: 60, tpm: 3333 }, pro: { rpm: 200, tpm: 13333 } };
/** The older Management API page's plan table: requests a minute and USD per 8 hours. */
const PAGES_PLANS: Readonly<Record<string, { rpm: number; budgetPer8HoursUsd: number }>> = {
  standard: { rpm: 200, budgetPer8HoursUsd: 0.22 },
  pro: { rpm: 400, budgetPer8HoursUsd: 0.67 },
};

/** Builds a {@link KeyLimits} from figures with their sources (the headline source derived). */
function withSources(
  figures: Partial<Record<Exclude<LimitFigure, 'boundedByBalance' | 'onlyInBlocks'>, [number, LimitsSource]>> & {
    readonly onlyInBlocks?: LimitsSource;
    readonly boundedByBalance?: LimitsSource;
  },
): KeyLimits {
  const sources: Partial<Record<LimitFigure, LimitsSource>> = {};
  const out: { -readonly [K in keyof KeyLimits]?: KeyLimits[K] } = { boundedByBalance: figures.boundedByBalance !== undefined };
  for (const name of ['requestsPerMinute', 'tokensPerMinute', 'concurrentRequests', 'budgetPer8HoursUsd'] as const) {
    const figure = figures[name];
    if (figure === undefined) continue;
    out[name] = figure[0];
    sources[name] = figure[1];
  }
  if (figures.onlyInBlocks !== undefined) {
    out.onlyInBlocks = true;
    sources.onlyInBlocks = figures.onlyInBlocks;
  }
  if (figures.boundedByBalance !== undefined) sources.boundedByBalance = figures.boundedByBalance;
  const all = Object.values(sources);
  const source: LimitsSource = all.includes('plans') ? 'plans' : all.includes('pages') ? 'pages' : 'spec';
  return { ...(out as KeyLimits), source, sources };
}

/**
 * The limits of `key`, each figure from the first source that has it (see the module comment);
 * `plans` is the service's `GET /api/plans` answer when it was read. Undefined when nothing is
 * published for its plan (an unknown `keyPlan`, not in `plans`).
 */
export function limitsOf(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans?: readonly Plan[]): KeyLimits | undefined {
  if (key.keyType === 'credit') return withSources({ requestsPerMinute: [60, 'pages'], boundedByBalance: 'pages' });
  if (key.keyType !== 'subscription') return undefined;
  if (key.keyPlan === 'pool') return withSources({ concurrentRequests: [1, 'pages'], onlyInBlocks: 'pages' });
  const plan = planOf(key, plans);
  const spec = SPEC_PLANS[key.keyPlan];
  const pages = PAGES_PLANS[key.keyPlan];
  const rpm: [number, LimitsSource] | undefined = plan?.requestsPerMinute !== undefined ? [plan.requestsPerMinute, 'plans'] : pages ? [pages.rpm, 'pages'] : spec ? [spec.rpm, 'spec'] : undefined;
  const tpm: [number, LimitsSource] | undefined = plan?.tokensPerMinute !== undefined ? [plan.tokensPerMinute, 'plans'] : spec ? [spec.tpm, 'spec'] : undefined;
  if (rpm === undefined && tpm === undefined) return undefined;
  return withSources({
    ...(rpm && { requestsPerMinute: rpm }),
    ...(tpm && { tokensPerMinute: tpm }),
    // The page's budget belongs with its rates: said only when the rates are the page's too.
    ...(pages && rpm?.[1] === 'pages' && { budgetPer8HoursUsd: [pages.budgetPer8HoursUsd, 'pages'] as [number, LimitsSource] }),
    ...(spec && { concurrentRequests: [2, 'spec'] as [number, LimitsSource] }),
  });
}

/** How a source is said beside its figures. */
// Words a user reads: where the figures come from, never the spec's section numbers.
export const SOURCE_TEXT: Readonly<Record<LimitsSource, string>> = { plans: 'the service’s plans', pages: 'the service’s docs', spec: 'the service’s published limits' };

/** A figure in words, short enough for an 80-column details panel. */
function figureWords(l: KeyLimits, figure: LimitFigure): string | undefined {
  switch (figure) {
    case 'requestsPerMinute':
      return l.requestsPerMinute === undefined ? undefined : `${groupThousands(l.requestsPerMinute)} req/min`;
    case 'tokensPerMinute':
      return l.tokensPerMinute === undefined ? undefined : `${groupThousands(l.tokensPerMinute)} tok/min`;
    case 'concurrentRequests':
      return l.concurrentRequests === undefined ? undefined : `${l.concurrentRequests} concurrent`;
    case 'budgetPer8HoursUsd':
      return l.budgetPer8HoursUsd === undefined ? undefined : `${formatUsd(l.budgetPer8HoursUsd)}/8h`;
    case 'onlyInBlocks':
      return l.onlyInBlocks ? 'in its blocks only, unlimited' : undefined;
    case 'boundedByBalance':
      return l.boundedByBalance ? 'no token limit, bounded by the balance' : undefined;
  }
}

/** The order figures are said in. */
const ORDER: readonly LimitFigure[] = ['onlyInBlocks', 'requestsPerMinute', 'budgetPer8HoursUsd', 'tokensPerMinute', 'concurrentRequests', 'boundedByBalance'];

/**
 * One line describing {@link limitsOf}, the figures grouped by where they come from, in a user's
 * words: "200 req/min, $0.22/8h (the service’s docs); 3,333 tok/min, 2 concurrent (the service’s
 * published limits)", "in its blocks only, unlimited, 1 concurrent (the service’s docs)";
 * `limits for plan "x" are not published` when none is. Where it does not fit (an 80-column
 * details panel), {@link withoutSources} is the same figures without their sources.
 */
export function describeLimits(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans?: readonly Plan[]): string {
  const l = limitsOf(key, plans);
  if (!l) return `limits for plan "${key.keyPlan}" are not published`;
  const groups = new Map<LimitsSource, string[]>();
  for (const figure of ORDER) {
    const words = figureWords(l, figure);
    const source = l.sources[figure];
    if (words === undefined || source === undefined) continue;
    groups.set(source, [...(groups.get(source) ?? []), words]);
  }
  return [...groups].map(([source, words]) => `${words.join(', ')} (${SOURCE_TEXT[source]})`).join('; ');
}

/**
 * The limits as `keys list --json` and `keys show --json` give them: every figure (null when not
 * capped or not published), whether the key works only in its blocks, the headline `source` and
 * each figure's; null when nothing is published for the key's plan.
 */
export function limitsJson(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>, plans?: readonly Plan[]): Record<string, unknown> | null {
  const l = limitsOf(key, plans);
  if (!l) return null;
  return {
    requestsPerMinute: l.requestsPerMinute ?? null,
    tokensPerMinute: l.tokensPerMinute ?? null,
    concurrentRequests: l.concurrentRequests ?? null,
    onlyInBlocks: l.onlyInBlocks === true,
    boundedByBalance: l.boundedByBalance,
    ...(l.budgetPer8HoursUsd !== undefined && { budgetPer8HoursUsd: l.budgetPer8HoursUsd }),
    source: l.source,
    sources: l.sources,
  };
}

/** True when `limitsOf(key)` would read `GET /api/plans` (a legacy subscription plan): callers read the plans only then. */
export function needsPlans(key: Pick<ConsumptionKey, 'keyType' | 'keyPlan'>): boolean {
  return key.keyType === 'subscription' && key.keyPlan !== 'pool';
}

/** A {@link describeLimits} line without its sources in brackets (at most 68 characters: an 80-column details panel). */
export function withoutSources(line: string): string {
  return line.replace(/ \([^()]*\)/g, '');
}

/**
 * The service's plans (`GET /api/plans`) when one of `keys` needs them for its limits (a legacy
 * plan's key); undefined when none does or the plans cannot be read (the limits then come from
 * the pages and the service's limits, and say so).
 */
export async function plansFor(client: Pick<KeydeckClient, 'plans'>, keys: readonly ConsumptionKey[]): Promise<Plan[] | undefined> {
  if (!keys.some(needsPlans)) return undefined;
  try {
    return await client.plans.list();
  } catch {
    // plans unreadable: the limits come from the pages, and say so
    return undefined;
  }
}

/** The keys of a list with their published limits (`keys list --json`): each entry as sent, plus `limits`. */
export function withLimits(keys: readonly ConsumptionKey[], plans: readonly Plan[] | undefined): Array<ConsumptionKey & { limits: Record<string, unknown> | null }> {
  return keys.map((k) => ({ ...k, limits: limitsJson(k, plans) }));
}
