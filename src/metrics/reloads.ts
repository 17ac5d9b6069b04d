/**
 * The exporter's own config reloads as metrics, on the process registry
 * (./process.ts: no `profile` or `origin`, they describe the process), named as Prometheus and
 * Alertmanager name theirs (`prometheus_config_last_reload_successful`…):
 *
 * | metric | labels | what |
 * |---|---|---|
 * | `keydeck_exporter_config_last_reload_successful` | | 1 when the last load of the config file (at start or on SIGHUP) was taken up, 0 when it was refused |
 * | `keydeck_exporter_config_last_reload_success_timestamp_seconds` | | when the config file was last taken up (Unix seconds) |
 * | `keydeck_exporter_config_reloads_total` | `result` (`success`, `failure`) | SIGHUP reloads by outcome (the load at start is not counted) |
 * | `keydeck_exporter_config_unknown_fields` | | fields of the config file taken up last that this keydeck does not know, ignored (a newer keydeck's, a typo; `--check-config` names them) |
 * | `keydeck_exporter_config_invalid_profiles` | | profiles of the config file at start whose entry has a value keydeck refuses: watched as `keydeck_up{reason="config_invalid"} 0` |
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** The config reload metrics of one exporter (see the module comment). */
export class ConfigReloadMetrics {
  readonly #successful: Gauge;
  readonly #successAt: Gauge;
  readonly #reloads: Counter<'result'>;
  readonly #unknown: Gauge;
  readonly #invalid: Gauge;

  /** Registers the metrics on `registry` (the process's). */
  constructor(registry: Registry) {
    const registers = [registry];
    this.#successful = new Gauge({ name: 'keydeck_exporter_config_last_reload_successful', help: 'Whether the last load of the config file was taken up (1) or refused (0)', registers });
    this.#successAt = new Gauge({ name: 'keydeck_exporter_config_last_reload_success_timestamp_seconds', help: 'When the config file was last taken up (Unix seconds)', registers });
    this.#reloads = new Counter({ name: 'keydeck_exporter_config_reloads_total', help: 'Reloads of the config file on SIGHUP, by result', labelNames: ['result'], registers });
    this.#unknown = new Gauge({ name: 'keydeck_exporter_config_unknown_fields', help: 'Fields of the config file in use that this keydeck does not know (ignored)', registers });
    this.#invalid = new Gauge({ name: 'keydeck_exporter_config_invalid_profiles', help: 'Profiles of the config file in use whose entry has a value keydeck refuses (not polled)', registers });
    // Both results exported from the start, at 0: a rate() over them is defined before the first reload.
    this.#reloads.inc({ result: 'success' }, 0);
    this.#reloads.inc({ result: 'failure' }, 0);
  }

  /** The config file in use has `unknown` fields this keydeck ignores and `invalid` profiles it does not poll. */
  fields(unknown: number, invalid: number): void {
    this.#unknown.set(unknown);
    this.#invalid.set(invalid);
  }

  /** The config was read at start (epoch ms `t`). */
  loaded(t = Date.now()): void {
    this.#successful.set(1);
    this.#successAt.set(Math.floor(t / 1000));
  }

  /** A SIGHUP reload at epoch ms `t` was taken up (`ok`) or refused. */
  reloaded(ok: boolean, t = Date.now()): void {
    this.#reloads.inc({ result: ok ? 'success' : 'failure' });
    this.#successful.set(ok ? 1 : 0);
    if (ok) this.#successAt.set(Math.floor(t / 1000));
  }
}
