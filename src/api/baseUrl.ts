/**
 * The service's base URL, one set of rules for the client, the config file, the guided setup
 * and the journal: an absolute http(s) URL without credentials, query or fragment, kept with its
 * path prefix (`/v2`) and without trailing slashes; and beside it the rule for the card
 * checkout link the service sends (the card checkout session `sessionUrl`, {@link checkoutUrlProblem}). Pure.
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
    // not a URL: the problem is the answer
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
    // not a URL: shown as it was given
    return baseUrl;
  }
}

/** Host names of this machine (URL `hostname` form: IPv6 in brackets); and 127.0.0.0/8. */
const LOOPBACK_HOSTNAMES = new Set(['localhost', '[::1]']);
const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** True when `host` (a URL's `host` or `hostname`, port allowed) is this machine: 127.0.0.0/8, `::1`, `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const hostname = (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? host)).toLowerCase();
  return LOOPBACK_HOSTNAMES.has(hostname) || LOOPBACK_V4.test(hostname);
}

/** The flag that lets keydeck send a credential over plain http:// to another machine. */
export const INSECURE_HTTP_FLAG = '--allow-insecure-http';
/** The environment variable that does the same as {@link INSECURE_HTTP_FLAG} (`1`, `true` or `yes`). */
export const INSECURE_HTTP_ENV = 'KEYDECK_ALLOW_INSECURE_HTTP';

/** True when `env` opts in to plain http off loopback ({@link INSECURE_HTTP_ENV} is `1`, `true` or `yes`). */
export function insecureHttpFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes)$/i.test((env[INSECURE_HTTP_ENV] ?? '').trim());
}

/**
 * The sentence refusing to send a credential to `baseUrl`, or undefined when it may go there: an
 * `https:` URL, or `http:` to this machine (127.0.0.0/8, `::1`, `localhost`), or `http:` anywhere
 * when `allowInsecureHttp` (the user opted in with {@link INSECURE_HTTP_FLAG} or {@link INSECURE_HTTP_ENV}).
 */
export function insecureHttpProblem(baseUrl: string, allowInsecureHttp = false): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // not a URL: refused where it is parsed (baseUrlProblem), not here
    return undefined;
  }
  if (url.protocol !== 'http:' || allowInsecureHttp || isLoopbackHost(url.host)) return undefined;
  return `keydeck does not send a key over plain http:// to ${url.host}, where anyone on the way can read it: ` + `use https://, or opt in with ${INSECURE_HTTP_FLAG} (or ${INSECURE_HTTP_ENV}=1)`;
}

/** Longest checkout link keydeck shows, copies or opens, in characters. */
export const MAX_CHECKOUT_URL_LENGTH = 2048;

/**
 * Why a card checkout link from the service (the card checkout session `sessionUrl`) must not be shown, copied or
 * opened, as one sentence, or undefined when it may: an absolute `https:` URL, or `http:` on a
 * loopback host (the sandbox), without user name or password, at most
 * {@link MAX_CHECKOUT_URL_LENGTH} characters, with no control or space characters. Pure; the
 * same rule for the TUI and the commands, applied before anything reaches a screen, a clipboard
 * or a browser.
 */
export function checkoutUrlProblem(value: unknown): string | undefined {
  const refuse = (why: string) => `The checkout link from the service was refused (${why}): nothing was shown, copied or opened; pay from the service's own website, or check the base URL.`;
  if (typeof value !== 'string' || value === '') return refuse('it is empty');
  if (value.length > MAX_CHECKOUT_URL_LENGTH) return refuse(`it is longer than ${MAX_CHECKOUT_URL_LENGTH} characters`);
  if (/[\u0000-\u0020\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/.test(value)) return refuse('it contains spaces or control characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // not a URL: refused below in words
    return refuse('it is not a URL');
  }
  if (url.username !== '' || url.password !== '') return refuse('it contains a user name or password');
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHost(url.host) ? undefined : refuse('it is plain http:// to another machine, not https://');
  return refuse(`it is a ${url.protocol} link, not https://`);
}
