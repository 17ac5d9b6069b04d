/**
 * Where the money goes, as Prometheus metrics: per-key spend gauges, the age of the
 * usage figures, the usage reads left, and the runaway keys, written as collect-time gauges over
 * any prom-client `Registry` (`monitor --metrics` today, the exporter's registry when it has one).
 *
 * | metric | labels | what |
 * |---|---|---|
 * | `keydeck_key_spend_usd` | `key_id`, `key_name`, `period` (`24h`, `7d`, `30d`, `total`) | each key's spend over the period, USD; the {@link TOP_KEYS} biggest spenders over the share period (24 h when given) by id and name, the rest summed as `key_id="other"`, `key_name="other"`: at most 51 keys × 4 periods |
 * | `keydeck_usage_last_read_timestamp_seconds` | — | when the usage figures were read (the service's clock; their age is `time() - …`, which a cached exposition cannot make stale) |
 * | `keydeck_usage_reads_left` | — | usage reads left of the service's 12 per 12 hours |
 * | `keydeck_key_runaway_usd_per_second` | `key_id`, `key_name`, `kind` (`runaway`, `dormant`) | the rate (USD per second, the base unit: × 3600 for USD per hour) of each key in an open runaway episode (at most {@link TOP_KEYS}) |
 *
 * Before the first usage figures the spend and runaway gauges are empty and the two unlabelled
 * ones are NaN (unknown; prom-client always exports an unlabelled gauge). Names are made visible (no control
 * character) and bounded in length. Base units: USD, seconds.
 */
import { Gauge, type Registry } from 'prom-client';
import { USAGE_PERIODS, type UsagePeriod } from '../api/usageSchemas.js';
import type { Episode } from '../billing/keyHistory.js';
import type { SpendRow } from '../billing/spend.js';
import type { BudgetState } from '../billing/usageBudget.js';
import { visible } from '../terminal/sanitize.js';

/** The account labels every metric declares (their values are the registry's default labels). */
const ACCOUNT = ['profile', 'origin'];

/** Keys exported by id and name; the rest are summed as `other`. */
export const TOP_KEYS = 50;

/** What the gauges read at each scrape. */
export interface SpendMetricsSource {
  readonly rows: readonly SpendRow[];
  /** The period the top keys are ranked by (24 h when given). */
  readonly period?: UsagePeriod | undefined;
  /** When the figures were read (service ms). */
  readonly at?: number | undefined;
  readonly budget?: BudgetState | undefined;
  /** The service's time now, ms. */
  readonly now: number;
  readonly episodes: ReadonlyMap<string, Episode>;
}

const label = (name: string): string => visible(name, { maxLength: 128 });

/**
 * Registers the spend gauges on `registry`; `source` is read at each scrape (undefined: nothing
 * is known yet, the gauges are empty).
 */
export function registerSpendMetrics(registry: Registry, source: () => SpendMetricsSource | undefined): void {
  const registers = [registry];
  new Gauge({
    name: 'keydeck_key_spend_usd',
    help: 'Spend of each key over the period (USD); the top 50 spenders by key, the rest as key_id="other"',
    labelNames: ['key_id', 'key_name', 'period', ...ACCOUNT],
    registers,
    collect() {
      this.reset();
      const s = source();
      if (!s || s.rows.length === 0) return;
      const rank = s.period;
      const ranked = [...s.rows].filter((r) => r.refused === undefined).sort((a, b) => (rank ? (b.periods[rank]?.spend ?? 0) - (a.periods[rank]?.spend ?? 0) : 0));
      const top = ranked.slice(0, TOP_KEYS);
      const rest = ranked.slice(TOP_KEYS);
      for (const row of top) {
        for (const p of USAGE_PERIODS) {
          const u = row.periods[p];
          if (u) this.set({ key_id: row.id, key_name: label(row.name), period: p }, u.spend);
        }
      }
      if (rest.length > 0) {
        for (const p of USAGE_PERIODS) {
          let micros = 0;
          let any = false;
          for (const row of rest) {
            const u = row.periods[p];
            if (u) {
              any = true;
              micros += Math.round(u.spend * 1e6);
            }
          }
          if (any) this.set({ key_id: 'other', key_name: 'other', period: p }, micros / 1e6);
        }
      }
    },
  });
  new Gauge({
    name: 'keydeck_usage_last_read_timestamp_seconds',
    help: 'When the usage figures were read (Unix seconds, by the service clock)',
    labelNames: ACCOUNT,
    registers,
    collect() {
      this.reset();
      const s = source();
      if (s?.at !== undefined) this.set({}, Math.floor(s.at / 1000));
    },
  });
  new Gauge({
    name: 'keydeck_usage_reads_left',
    help: 'Usage reads left of the 12 the service allows per 12 hours',
    labelNames: ACCOUNT,
    registers,
    collect() {
      this.reset();
      const s = source();
      if (s?.budget) this.set({}, s.budget.left);
    },
  });
  new Gauge({
    name: 'keydeck_key_runaway_usd_per_second',
    help: 'Spend rate (USD per second) of each key in an open runaway episode (kind: runaway, or dormant then spending)',
    labelNames: ['key_id', 'key_name', 'kind', ...ACCOUNT],
    registers,
    collect() {
      this.reset();
      const s = source();
      if (!s) return;
      const names = new Map(s.rows.map((r) => [r.id, r.name]));
      for (const e of [...s.episodes.values()].slice(0, TOP_KEYS)) this.set({ key_id: e.keyId, key_name: label(names.get(e.keyId) ?? e.keyId), kind: e.kind }, e.usdPerHour / 3600);
    },
  });
}
