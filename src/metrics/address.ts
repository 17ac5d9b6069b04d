/** Where metrics are served: `--metrics` (monitor) and `--listen` (exporter) addresses. */

/** A listening address. */
export interface MetricsAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `PORT`, `:PORT`, `HOST:PORT` or `[IPv6]:PORT`; the host defaults to 127.0.0.1.
 * Undefined when it is none of these (or the port is not 0–65535).
 */
export function parseMetricsAddress(text: string): MetricsAddress | undefined {
  const t = text.trim();
  if (/^\d{1,5}$/.test(t)) return Number(t) <= 65_535 ? { host: '127.0.0.1', port: Number(t) } : undefined;
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]*)):(\d{1,5})$/.exec(t);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65_535) return undefined;
  const host = m[1] ?? (m[2] && m[2] !== '' ? m[2] : '127.0.0.1');
  return { host, port };
}

/** `HOST:PORT`, with an IPv6 host in brackets. */
export function formatAddress(address: MetricsAddress): string {
  return `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}
