/**
 * The API client of the service interface (the service's endpoints), one resource per
 * namespace as the Stripe and OpenAI Node SDKs do: `client.keys` (consumption keys),
 * `client.managementKeys`, `client.billing` (balance, status, top-ups), `client.usage` (spend per
 * key, a consumption key's own view) and `client.plans`. Each resource lives in
 * ./resources/ and sends through one request core (./core.ts: deadline, retries, bounds, the
 * tolerant reader, failure wording); every response is parsed by a zod schema of the service's resources, every failure
 * is one {@link KeydeckApiError}. New endpoints get a resource of their own here.
 *
 * What lives in src/api: HTTP and the wire format, nothing about terminals. It imports nothing
 * of keydeck outside src/api; everything above it (commands, tui, billing, credentials) may
 * import it.
 */
import { ApiCore, type ClientNotice, type CredentialDescription } from './core.js';
import { KeydeckApiError } from './errors.js';
import { BillingResource, SEED_METHOD_NAMES } from './resources/billing.js';
import { KeysResource } from './resources/keys.js';
import { ManagementKeysResource } from './resources/managementKeys.js';
import { PoolsResource } from './resources/pools.js';
import { PlansResource, UsageResource } from './resources/usage.js';
import { TopUpMethodNameSchema, type TopUpMethod } from './schemas.js';
import type { TransportName } from './http.js';

export { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, DEFAULT_USER_AGENT, type CallOptions, type ClientNotice, type CredentialDescription } from './core.js';
export { SEED_METHOD_NAMES, topUpKindOf, type TopUpResult } from './resources/billing.js';
export type { KeysResource } from './resources/keys.js';
export type { ManagementKeysResource } from './resources/managementKeys.js';
export type { BillingResource } from './resources/billing.js';
export type { PlansResource, UsageResource } from './resources/usage.js';
export type { PoolsResource } from './resources/pools.js';

/** Options of {@link KeydeckClient}. */
export interface KeydeckClientOptions {
  /** The service's base address (`https://…` or `http://…`), with or without a trailing slash. */
  baseUrl: string;
  /** A session token or a management key `mk_…`, sent as `Authorization: Bearer`. */
  token: string;
  /** Deadline of each call, retries and waits included, in ms. Default 10,000. */
  timeoutMs?: number;
  /** How many times a GET may be retried (0–10). Default 2. POST/PUT/DELETE are never retried. */
  retries?: number;
  /** `User-Agent` header. Default `keydeck`. */
  userAgent?: string;
  /**
   * Send the token over plain `http://` to a host outside loopback. Default false: the
   * constructor throws `invalid_request` (field `baseUrl`) naming the opt-in (baseUrl.ts).
   */
  allowInsecureHttp?: boolean;
  /**
   * Names the credential in failures: `label` (where it came from, never the secret:
   * `KEYDECK_TOKEN (management key mk_12345678)`) goes into every 401/403 sentence, and
   * `whenRejected` replaces the generic next step of a 401 (`unset KEYDECK_TOKEN to use …`).
   */
  credential?: CredentialDescription;
  /**
   * The wire names of the top-up method kinds (a profile setting), over the defaults of the
   * service's origin ({@link defaultMethodNames}): the real service's documented names
   * (`stripe`, `stripe_direct`) for its origin, the seed's names elsewhere.
   */
  methodNames?: Partial<Record<TopUpMethod, string>>;
  /**
   * Told (once per client and kind) what the reader did that a user should know: key values
   * the service sent in an answer that does not create them, dropped unseen.
   */
  onNotice?: (notice: ClientNotice) => void;
  /**
   * What sends the requests: `got` (the default: the monitor and the exporter) or `node:http`
   * (Node's own client, ~30 ms less to load and a fraction of got's garbage per request: the
   * scriptable commands, src/commands/output.ts, and the TUI, src/tui/session.tsx). The same
   * guarantees either way (src/api/nodeHttp.ts).
   */
  transport?: TransportName;
  /**
   * Set for a read-only profile (src/config/profileMarks.ts): every POST, PUT and DELETE is refused
   * before anything is sent, a `read_only` KeydeckApiError whose sentence gives this clause as the
   * reason (`the profile "prod" is read-only (readOnly in …)`). Reads are sent as usual.
   */
  readOnly?: string;
}

/**
 * Client of the account API. One instance per credential; it keeps one keep-alive
 * connection pool, so a monitor that polls for hours reuses one socket. Every method of every
 * resource takes an optional last argument `CallOptions` (`{ signal }`) and rejects with a
 * {@link KeydeckApiError} (or an `AbortError` when cancelled).
 *
 * @example
 * const client = new KeydeckClient({ baseUrl: 'https://api.example.com', token: process.env.KEYDECK_TOKEN! });
 * const { remaining } = await client.billing.credits();
 * const keys = await client.keys.list();
 */
export class KeydeckClient {
  /** The base address in use, normalized (no trailing slash). */
  readonly baseUrl: string;
  /** The service's endpoints for consumption keys: `list`, `createCredit`, `update`, `delete`. */
  readonly keys: KeysResource;
  /** The service's endpoints for management keys: `list`, `create`, `delete`. */
  readonly managementKeys: ManagementKeysResource;
  /** The service's endpoints for billing: `credits`, `status`, `topUp`, `verifyTopUp`. */
  readonly billing: BillingResource;
  /** Usage: `list` (`GET /api/usage`), `get(keyId)`, `keyInfo` (`GET /v1/usage` with an `sk_`). */
  readonly usage: UsageResource;
  /** Plans: `list` (`GET /api/plans`, public). */
  readonly plans: PlansResource;
  /** Pools: `list` (`GET /api/pools`), `get(idOrSlug)`; read-only. */
  readonly pools: PoolsResource;
  readonly #core: ApiCore;

  /**
   * @throws KeydeckApiError `invalid_request` (with `field`: `baseUrl`, `token`, `timeoutMs`,
   *   `retries`, `userAgent`, `transport` or `methodNames`) when an option is unusable; the message never holds the token.
   */
  constructor(options: KeydeckClientOptions) {
    this.#core = new ApiCore(options);
    this.baseUrl = this.#core.baseUrl;
    this.keys = new KeysResource(this.#core);
    this.managementKeys = new ManagementKeysResource(this.#core);
    this.billing = new BillingResource(this.#core, checkedMethodNames(this.baseUrl, options.methodNames));
    this.usage = new UsageResource(this.#core);
    this.plans = new PlansResource(this.#core);
    this.pools = new PoolsResource(this.#core);
  }

  /**
   * The service's clock minus this machine's, in ms, from the HTTP `Date` header of the last
   * answer that had one (RFC 9110 the service interface; one-second resolution); undefined before any answer.
   * Times the service decides (a subscription's `expiresAt`) are reckoned with
   * `Date.now() + serviceClockOffsetMs`. Bounded to ±10 years (a nonsense header is ignored).
   */
  get serviceClockOffsetMs(): number | undefined {
    return this.#core.serviceClockOffsetMs;
  }

  /** The service's time now (epoch ms): this machine's clock corrected by {@link serviceClockOffsetMs}. */
  serviceNow(): number {
    return Date.now() + (this.#core.serviceClockOffsetMs ?? 0);
  }

  /** Closes the idle keep-alive sockets now (optional: idle sockets never keep the process alive). */
  close(): void {
    this.#core.close();
  }
}

/** The real service's origin (the documentation's `curl` examples). */
export const REAL_SERVICE_ORIGIN = 'https://api.cheapestinference.com';

/**
 * The top-up method names sent by default to `baseUrl`'s service: for the real service's origin
 * ({@link REAL_SERVICE_ORIGIN}) its documented card names, `stripe` (checkout page) and
 * `stripe_direct` (card on file) (https://cheapestinference-docs.pages.dev/api/credits/); the
 * seed's names for any other service (the sandbox accepts both).
 */
export function defaultMethodNames(baseUrl: string): Readonly<Record<TopUpMethod, string>> {
  let origin: string | undefined;
  try {
    origin = new URL(baseUrl).origin;
  } catch {
    // not a URL: the seed's method names, as for any other service
    origin = undefined;
  }
  return origin === REAL_SERVICE_ORIGIN ? { card_checkout: 'stripe', card_direct: 'stripe_direct', usdc: 'usdc' } : SEED_METHOD_NAMES;
}

/**
 * The top-up method names to send: the defaults of `baseUrl`'s origin, with the given ones (the
 * profile's `topUpMethods`) over them.
 * @throws KeydeckApiError `invalid_request` (field `methodNames`) for a name that is not 1–64 letters, digits, `_`, `-` or `.`
 */
function checkedMethodNames(baseUrl: string, given: Partial<Record<TopUpMethod, string>> | undefined): Readonly<Record<TopUpMethod, string>> {
  const names = { ...defaultMethodNames(baseUrl) };
  for (const [kind, name] of Object.entries(given ?? {})) {
    if (name === undefined) continue;
    if (!TopUpMethodNameSchema.safeParse(name).success) {
      throw new KeydeckApiError('invalid_request', `The method name for ${kind} must be 1–64 letters, digits, "_", "-" or ".".`, { field: 'methodNames' });
    }
    names[kind as TopUpMethod] = name;
  }
  return names;
}
