/**
 * `keydeck monitor --metrics HOST:PORT` (issue 16): the monitor's figures as
 * OpenMetrics/Prometheus text at `http://HOST:PORT/metrics`, through prom-client, for the
 * metrics system an operator already runs. Loopback (127.0.0.1) unless a host is named.
 *
 * Metrics (every one labelled `profile` and `origin`):
 * - `keydeck_balance_remaining_usd`: §2.3 `remaining`;
 * - `keydeck_balance_total_top_up_usd`: §2.3 `totalTopUp`;
 * - `keydeck_active_credit_keys`, `keydeck_active_subscription_keys`: active §2.1 keys by `keyType`
 *   (the key list is read every {@link KEYS_EVERY_MS});
 * - `keydeck_subscription_expiry_days`: days to the nearest `subscriptionExpiresAt` of an active
 *   subscription key (absent without one);
 * - `keydeck_burn_rate_usd_per_hour{window="15m|1h|24h|7d"}`: spend per hour (§3: top-ups are not
 *   spending), from the balance history (absent until a window has enough readings);
 * - `keydeck_last_successful_poll_timestamp_seconds`: the last balance read that worked;
 * - `keydeck_poll_errors_total{code}`: failed reads by the client's error code.
 */
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Registry } from 'prom-client';
import { KeydeckApiError, isAbortError } from '../api/errors.js';
import type { ConsumptionKey, CreditBalance } from '../api/schemas.js';
import { BalanceHistory, burnRate, DAY_WINDOW_MS, LONG_WINDOW_MS, SHORT_WINDOW_MS, WEEK_WINDOW_MS } from '../billing/history.js';
import type { HistorySeries } from '../billing/historyStore.js';

/** How often the key list is read for the key and expiry metrics, ms. */
export const KEYS_EVERY_MS = 60_000;

/** A `--metrics` address. */
export interface MetricsAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `--metrics`: `PORT`, `:PORT`, `HOST:PORT` or `[IPv6]:PORT`; the host defaults to
 * 127.0.0.1. Undefined when it is none of these (or the port is not 0–65535).
 */
export function parseMetricsAddress(text: string): MetricsAddress | undefined {
  const t = text.trim();
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]*))?:?(\d{1,5})$/.exec(t.includes(':') || /^\d+$/.test(t) ? t : '');
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65_535) return undefined;
  const host = m[1] ?? (m[2] && m[2] !== '' ? m[2] : '127.0.0.1');
  return { host, port };
}

const WINDOWS: readonly [string, number][] = [
  ['15m', SHORT_WINDOW_MS],
  ['1h', LONG_WINDOW_MS],
  ['24h', DAY_WINDOW_MS],
  ['7d', WEEK_WINDOW_MS],
];

/** The exporter: fed by the monitor's reads, scraped over HTTP. */
export class BalanceMetrics {
  readonly registry = new Registry();
  readonly #history = new BalanceHistory();
  readonly #now: () => number;
  readonly #remaining: Gauge;
  readonly #totalTopUp: Gauge;
  readonly #credit: Gauge;
  readonly #subscription: Gauge;
  readonly #expiry: Gauge;
  readonly #lastPoll: Gauge;
  readonly #errors: Counter<'code'>;

  /** `series` seeds the burn rates from the history on disk (the last 7 days). */
  constructor(options: { profile: string; origin: string; series?: HistorySeries; now?: () => number }) {
    this.#now = options.now ?? Date.now;
    this.registry.setDefaultLabels({ profile: options.profile, origin: options.origin });
    const registers = [this.registry];
    this.#remaining = new Gauge({ name: 'keydeck_balance_remaining_usd', help: 'Remaining credit balance (USD, §2.3 remaining)', registers });
    this.#totalTopUp = new Gauge({ name: 'keydeck_balance_total_top_up_usd', help: 'Sum of all top-ups (USD, §2.3 totalTopUp)', registers });
    this.#credit = new Gauge({ name: 'keydeck_active_credit_keys', help: 'Active credit keys', registers });
    this.#subscription = new Gauge({ name: 'keydeck_active_subscription_keys', help: 'Active subscription keys', registers });
    this.#expiry = new Gauge({ name: 'keydeck_subscription_expiry_days', help: 'Days to the nearest expiry of an active subscription key', registers });
    this.#lastPoll = new Gauge({ name: 'keydeck_last_successful_poll_timestamp_seconds', help: 'When the balance was last read successfully (Unix seconds)', registers });
    this.#errors = new Counter({ name: 'keydeck_poll_errors_total', help: 'Failed reads of the service, by error code', labelNames: ['code'], registers });
    const history = this.#history;
    const now = this.#now;
    new Gauge({
      name: 'keydeck_burn_rate_usd_per_hour',
      help: 'Spend per hour over the window (top-ups are not spending)',
      labelNames: ['window'],
      registers,
      collect() {
        this.reset();
        const t = now();
        const recent = history.since(t - WEEK_WINDOW_MS);
        for (const [label, ms] of WINDOWS) {
          const rate = burnRate(recent, ms, t);
          if (rate) this.set({ window: label }, rate.usdPerHour);
        }
      },
    });
    if (options.series) {
      try {
        this.#history.load(options.series.load(this.#now() - WEEK_WINDOW_MS));
      } catch {
        // The monitor reports history problems; the rates then start from the next reads.
      }
    }
  }

  /** A successful balance read at epoch ms `t`. */
  reading(credits: CreditBalance, t = this.#now()): void {
    this.#remaining.set(credits.remaining);
    this.#totalTopUp.set(credits.totalTopUp);
    this.#lastPoll.set(Math.floor(t / 1000));
    this.#history.add(t, credits.remaining, credits.totalTopUp);
  }

  /** A failed read (its {@link KeydeckApiError} code, else `error`); an aborted one is not counted. */
  failure(error: unknown): void {
    if (isAbortError(error)) return;
    this.#errors.inc({ code: error instanceof KeydeckApiError ? error.code : 'error' });
  }

  /** The key list (§2.1): active keys by type, the nearest subscription expiry. */
  keys(list: readonly ConsumptionKey[], t = this.#now()): void {
    const active = list.filter((k) => k.isActive);
    this.#credit.set(active.filter((k) => k.keyType === 'credit').length);
    const subs = active.filter((k) => k.keyType === 'subscription');
    this.#subscription.set(subs.length);
    const expiries = subs.map((k) => (k.subscriptionExpiresAt ? Date.parse(k.subscriptionExpiresAt) : Number.NaN)).filter((e) => Number.isFinite(e));
    if (expiries.length > 0) this.#expiry.set(Math.round(((Math.min(...expiries) - t) / 86_400_000) * 100) / 100);
    else this.#expiry.reset();
  }

  /** The exposition text (what `GET /metrics` answers). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Serves `GET /metrics` (anything else 404) on `address`.
   * @throws Error (EADDRINUSE, EACCES) when it cannot listen
   */
  async serve(address: MetricsAddress): Promise<{ url: string; close: () => Promise<void> }> {
    const server: Server = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
        return;
      }
      this.scrape().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host, () => resolve());
    });
    const bound = server.address();
    const port = typeof bound === 'object' && bound ? bound.port : address.port;
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    return {
      url: `http://${host}:${port}/metrics`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }
}
