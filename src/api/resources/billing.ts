/**
 * `client.billing`: the credit balance and top-ups of the service's endpoints (`/api/billing/…`): the balance record,
 * the status, starting a top-up, verifying a USDC transfer. Every method takes an optional last
 * argument `CallOptions` and rejects with a KeydeckApiError (or an `AbortError` when cancelled);
 * see src/api/core.ts for the policy.
 */
import type { z } from 'zod';
import type { ApiCore, CallOptions } from '../core.js';
import { KeydeckApiError } from '../errors.js';
import type { OperationInfo } from '../failures.js';
import { microsToUsd, parseUsdMicros, usdToMicros } from '../money.js';
import {
  CardCheckoutSessionSchema,
  CreditBalanceSchema,
  TopUpMethodSchema,
  TopUpRequestSchema,
  UsdcPaymentInstructionSchema,
  VerifiedTopUpSchema,
  VerifyTopUpRequestSchema,
  type CardCheckoutSession,
  type CreditBalance,
  type TopUpMethod,
  type UsdcPaymentInstruction,
  type VerifiedTopUp,
} from '../schemas.js';

const OPS = {
  topUp: { name: 'topUp', what: 'start the top-up', check: 'check the balance', changesState: true },
  verifyTopUp: { name: 'verifyTopUp', what: 'verify the top-up', check: 'check the balance', changesState: true },
  credits: { name: 'getCredits', what: 'read the credit balance', changesState: false },
  status: { name: 'getBillingStatus', what: 'read the billing status', changesState: false },
  cancel: { name: 'cancelSubscription', what: 'cancel the subscription’s renewal', check: 'check the billing status', changesState: true, byId: true },
} satisfies Record<string, OperationInfo>;

/** The seed's wire names of the top-up kinds. */
export const SEED_METHOD_NAMES: Readonly<Record<TopUpMethod, string>> = { card_checkout: 'card_checkout', card_direct: 'card_direct', usdc: 'usdc' };

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

/**
 * Result of {@link BillingResource.topUp}, discriminated by the `method` that was requested:
 * `card_checkout` → the card checkout session session (open `sessionUrl` to pay), `usdc` → the USDC payment instruction instruction (send
 * `amount` USDC to `address` on `chain`, then call `verifyTopUp`), `card_direct` → whatever the
 * service sends (its data is not shown in the service's endpoints).
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

/** The account's credit balance and its top-ups. */
export class BillingResource {
  readonly #core: ApiCore;
  /** The wire names of the top-up kinds in use (the profile's setting, else the seed's). */
  readonly methodNames: Readonly<Record<TopUpMethod, string>>;

  /** @internal built by `KeydeckClient`, with the method names it checked. */
  constructor(core: ApiCore, methodNames: Readonly<Record<TopUpMethod, string>>) {
    this.#core = core;
    this.methodNames = methodNames;
  }

  /**
   * The service's endpoints `GET /api/billing/credits`: the credit balance record, USD amounts, real-time.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async credits(options?: CallOptions): Promise<CreditBalance> {
    return this.#core.call({ op: OPS.credits, method: 'GET', path: '/api/billing/credits', read: { schema: CreditBalanceSchema } }, options);
  }

  /**
   * The service's endpoints `GET /api/billing/status` (body not shown): when the body is an envelope its `data` is
   * returned (`success: false` is an error); otherwise the parsed JSON, the text, or undefined;
   * key values dropped. `summarizeBillingStatus` (../reader.ts) reads the documented shapes.
   * @throws KeydeckApiError (retried on network errors, timeouts, 5xx, 429)
   */
  async status(options?: CallOptions): Promise<unknown> {
    return this.#core.call({ op: OPS.status, method: 'GET', path: '/api/billing/status', read: { schema: null } }, options);
  }

  /**
   * `POST /api/billing/cancel` `{ subscriptionId }` (the older billing page,
   * https://docs.cheapestinference.com/api/billing: "Cancels a specific subscription. It stays
   * active until the current billing period ends"; `subscriptionId` is "the subscription UUID
   * from /status"): stops the renewal of a subscription or pool pledge. Its answer is not shown:
   * returned as it came (the envelope's `data`, the parsed JSON, the text, or undefined), key
   * values dropped; the billing status says whether it took (`cancelAtPeriodEnd`).
   * @throws KeydeckApiError `invalid_request` (a bad id, nothing sent), `not_found` (no such
   *   subscription), others; never retried; `outcomeUnknown` when the connection failed after sending
   */
  async cancel(subscriptionId: string, options?: CallOptions): Promise<unknown> {
    const { CancelSubscriptionRequestSchema } = await import('../poolSchemas.js'); // built on use
    const body = this.#core.parseInput(CancelSubscriptionRequestSchema, { subscriptionId });
    return this.#core.call({ op: OPS.cancel, method: 'POST', path: '/api/billing/cancel', body, read: { schema: null } }, options);
  }

  /**
   * The service's endpoints `POST /api/billing/topup`: starts a top-up of `amount` USD (≥ 10, ≤ 2 decimals).
   * `method` is a kind by the seed's name (`card_checkout`, `card_direct`, `usdc`), sent as the
   * wire name of {@link methodNames}, or any other name, sent as given (its answer is read by its
   * shape: a session, an instruction, or anything else).
   * @returns a {@link TopUpResult} tagged with the kind: the card checkout session session, the USDC payment instruction instruction (with the
   *   instruction's own amount, which may differ from the one requested), or the unshown
   *   `card_direct` data as it arrives
   * @throws KeydeckApiError `invalid_request` (bad amount/method, nothing sent; or the service
   *   refused the method name: the message names the profile setting), others; never retried
   */
  async topUp(input: { amount: number; method: TopUpMethod | (string & {}) }, options?: CallOptions): Promise<TopUpResult> {
    const named = TopUpMethodSchema.safeParse(input?.method);
    const wireMethod = named.success ? this.methodNames[named.data] : input?.method;
    const body = this.#core.parseInput(TopUpRequestSchema, { ...input, method: wireMethod });
    const kind = named.success ? named.data : topUpKindOf(body.method, this.methodNames);
    const spec = { op: OPS.topUp, method: 'POST', path: '/api/billing/topup', body } as const;
    const send = async <T>(schema: z.ZodType<T> | null): Promise<T> => {
      try {
        return await this.#core.call({ ...spec, read: { schema } }, options);
      } catch (error) {
        throw methodRefusal(error, body.method, kind);
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

  /**
   * The service's endpoints `POST /api/billing/verify-topup`: credits a USDC transfer (`txHash` `0x` + 64 hex) of
   * `amount` USD, which must match the amount sent.
   * @returns the verified top-up result `{ credited, balance }` in USD
   * @throws KeydeckApiError `invalid_request` (nothing sent), `amount_mismatch`, `tx_already_used`,
   *   others; never retried; `outcomeUnknown` when the connection failed after sending
   */
  async verifyTopUp(input: { txHash: string; amount: number }, options?: CallOptions): Promise<VerifiedTopUp> {
    const body = this.#core.parseInput(VerifyTopUpRequestSchema, input);
    return this.#core.call({ op: OPS.verifyTopUp, method: 'POST', path: '/api/billing/verify-topup', body, read: { schema: VerifiedTopUpSchema } }, options);
  }
}

/**
 * A refusal of the method name (400/422 `invalid_request` naming `method`) gets one more
 * sentence: which profile setting changes the name. Other errors pass unchanged.
 */
function methodRefusal(error: unknown, wireMethod: string, kind: TopUpMethod | undefined): unknown {
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
