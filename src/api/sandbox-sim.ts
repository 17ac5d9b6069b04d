/**
 * The sandbox's chain simulation (DESIGN.md sandbox contract, beyond §4): `POST
 * /sandbox/chain/transfers { to, amount }` → `{ txHash }`, a simulated USDC transfer on Base to
 * a deposit address, so the USDC top-up walk-through can be completed end to end without real
 * money. Only for a sandbox: see {@link canSimulateTransfers}.
 */
import { isLoopbackHost, normalizeBaseUrl } from './baseUrl.js';
import { z } from 'zod';
import { KeydeckApiError } from './errors.js';
import { TxHashSchema } from './schemas.js';

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
    return false;
  }
}

/** Options of {@link simulateUsdcTransfer}. */
export interface SimulateTransferOptions {
  readonly signal?: AbortSignal;
  /** Deadline, ms. Default 10,000. */
  readonly timeoutMs?: number;
}

/**
 * Sends a simulated USDC transfer of `amount` (a decimal string such as "25", or a number) to
 * the deposit address `to` through the sandbox at `baseUrl`. Sent once, never retried.
 * @returns the transfer's `txHash` (`0x` + 64 hex)
 * @throws KeydeckApiError `not_found` (no simulation endpoint: not a sandbox), `invalid_request`
 *   (the sandbox refused the body), `network_error` / `timeout` (with `outcomeUnknown` when the
 *   request may have been received), `invalid_response`.
 */
export async function simulateUsdcTransfer(
  baseUrl: string,
  transfer: { to: string; amount: string | number },
  options: SimulateTransferOptions = {},
): Promise<{ txHash: string }> {
  const url = `${normalizeBaseUrl(baseUrl)}/sandbox/chain/transfers`;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ to: transfer.to, amount: String(transfer.amount) }),
      signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const timedOut = timeout.aborted;
    throw new KeydeckApiError(
      timedOut ? 'timeout' : 'network_error',
      timedOut
        ? 'The sandbox did not answer the simulated transfer in time: check its balance of transfers before trying again.'
        : 'Could not reach the sandbox to simulate the transfer: is it still running?',
      { outcomeUnknown: timedOut },
    );
  }
  const text = await response.text();
  if (response.status === 404) {
    throw new KeydeckApiError('not_found', 'This service has no transfer simulation: it is not a keydeck sandbox. Send the USDC from a wallet.', {
      status: 404,
    });
  }
  if (!response.ok) {
    throw new KeydeckApiError(response.status >= 500 ? 'server_error' : 'invalid_request', `The sandbox refused the simulated transfer (HTTP ${response.status}).`, {
      status: response.status,
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const parsed = TransferResponseSchema.safeParse(body);
  if (!parsed.success) {
    throw new KeydeckApiError('invalid_response', 'The sandbox answered the simulated transfer without a valid txHash.', {
      status: response.status,
      field: 'txHash',
    });
  }
  return { txHash: parsed.data.txHash };
}
