/**
 * The service's base URL, one set of rules for the client, the config file, the guided setup
 * and the journal: an absolute http(s) URL without credentials, query or fragment, kept with its
 * path prefix (`/v2`) and without trailing slashes. Pure.
 */

/**
 * Why `value` cannot be a base URL, as the end of a sentence starting "The base URL …" ("is not
 * a valid URL", "must start with http:// or https://", …), or undefined when it can.
 */
export function baseUrlProblem(value: string): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'is empty';
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return 'is not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.search !== '' || url.hash !== '') return 'must not contain a query or fragment';
  return undefined;
}

/**
 * `value` as keydeck stores and calls it: origin plus path, trailing slashes dropped. Call it on
 * a value {@link baseUrlProblem} accepts.
 * @throws TypeError when `value` is not a URL at all
 */
export function normalizeBaseUrl(value: string): string {
  const url = new URL(value.trim());
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The `host` (`name:port`) of a base URL, for display and for matching; the text itself when it is not a URL. */
export function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/** Host names of this machine (URL `hostname` form: IPv6 in brackets). */
const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** True when `host` (a URL's `host` or `hostname`, port allowed) is this machine. */
export function isLoopbackHost(host: string): boolean {
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? host);
  return LOOPBACK_HOSTNAMES.has(hostname);
}
