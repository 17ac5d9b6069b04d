/**
 * The sandbox's chain simulation (docs/sandbox-service.md sandbox contract, beyond the service's endpoints): `POST
 * /sandbox/chain/transfers { to, amount }` → `{ txHash }`, a simulated USDC transfer on Base to
 * a deposit address, so the USDC top-up walk-through can be completed end to end without real
 * money. Only for a sandbox: see {@link canSimulateTransfers}. And `GET /sandbox/chain` (issue
 * 25): where a sandbox started with `--chain anvil` runs its chain ({@link readSandboxChain});
 * `POST /sandbox/checkout/:sessionId` pays a card checkout ({@link payCheckoutInSandbox}).
 */
import { isLoopbackHost, normalizeBaseUrl } from './baseUrl.js';
import { z } from './zod.js';
import { KeydeckApiError } from './errors.js';
import { errorFromInvalidResponse, errorFromNetwork, errorFromResponse, errorFromTimeout, parseBody, type FailureContext } from './failures.js';
import { HttpTransport } from './http.js';
import { TxHashSchema } from './schemas.js';
import { chainRpcProblem } from './chain/rpcUrl.js';

const TransferResponseSchema = z.looseObject({ txHash: TxHashSchema });

/**
 * True when the walk-through may offer "simulate the transfer": keydeck started the sandbox
 * itself (`startedSandbox`, `keydeck --sandbox`), or the base URL is on loopback (a sandbox run
 * with `keydeck sandbox`; the real service is never on loopback). Never for any other host.
 */
export function canSimulateTransfers(baseUrl: string, startedSandbox = false): boolean {
  if (startedSandbox) return true;
  try {
    return isLoopbackHost(new URL(baseUrl).host);
  } catch {
    // not a URL: not a sandbox either
    return false;
  }
}

/** The simulation as an operation of the client's failure wording (failures.ts). */
const SIMULATE_OP = { name: 'simulateTransfer', what: 'simulate the USDC transfer', check: 'look for the transfer in the sandbox', changesState: true } as const;

/** Deadline of the simulated transfer, ms (the client's default). */
const SIMULATE_TIMEOUT_MS = 10_000;

/**
 * Sends a simulated USDC transfer of `amount` (a decimal string such as "25", or a number) to
 * the deposit address `to` through the sandbox at `baseUrl`, over the client's transport
 * (http.ts) and with its failure mapping (failures.ts). Sent once, never retried.
 * @returns the transfer's `txHash` (`0x` + 64 hex)
 * @throws KeydeckApiError `not_found` (no simulation endpoint: not a sandbox), `invalid_request`
 *   (the sandbox refused the body), `network_error` / `timeout` (with `outcomeUnknown` when the
 *   request may have been received), `invalid_response`.
 */
export async function simulateUsdcTransfer(baseUrl: string, transfer: { to: string; amount: string | number }): Promise<{ txHash: string }> {
  const { ctx, status, body } = await postOnce(baseUrl, SIMULATE_OP, '/sandbox/chain/transfers', {
    notFound: 'This service has no transfer simulation: it is not a keydeck sandbox. Send the USDC from a wallet.',
    body: JSON.stringify({ to: transfer.to, amount: String(transfer.amount) }),
  });
  const parsed = TransferResponseSchema.safeParse(body.kind === 'json' ? body.value : undefined);
  if (!parsed.success) throw errorFromInvalidResponse(ctx, status, 'txHash', 'missing or not 0x + 64 hex');
  return { txHash: parsed.data.txHash };
}

/**
 * One POST of a simulation to the sandbox at `baseUrl` (`path` under it; a JSON `body` or none),
 * over the client's transport and its failure mapping, sent once: the 2xx answer, or the error
 * (404: `notFound`, the sentence for a service that is not a sandbox).
 */
async function postOnce(
  baseUrl: string,
  op: FailureContext['op'],
  path: string,
  options: { readonly notFound: string; readonly body?: string },
): Promise<{ ctx: FailureContext; status: number; body: ReturnType<typeof parseBody> }> {
  const base = normalizeBaseUrl(baseUrl);
  const ctx: FailureContext = { op, token: '', baseUrl: base, timeoutMs: SIMULATE_TIMEOUT_MS };
  const transport = new HttpTransport();
  try {
    const outcome = await transport.send({
      method: 'POST',
      url: `${base}${path}`,
      headers: { accept: 'application/json', ...(options.body !== undefined && { 'content-type': 'application/json' }) },
      ...(options.body !== undefined && { body: options.body }),
      timeoutMs: SIMULATE_TIMEOUT_MS,
    });
    if (outcome.kind === 'timeout') throw errorFromTimeout(ctx, outcome.possiblySent);
    if (outcome.kind === 'network') throw errorFromNetwork(ctx, outcome.code, outcome.possiblySent);
    if (outcome.kind === 'aborted') throw errorFromNetwork(ctx, 'ABORTED', false);
    if (outcome.kind === 'too_large') throw errorFromInvalidResponse(ctx, outcome.status, undefined, 'the answer is too large');
    if (outcome.status === 404) throw new KeydeckApiError('not_found', options.notFound, { status: 404 });
    const body = parseBody(outcome.text);
    if (outcome.status < 200 || outcome.status > 299) throw errorFromResponse(ctx, outcome.status, body, undefined);
    return { ctx, status: outcome.status, body };
  } finally {
    transport.close();
  }
}

/** Paying a sandbox checkout as an operation of the client's failure wording (failures.ts). */
const PAY_CHECKOUT_OP = { name: 'payCheckout', what: 'pay the checkout session in the sandbox', check: 'look at the billing status', changesState: true } as const;

/**
 * Pays the card checkout session `sessionId` on the sandbox at `baseUrl` (`POST
 * /sandbox/checkout/:sessionId`, what the hosted page's Pay button sends), so a card top-up can be
 * walked without a browser or a card. The address is built from `baseUrl`, never taken
 * from the service's `sessionUrl`. Sent once, never retried; the sandbox pays a session once.
 * Only for a sandbox: see {@link canSimulateTransfers}.
 * @throws KeydeckApiError `not_found` (not a sandbox, or no such session), `network_error` /
 *   `timeout` (with `outcomeUnknown` when the request may have been received), other failures.
 */
export async function payCheckoutInSandbox(baseUrl: string, sessionId: string): Promise<void> {
  await postOnce(baseUrl, PAY_CHECKOUT_OP, `/sandbox/checkout/${encodeURIComponent(sessionId)}`, {
    notFound: 'This service cannot pay the checkout itself (not a keydeck sandbox, or no such session): pay on the checkout page.',
  });
}

/** A sandbox's answer to `GET /sandbox/chain`. */
export interface SandboxChainInfo {
  /** Its chain's JSON-RPC URL (on this machine); null when the sandbox simulates its transfers. */
  readonly rpcUrl: string | null;
}

/** Deadline of the sandbox-chain probe, ms: a sandbox on this machine answers at once. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * `GET <baseUrl>/sandbox/chain` of a service on this machine, over the client's transport (size
 * bound, deadline), without a credential: a sandbox's chain, `{ rpcUrl: null }` for a sandbox
 * without one, or undefined for anything else (not a sandbox, no answer in 2 s, an answer that
 * is not a loopback RPC URL). Never throws.
 */
export async function readSandboxChain(baseUrl: string): Promise<SandboxChainInfo | undefined> {
  const transport = new HttpTransport();
  try {
    const outcome = await transport.send({ method: 'GET', url: `${normalizeBaseUrl(baseUrl)}/sandbox/chain`, headers: { accept: 'application/json' }, timeoutMs: PROBE_TIMEOUT_MS });
    if (outcome.kind !== 'response' || outcome.status !== 200) return undefined;
    const body = parseBody(outcome.text);
    const rpcUrl = body.kind === 'json' ? (body.value as { rpcUrl?: unknown } | null)?.rpcUrl : undefined;
    if (rpcUrl === null) return { rpcUrl: null };
    if (typeof rpcUrl === 'string' && chainRpcProblem(rpcUrl) === undefined && isLoopbackHost(new URL(rpcUrl).host)) return { rpcUrl };
    return undefined;
  } catch {
    // no sandbox chain to read: the caller goes on without one
    return undefined;
  } finally {
    transport.close();
  }
}
