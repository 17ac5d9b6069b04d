/**
 * What a metrics endpoint says about the keydeck process itself, beside the accounts'
 * registries (./account.ts): `keydeck_build_info{version, node_version} 1` (the build's
 * version, as Prometheus' own `prometheus_build_info`), and for the exporter prom-client's
 * default process metrics (`process_resident_memory_bytes`, `process_cpu_seconds_total`,
 * `nodejs_eventloop_lag_seconds`…; not the three gauges it names like counters). These carry no `profile` or `origin`: they describe the
 * process, not an account.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** prom-client's default gauges whose names end in `_total`, left out. */
const NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** Options of {@link processRegistry}. */
export interface ProcessMetricsOptions {
  /** keydeck's version (package.json). */
  readonly version: string;
  /** Also prom-client's default process and Node.js metrics. Default false. */
  readonly defaults?: boolean;
}

/** A registry with the build info (and, with `defaults`, the process metrics). */
export function processRegistry(options: ProcessMetricsOptions): Registry {
  const registry = new Registry();
  const info = new Gauge({
    name: 'keydeck_build_info',
    help: 'The keydeck build serving these metrics (always 1)',
    labelNames: ['version', 'node_version'],
    registers: [registry],
  });
  info.set({ version: options.version, node_version: process.version }, 1);
  if (options.defaults) {
    collectDefaultMetrics({ register: registry });
    // Gauges named like counters (`promtool check metrics`: non-counter metrics should not end in _total).
    for (const name of NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  }
  return registry;
}
