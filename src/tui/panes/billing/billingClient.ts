/**
 * The part of the API client (src/api/client.ts `KeydeckClient`) the Billing pane, the top-up
 * walk-through and `keydeck monitor` use: §4 `GET /api/billing/credits`, `GET
 * /api/billing/status`, `POST /api/billing/topup`, `POST /api/billing/verify-topup`.
 */
import type { TopUpResult } from '../../../api/client.js';
import type { CreditBalance, TopUpMethod, VerifiedTopUp } from '../../../api/schemas.js';

/** Per-call options: an AbortSignal. */
export interface BillingCallOptions {
  readonly signal?: AbortSignal;
}

/** Billing methods of `KeydeckClient`; each rejects with a KeydeckApiError. */
export interface BillingClient {
  /** §2.3 balance record (USD). Retried on network errors, 5xx, 429. */
  getCredits(options?: BillingCallOptions): Promise<CreditBalance>;
  /** §4 status (body not shown): the envelope's data, or the body as it arrives. */
  getBillingStatus(options?: BillingCallOptions): Promise<unknown>;
  /** §4 top-up of `amount` USD by `method`; never retried. */
  topUp(input: { amount: number; method: TopUpMethod }, options?: BillingCallOptions): Promise<TopUpResult>;
  /** §4 verify-topup (§2.6 result, USD); never retried. */
  verifyTopUp(input: { txHash: string; amount: number }, options?: BillingCallOptions): Promise<VerifiedTopUp>;
}

/**
 * `client` as a {@link BillingClient} when it has the four methods (a `KeydeckClient` does),
 * else undefined. Lets the pane take the shell's client whatever interface the shell types it with.
 */
export function billingClientOf(client: unknown): BillingClient | undefined {
  if (typeof client !== 'object' || client === null) return undefined;
  const c = client as Record<string, unknown>;
  const ok = ['getCredits', 'getBillingStatus', 'topUp', 'verifyTopUp'].every((m) => typeof c[m] === 'function');
  return ok ? (client as BillingClient) : undefined;
}
