/**
 * The API client of the service interface (seed/service-interface.md §4): one method per
 * endpoint, every response parsed by a zod schema of §2, every failure one {@link KeydeckApiError}.
 *
 * Behaviour shared by every method:
 * - `Authorization: Bearer <token>` (a session token or an `mk_` key, §5) on every request.
 * - Input is validated with the request schemas of ./schemas.ts before anything is sent
 *   (`invalid_request` with `field`, no request made).
 * - Every answer goes through the tolerant reader (./reader.ts, its table names each rule and
 *   its source): bare or in the `{ success, data }` envelope (`success: false` is an error
 *   whatever the status), money as a number or a decimal string read exactly, the documented
 *   stand-ins; key values in any answer but the creating one are dropped and reported once
 *   through `onNotice`. A documented body that is missing or mistypes a field is
 *   `invalid_response` naming the field (`[2].id`, `data.remaining`); unknown extra fields are
 *   kept. Bodies the spec does not show are returned as they arrive (minus key values): parsed
 *   JSON, the raw text when not JSON, `undefined` when empty.
 * - One deadline (`timeoutMs`, default 10 s) bounds the whole call, retries and waits included.
 * - Only GET is retried (`retries`, default 2): on network errors, timeouts, 5xx and 429, with
 *   capped exponential backoff and jitter, honouring `Retry-After` when it fits in the deadline
 *   (otherwise the error is surfaced at once with `retryAfterMs`). POST, PUT and DELETE are sent
 *   once: when their connection fails or times out after sending, or the service answers 5xx,
 *   the error has `outcomeUnknown: true` and says what to check before trying again.
 * - Cancelling through `{ signal }` rejects with a plain `AbortError` (see `isAbortError`), not a
 *   KeydeckApiError. Cancelling a POST/PUT/DELETE after it was sent leaves its outcome unknown.
 * - No error text (message, stack, `JSON.stringify`) ever holds the token or a key value.
 */
import { baseUrlProblem, insecureHttpProblem, normalizeBaseUrl } from './baseUrl.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { createAbortError, KeydeckApiError } from './errors.js';
import {
  errorFromInvalidResponse,
  errorFromNetwork,
  errorFromRedirect,
  errorFromResponse,
  errorFromTimeout,
  isRecord,
  parseBody,
  type FailureContext,
  type OperationInfo,
  type ParsedBody,
} from './failures.js';
import { HttpTransport, MAX_RESPONSE_BYTES } from './http.js';
import { backoffDelayMs, minBackoffDelayMs, parseRetryAfterMs } from './retry.js';
import {
  CardCheckoutSessionSchema,
  ConsumptionKeyListSchema,
  CreateKeyRequestSchema,
  CreatedConsumptionKeySchema,
  CreatedManagementKeySchema,
  CreditBalanceSchema,
  DeletedKeySchema,
  KeyIdSchema,
  ManagementKeyListSchema,
  TopUpMethodNameSchema,
  TopUpMethodSchema,
  TopUpRequestSchema,
  UpdateKeyRequestSchema,
  UsdcPaymentInstructionSchema,
  VerifiedTopUpSchema,
  VerifyTopUpRequestSchema,
  type CardCheckoutSession,
  type ConsumptionKey,
  type CreatedConsumptionKey,
  type CreatedManagementKey,
  type CreditBalance,
  type DeletedKey,
  type ManagementKey,
  type TopUpMethod,
  type UsdcPaymentInstruction,
  type VerifiedTopUp,
} from './schemas.js';
import { microsToUsd, parseUsdMicros, usdToMicros } from './money.js';
import { readAnswer } from './reader.js';
import { parseInput } from './validate.js';

/** Default deadline of a whole call, retries included, in ms. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default number of retries of a GET (so at most 3 attempts). */
export const DEFAULT_RETRIES = 2;
/** Default `User-Agent` header. */
export const DEFAULT_USER_AGENT = 'keydeck';
/** Shortest attempt worth starting, ms: a retry that would get less is not made. */
const MIN_ATTEMPT_MS = 100;

/** Options of {@link KeydeckClient}. */
export interface KeydeckClientOptions {
  /** The service's base address (`https://…` or `http://…`), with or without a trailing slash. */
  baseUrl: string;
  /** A session token or a management key `mk_…` (§5), sent as `Authorization: Bearer`. */
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
   * Names the credential in failures (issue 19): `label` (where it came from, never the secret:
   * `KEYDECK_TOKEN (management key mk_12345678)`) goes into every 401/403 sentence, and
   * `whenRejected` replaces the generic next step of a 401 (`unset KEYDECK_TOKEN to use …`).
   */
  credential?: CredentialDescription;
  /**
   * The wire names of the top-up method kinds (a profile setting): the seed's names by default;
   * the documentation pages call the card kinds `stripe` and `stripe_direct`.
   */
  methodNames?: Partial<Record<TopUpMethod, string>>;
  /**
   * Told (once per client and kind) what the reader did that a user should know: key values
   * the service sent in an answer that does not create them, dropped unseen.
   */
  onNotice?: (notice: ClientNotice) => void;
}

/** How failures name the credential in use; see {@link KeydeckClientOptions.credential}. */
export interface CredentialDescription {
  readonly label: string;
  readonly whenRejected?: string;
}

/** Something the reader did that a user should hear about once (see `onNotice`). */
export interface ClientNotice {
  /** `key_values_hidden`: the service sent key values where only creation may; they were dropped. */
  kind: 'key_values_hidden';
  /** One sentence for people. */
  message: string;
  /** The method whose answer carried them (`listKeys`). */
  operation: string;
  /** How many values were dropped from that answer. */
  count: number;
}

/** The seed's wire names of the top-up kinds (§4). */
export const SEED_METHOD_NAMES: Readonly<Record<TopUpMethod, string>> = { card_checkout: 'card_checkout', card_direct: 'card_direct', usdc: 'usdc' };

/** Per-call options, the optional last argument of every method. */
export interface CallOptions {
  /** Cancels the call: it then rejects with an `AbortError` (see `isAbortError`). */
  signal?: AbortSignal;
}

/**
 * Result of {@link KeydeckClient.topUp}, discriminated by the `method` that was requested:
 * `card_checkout` → §2.4 session (open `sessionUrl` to pay), `usdc` → §2.5 instruction (send
 * `amount` USDC to `address` on `chain`, then call `verifyTopUp`), `card_direct` → whatever the
 * service sends (its data is not shown in §4).
 */
export type TopUpResult = (
  | { method: 'card_checkout'; data: CardCheckoutSession }
  | {
      method: 'usdc';
      data: UsdcPaymentInstruction;
      /** USD the instruction asks for (from `data.amount`, read exactly): what must be sent and verified. */
      instructedAmount: number;
      /** True when the instruction's amount is not the amount requested (the pages show one). */
      amountDiffers: boolean;
    }
  | { method: 'card_direct'; data: unknown }
) & {
  /** The method name sent on the wire (`card_checkout`, `stripe`, …). */
  wireMethod: string;
};

/** How a 2xx body is read: a §2 schema (reader rules of ./reader.ts), or accepted as it comes. */
type Reader<T> = { schema: z.ZodType<T> | null; creates?: boolean };

interface CallSpec<T> {
  op: OperationInfo;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  read: Reader<T>;
}

/** The documentation pages' names of the card kinds (https://cheapestinference-docs.pages.dev/api/credits/). */
const PAGES_METHOD_KINDS: Readonly<Record<string, TopUpMethod>> = { stripe: 'card_checkout', stripe_direct: 'card_direct' };

/**
 * The top-up kind a method name stands for: a kind's own (seed) name, then the names of
 * `names` (a profile's `topUpMethods`), then the documentation pages' (`stripe`,
 * `stripe_direct`); undefined for any other name.
 */
export function topUpKindOf(name: string, names: Readonly<Partial<Record<TopUpMethod, string>>> = {}): TopUpMethod | undefined {
  const seed = TopUpMethodSchema.safeParse(name);
  if (seed.success) return seed.data;
  for (const [kind, wire] of Object.entries(names)) if (wire === name) return kind as TopUpMethod;
  return Object.hasOwn(PAGES_METHOD_KINDS, name) ? PAGES_METHOD_KINDS[name] : undefined;
}

const OPS = {
  listKeys: { name: 'listKeys', what: 'list the keys', changesState: false },
  createCreditKey: { name: 'createCreditKey', what: 'create the credit key', check: 'list the keys', changesState: true },
  updateKey: { name: 'updateKey', what: 'update the key', check: 'list the keys', changesState: true, byId: true },
  deleteKey: { name: 'deleteKey', what: 'delete the key', check: 'list the keys', changesState: true, byId: true },
  listManagementKeys: { name: 'listManagementKeys', what: 'list the management keys', changesState: false },
  createManagementKey: {
    name: 'createManagementKey',
    what: 'create the management key',
    check: 'list the management keys',
    changesState: true,
  },
  deleteManagementKey: {
    name: 'deleteManagementKey',
    what: 'delete the management key',
    check: 'list the management keys',
    changesState: true,
    byId: true,
  },
  topUp: { name: 'topUp', what: 'start the top-up', check: 'check the balance', changesState: true },
  verifyTopUp: { name: 'verifyTopUp', what: 'verify the top-up', check: 'check the balance', changesState: true },
  getCredits: { name: 'getCredits', what: 'read the credit balance', changesState: false },
  getBillingStatus: { name: 'getBillingStatus', what: 'read the billing status', changesState: false },
} satisfies Record<string, OperationInfo>;

/**
 * Client of the account API (§4). One instance per credential; it keeps one keep-alive
 * connection pool, so a monitor that polls for hours reuses one socket. Every method takes an
 * optional last argument {@link CallOptions}. Every method rejects with a {@link KeydeckApiError}
 * (or an `AbortError` when cancelled).
 *
 * @example
 * const client = new KeydeckClient({ baseUrl: 'https://api.example.com', token: process.env.KEYDECK_TOKEN! });
 * const { remaining } = await client.getCredits();
 */
export class KeydeckClient {
  /** The base address in use, normalized (no trailing slash). */
  readonly baseUrl: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #userAgent: string;
  readonly #credential: CredentialDescription | undefined;
  readonly #methodNames: Readonly<Record<TopUpMethod, string>>;
  readonly #onNotice: ((notice: ClientNotice) => void) | undefined;
  readonly #noticed = new Set<ClientNotice['kind']>();
  readonly #transport = new HttpTransport();
  #clockOffsetMs: number | undefined;

  /**
   * @throws KeydeckApiError `invalid_request` (with `field`: `baseUrl`, `token`, `timeoutMs`,
   *   `retries` or `userAgent`) when an option is unusable; the message never holds the token.
   */
  constructor(options: KeydeckClientOptions) {
    this.baseUrl = checkedBaseUrl(options.baseUrl);
    const token = options.token;
    if (typeof token !== 'string' || token.length === 0 || /[\s\u0000-\u001f\u007f]/.test(token)) {
      throw new KeydeckApiError('invalid_request', 'The token is empty or contains spaces or control characters: give a session token or a management key.', { field: 'token' });
    }
    this.#token = token;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > 2_147_483_647) {
      throw new KeydeckApiError('invalid_request', 'timeoutMs must be a positive number of milliseconds.', { field: 'timeoutMs' });
    }
    this.#timeoutMs = timeoutMs;
    const retries = options.retries ?? DEFAULT_RETRIES;
    if (!Number.isInteger(retries) || retries < 0 || retries > 10) {
      throw new KeydeckApiError('invalid_request', 'retries must be a whole number from 0 to 10.', { field: 'retries' });
    }
    this.#retries = retries;
    const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    if (typeof userAgent !== 'string' || userAgent.trim() === '' || /[\u0000-\u001f\u007f]/.test(userAgent)) {
      throw new KeydeckApiError('invalid_request', 'userAgent must be a non-empty text without control characters.', { field: 'userAgent' });
    }
    this.#userAgent = userAgent;
    // No token over plain http to another machine unless the caller opted in (baseUrl.ts).
    const insecure = insecureHttpProblem(this.baseUrl, options.allowInsecureHttp === true);
    if (insecure !== undefined) throw new KeydeckApiError('invalid_request', `${insecure}.`, { field: 'baseUrl' });
    const names = { ...SEED_METHOD_NAMES };
    for (const [kind, name] of Object.entries(options.methodNames ?? {})) {
      if (name === undefined) continue;
      if (!TopUpMethodNameSchema.safeParse(name).success) {
        throw new KeydeckApiError('invalid_request', `The method name for ${kind} must be 1–64 letters, digits, "_", "-" or ".".`, { field: 'methodNames' });
      }
      names[kind as TopUpMethod] = name;
    }
    this.#methodNames = names;
    this.#onNotice = options.onNotice;
    this.#credential = options.credential;
  }

  /** The wire names of the top-up kinds in use (the profile's setting, else the seed's). */
  get methodNames(): Readonly<Record<TopUpMethod, string>> {
    return this.#methodNames;
  }

  /**
   * The service's clock minus this machine's, in ms, from the HTTP `Date` header of the last
   * answer that had one (RFC 9110 §6.6.1; one-second resolution); undefined before any answer.
   * Times the service decides (a subscription's `expiresAt`) are reckoned with
   * `Date.now() + serviceClockOffsetMs` (issue 19). Bounded to ±10 years (a nonsense header is ignored).
   */
  get serviceClockOffsetMs(): number | undefined {
    return this.#clockOffsetMs;
  }

  /** The service's time now (epoch ms): this machine's clock corrected by {@link serviceClockOffsetMs}. */
  serviceNow(): number {
    return Date.now() + (this.#clockOffsetMs ?? 0);
  }

  /**
   * §4 `GET /api/keys`: the user's consumption keys (§2.1), subscription and credit, never with `apiKey`.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async listKeys(options?: CallOptions): Promise<ConsumptionKey[]> {
    return this.#call({ op: OPS.listKeys, method: 'GET', path: '/api/keys', read: { schema: ConsumptionKeyListSchema } }, options);
  }

  /**
   * §4 `POST /api/keys/credit`: creates a credit key (§3: needs a credit balance above 0).
   * The result carries the full `apiKey` (`sk_…`), returned only this once.
   * @throws KeydeckApiError `invalid_request` (bad name, nothing sent), `insufficient_balance`
   *   (balance 0), others; never retried; `outcomeUnknown` when the connection failed after sending.
   */
  async createCreditKey(input: { name: string }, options?: CallOptions): Promise<CreatedConsumptionKey> {
    const body = parseInput(CreateKeyRequestSchema, input, this.#token);
    return this.#call(
      { op: OPS.createCreditKey, method: 'POST', path: '/api/keys/credit', body, read: { schema: CreatedConsumptionKeySchema, creates: true } },
      options,
    );
  }

  /**
   * §4 `PUT /api/keys/:id`: renames (`name`) and/or pauses or resumes (`isActive`, §3) a consumption key.
   * @returns the body as sent by the service (not shown in §4): parsed JSON, text, or undefined when empty
   * @throws KeydeckApiError `invalid_request` (bad id or patch, nothing sent), `not_found`, others; never retried
   */
  async updateKey(id: string, patch: { name?: string; isActive?: boolean }, options?: CallOptions): Promise<unknown> {
    const keyId = parseInput(KeyIdSchema, id, this.#token, 'id');
    const body = parseInput(UpdateKeyRequestSchema, patch, this.#token);
    return this.#call({ op: OPS.updateKey, method: 'PUT', path: `/api/keys/${encodeURIComponent(keyId)}`, body, read: { schema: null } }, options);
  }

  /**
   * §4 `DELETE /api/keys/:id`: deletes a consumption key for good (§3: it is revoked).
   * @returns `{ deleted: true }`
   * @throws KeydeckApiError `invalid_request` (bad id, nothing sent), `not_found`, others; never retried
   */
  async deleteKey(id: string, options?: CallOptions): Promise<DeletedKey> {
    const keyId = parseInput(KeyIdSchema, id, this.#token, 'id');
    return this.#call(
      { op: OPS.deleteKey, method: 'DELETE', path: `/api/keys/${encodeURIComponent(keyId)}`, read: { schema: DeletedKeySchema } },
      options,
    );
  }

  /**
   * §4 `GET /api/keys/management`: the management keys (§2.2), with `keyPrefix`, never `apiKey`.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async listManagementKeys(options?: CallOptions): Promise<ManagementKey[]> {
    return this.#call(
      { op: OPS.listManagementKeys, method: 'GET', path: '/api/keys/management', read: { schema: ManagementKeyListSchema } },
      options,
    );
  }

  /**
   * §4 `POST /api/keys/management`: creates a management key; the result's `apiKey` (`mk_…`) is
   * the full key, returned only this once.
   * @throws KeydeckApiError `invalid_request` (bad name, nothing sent), others; never retried
   */
  async createManagementKey(input: { name: string }, options?: CallOptions): Promise<CreatedManagementKey> {
    const body = parseInput(CreateKeyRequestSchema, input, this.#token);
    return this.#call(
      {
        op: OPS.createManagementKey,
        method: 'POST',
        path: '/api/keys/management',
        body,
        read: { schema: CreatedManagementKeySchema, creates: true },
      },
      options,
    );
  }

  /**
   * §4 `DELETE /api/keys/management/:id`: deletes a management key.
   * @returns the body as sent (not shown in §4): parsed JSON, text, or undefined when empty
   * @throws KeydeckApiError `invalid_request` (bad id, nothing sent), `not_found`, others; never retried
   */
  async deleteManagementKey(id: string, options?: CallOptions): Promise<unknown> {
    const keyId = parseInput(KeyIdSchema, id, this.#token, 'id');
    return this.#call(
      { op: OPS.deleteManagementKey, method: 'DELETE', path: `/api/keys/management/${encodeURIComponent(keyId)}`, read: { schema: null } },
      options,
    );
  }

  /**
   * §4 `POST /api/billing/topup`: starts a top-up of `amount` USD (≥ 10, ≤ 2 decimals).
   * `method` is a kind by the seed's name (`card_checkout`, `card_direct`, `usdc`), sent as the
   * wire name of {@link KeydeckClientOptions.methodNames}, or any other name, sent as given
   * (its answer is read by its shape: a session, an instruction, or anything else).
   * @returns a {@link TopUpResult} tagged with the kind: §2.4 session, §2.5 instruction (with the
   *   instruction's own amount, which may differ from the one requested), or the unshown
   *   `card_direct` data as it arrives
   * @throws KeydeckApiError `invalid_request` (bad amount/method, nothing sent; or the service
   *   refused the method name: the message names the profile setting), others; never retried
   */
  async topUp(input: { amount: number; method: TopUpMethod | (string & {}) }, options?: CallOptions): Promise<TopUpResult> {
    const named = TopUpMethodSchema.safeParse(input?.method);
    const wireMethod = named.success ? this.#methodNames[named.data] : input?.method;
    const body = parseInput(TopUpRequestSchema, { ...input, method: wireMethod }, this.#token);
    const kind = named.success ? named.data : this.#kindOfWireName(body.method);
    const spec = { op: OPS.topUp, method: 'POST', path: '/api/billing/topup', body } as const;
    const send = async <T>(schema: z.ZodType<T> | null): Promise<T> => {
      try {
        return await this.#call({ ...spec, read: { schema } }, options);
      } catch (error) {
        throw this.#methodRefusal(error, body.method, kind);
      }
    };
    const asUsdc = (data: UsdcPaymentInstruction): TopUpResult => {
      const micros = parseUsdMicros(data.amount) ?? 0;
      return { method: 'usdc', data, instructedAmount: microsToUsd(micros), amountDiffers: micros !== usdToMicros(body.amount), wireMethod: body.method };
    };
    switch (kind) {
      case 'card_checkout':
        return { method: 'card_checkout', data: await send(CardCheckoutSessionSchema), wireMethod: body.method };
      case 'usdc':
        return asUsdc(await send(UsdcPaymentInstructionSchema));
      case 'card_direct':
        return { method: 'card_direct', data: await send(null), wireMethod: body.method };
      default: {
        // A name keydeck does not know: the answer's shape tells what it started.
        const data = await send(null);
        const checkout = CardCheckoutSessionSchema.safeParse(data);
        if (checkout.success) return { method: 'card_checkout', data: checkout.data, wireMethod: body.method };
        const instruction = UsdcPaymentInstructionSchema.safeParse(data);
        if (instruction.success) return asUsdc(instruction.data);
        return { method: 'card_direct', data, wireMethod: body.method };
      }
    }
  }

  /** The kind a wire name stands for (see {@link topUpKindOf}). */
  #kindOfWireName(name: string): TopUpMethod | undefined {
    return topUpKindOf(name, this.#methodNames);
  }

  /**
   * A refusal of the method name (400/422 `invalid_request` naming `method`) gets one more
   * sentence: which profile setting changes the name. Other errors pass unchanged.
   */
  #methodRefusal(error: unknown, wireMethod: string, kind: TopUpMethod | undefined): unknown {
    if (!(error instanceof KeydeckApiError) || error.code !== 'invalid_request') return error;
    const aboutMethod = error.field === 'method' || error.field === 'data.method' || /\bmethod\b/i.test(error.message);
    if (!aboutMethod) return error;
    const setting = kind !== undefined && kind !== 'usdc' ? `topUpMethods.${kind}` : 'topUpMethods';
    const hint = ` The method name sent was "${wireMethod}": the profile setting ${setting} (in keydeck's config.json) sets the names sent for the card methods (the service's documentation pages call them stripe and stripe_direct), and --method NAME sends any name.`;
    return new KeydeckApiError('invalid_request', `${error.message.replace(/\s*$/, '')}${hint}`, {
      ...(error.status !== undefined && { status: error.status }),
      field: 'method',
    });
  }

  /**
   * §4 `POST /api/billing/verify-topup`: credits a USDC transfer (`txHash` `0x` + 64 hex) of
   * `amount` USD, which must match the amount sent.
   * @returns §2.6 `{ credited, balance }` in USD
   * @throws KeydeckApiError `invalid_request` (nothing sent), `amount_mismatch`, `tx_already_used`,
   *   others; never retried; `outcomeUnknown` when the connection failed after sending
   */
  async verifyTopUp(input: { txHash: string; amount: number }, options?: CallOptions): Promise<VerifiedTopUp> {
    const body = parseInput(VerifyTopUpRequestSchema, input, this.#token);
    return this.#call(
      { op: OPS.verifyTopUp, method: 'POST', path: '/api/billing/verify-topup', body, read: { schema: VerifiedTopUpSchema } },
      options,
    );
  }

  /**
   * §4 `GET /api/billing/credits`: the credit balance record (§2.3), USD amounts, real-time.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async getCredits(options?: CallOptions): Promise<CreditBalance> {
    return this.#call({ op: OPS.getCredits, method: 'GET', path: '/api/billing/credits', read: { schema: CreditBalanceSchema } }, options);
  }

  /**
   * §4 `GET /api/billing/status` (body not shown): when the body is an envelope its `data` is
   * returned (`success: false` is an error); otherwise the parsed JSON, the text, or undefined;
   * key values dropped. `summarizeBillingStatus` (./reader.ts) reads the documented shapes.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async getBillingStatus(options?: CallOptions): Promise<unknown> {
    return this.#call({ op: OPS.getBillingStatus, method: 'GET', path: '/api/billing/status', read: { schema: null } }, options);
  }

  /** Tells `onNotice` once per client that key values were dropped from an answer. */
  #notice(operation: string, count: number): void {
    if (this.#onNotice === undefined || this.#noticed.has('key_values_hidden')) return;
    this.#noticed.add('key_values_hidden');
    const message = `The service sent ${count === 1 ? 'a key value' : `${count} key values`} in a list (${operation}); keydeck hid ${count === 1 ? 'it' : 'them'}.`;
    try {
      this.#onNotice({ kind: 'key_values_hidden', message, operation, count });
    } catch {
      // a listener's failure is not the call's
    }
  }

  /** Closes the idle keep-alive sockets now (optional: idle sockets never keep the process alive). */
  close(): void {
    this.#transport.close();
  }

  /** Records the service's clock from a `Date` header (ignored when absent or absurd). */
  #observeDate(header: string | string[] | undefined): void {
    if (typeof header !== 'string' || header.length > 64) return;
    const t = Date.parse(header);
    if (!Number.isFinite(t)) return;
    const offset = t - Date.now();
    if (Math.abs(offset) > 10 * 365 * 86_400_000) return;
    this.#clockOffsetMs = offset;
  }

  /**
   * Sends a call with the retry and deadline policy of the module docstring. Rejects (never
   * throws synchronously): every public method is async, input validation included.
   */
  async #call<T>(spec: CallSpec<T>, options?: CallOptions): Promise<T> {
    const signal = options?.signal;
    if (signal?.aborted) throw createAbortError();
    const started = Date.now();
    const deadline = started + this.#timeoutMs;
    const ctx: FailureContext = {
      op: spec.op,
      token: this.#token,
      baseUrl: this.baseUrl,
      timeoutMs: this.#timeoutMs,
      ...(this.#credential !== undefined && { credential: this.#credential }),
    };
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      accept: 'application/json',
      'user-agent': this.#userAgent,
    };
    const text = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    if (text !== undefined) headers['content-type'] = 'application/json';
    let retriesLeft = spec.method === 'GET' ? this.#retries : 0;
    for (let retry = 0; ; retry++) {
      const remaining = deadline - Date.now();
      // While a retry is left, an attempt may use half of what remains, unless the other half
      // could not hold even the shortest backoff and one more attempt: then it gets it all.
      const half = Math.max(MIN_ATTEMPT_MS, Math.floor(remaining / 2));
      const roomForRetry = retriesLeft > 0 && remaining - half >= minBackoffDelayMs(retry) + MIN_ATTEMPT_MS;
      const attemptMs = roomForRetry ? half : remaining;
      const outcome = await this.#transport.send({
        method: spec.method,
        url: `${this.baseUrl}${spec.path}`,
        headers,
        ...(text !== undefined && { body: text }),
        timeoutMs: attemptMs,
        signal,
      });
      let failure: KeydeckApiError;
      let waitMs: number | undefined;
      if (outcome.kind === 'aborted') throw createAbortError();
      if (outcome.kind === 'too_large') {
        throw errorFromInvalidResponse(ctx, outcome.status, undefined, `the answer is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB, so keydeck did not read it`);
      }
      if (outcome.kind === 'response') {
        const { status } = outcome;
        this.#observeDate(outcome.headers.date);
        const body = parseBody(outcome.text);
        if (status >= 300 && status < 400) throw errorFromRedirect(ctx, status, outcome.headers);
        if (status >= 200 && status < 300 && !saysFailure(body)) return readBody(spec, ctx, status, body, (count) => this.#notice(spec.op.name, count));
        waitMs = parseRetryAfterMs(outcome.headers['retry-after']);
        failure = errorFromResponse(ctx, status, body, waitMs);
        if (!(status === 429 || status >= 500)) throw failure;
      } else if (outcome.kind === 'timeout') {
        failure = errorFromTimeout(ctx, outcome.possiblySent);
      } else {
        failure = errorFromNetwork(ctx, outcome.code, outcome.possiblySent);
      }
      if (retriesLeft === 0) throw failure;
      // The room left for a wait before one more attempt. A backoff drawn longer than the room
      // shrinks to it (never below its shortest, which the attempt's share left room for), so a
      // call gives up at its deadline, not before; a Retry-After that does not fit ends the call.
      const room = deadline - Date.now() - MIN_ATTEMPT_MS;
      let delay = waitMs ?? backoffDelayMs(retry);
      if (waitMs === undefined && delay > room && room >= minBackoffDelayMs(retry)) delay = room;
      if (delay > room) throw failure;
      try {
        await sleep(delay, undefined, signal ? { signal } : {});
      } catch {
        throw createAbortError();
      }
      retriesLeft--;
    }
  }
}

/** True when a body says `success: false` (the billing envelope's failure; an error whatever the status). */
function saysFailure(body: ParsedBody): boolean {
  return body.kind === 'json' && isRecord(body.value) && body.value.success === false;
}

/** Reads a 2xx body per the call's {@link Reader} (the rules of ./reader.ts). */
function readBody<T>(spec: CallSpec<T>, ctx: FailureContext, status: number, body: ParsedBody, notice: (count: number) => void): T {
  const result = readAnswer(spec.read, body);
  if (!result.ok) throw errorFromInvalidResponse(ctx, status, result.field, result.problem);
  if (result.hiddenKeyValues > 0) notice(result.hiddenKeyValues);
  return result.data;
}

/**
 * Checks and normalizes the base address (src/api/baseUrl.ts rules).
 * @throws KeydeckApiError `invalid_request` (field `baseUrl`) naming what is wrong
 */
function checkedBaseUrl(baseUrl: string): string {
  const problem = baseUrlProblem(baseUrl);
  if (problem !== undefined) {
    throw new KeydeckApiError('invalid_request', `The base URL ${problem}: give an address such as https://api.example.com.`, { field: 'baseUrl' });
  }
  return normalizeBaseUrl(baseUrl);
}
