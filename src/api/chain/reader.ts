/**
 * The chain reader: what Base's JSON-RPC says about one transaction and about the USDC
 * transfers to a deposit address, read with viem (its public client, its ABI decoding; no
 * hand-written RPC or ABI code). Loaded lazily (a dynamic import from the verify and watch paths),
 * never on the start path. The RPC is untrusted like the service: each answer is bounded in size
 * ({@link MAX_RPC_ANSWER_BYTES}) and time ({@link RPC_TIMEOUT_MS}), redirects are refused,
 * addresses are checked before use, and nothing from it is ever retried blindly or printed raw
 * (its error texts are not kept: {@link ChainUnavailableError} carries a reason code only).
 *
 * Round trips: {@link ChainReader.readTransaction} sends one batched HTTP request (chain id, head,
 * transaction, receipt); {@link ChainReader.findTransfers} two (the head, then `eth_getLogs` over at
 * most {@link MAX_LOG_BLOCKS} blocks).
 */
import { createClient, getAddress, http, isAddress, parseEventLogs, type Client } from 'viem';
import { getBlockNumber, getChainId, getLogs, getTransaction, getTransactionReceipt } from 'viem/actions';
import { ERC20_ABI } from './erc20.js';
import { confirmationsAt, USDC_BASE_CONTRACT } from './rpcUrl.js';
import { KeydeckError } from '../../errors/index.js';

/** A transaction hash, `0x` + 64 hex. */
export type Hash = `0x${string}`;

/** Longest one RPC answer may be, bytes. */
export const MAX_RPC_ANSWER_BYTES = 2 * 1024 * 1024;
/** Longest one RPC request may take, ms. */
export const RPC_TIMEOUT_MS = 8_000;
/** Most blocks one `eth_getLogs` asks for (public endpoints refuse wider ranges). */
export const MAX_LOG_BLOCKS = 2_000n;

/** One ERC-20 `Transfer` event as the chain recorded it (any token: `token` says which). */
export interface TransferLog {
  /** The contract that emitted it, EIP-55. */
  readonly token: `0x${string}`;
  readonly from: `0x${string}`;
  readonly to: `0x${string}`;
  /** Base units (USDC: 6 decimals). */
  readonly value: bigint;
}

/** What the chain says about one transaction hash. */
export type TransactionRead =
  /** No transaction with this hash on the chain the RPC serves. */
  | { readonly kind: 'not_found'; readonly chainId: number }
  /** Known to the node but not in a block yet. */
  | { readonly kind: 'pending'; readonly chainId: number; readonly from: `0x${string}` }
  /** In a block. `valueWei` is the native coin (ETH) it moved; `transfers` its ERC-20 `Transfer` events. */
  | {
      readonly kind: 'mined';
      readonly chainId: number;
      readonly status: 'success' | 'reverted';
      readonly blockNumber: bigint;
      /** Blocks from its own to the head, its own included (1 = just mined). */
      readonly confirmations: bigint;
      readonly from: `0x${string}`;
      /** The called contract or the recipient of ETH; null for a contract creation. */
      readonly to: `0x${string}` | null;
      readonly valueWei: bigint;
      readonly transfers: readonly TransferLog[];
    };

/** A USDC transfer found by {@link ChainReader.findTransfers}. */
export interface FoundTransfer extends TransferLog {
  readonly txHash: Hash;
  readonly blockNumber: bigint;
  readonly confirmations: bigint;
}

/** Why the chain could not be read (never the RPC's own words). */
export type ChainUnavailableReason = 'timeout' | 'unreachable' | 'too_large' | 'http_status' | 'invalid_answer';

/** The RPC could not answer usably (code `chain_unavailable`): keydeck goes on without the chain's word. */
export class ChainUnavailableError extends KeydeckError {
  override readonly name = 'ChainUnavailableError';
  readonly reason: ChainUnavailableReason;
  /** The HTTP status, for `http_status`. */
  readonly status?: number;
  constructor(reason: ChainUnavailableReason, status?: number) {
    super('chain_unavailable', `chain RPC unavailable: ${reason}${status !== undefined ? ` ${status}` : ''}`, { exitClass: 'network' });
    this.reason = reason;
    if (status !== undefined) this.status = status;
  }
}

/** Raised by {@link boundedFetch} for an answer over the size bound (code `answer_too_large`). */
class AnswerTooLargeError extends KeydeckError {
  override readonly name = 'AnswerTooLargeError';
  constructor() {
    super('answer_too_large', 'answer too large');
  }
}

/**
 * `fetch` with the reader's bounds: redirects refused, the body read up to
 * {@link MAX_RPC_ANSWER_BYTES} (a larger one is an error, whatever its Content-Length says).
 */
async function boundedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, { ...init, redirect: 'error' });
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_RPC_ANSWER_BYTES) {
    await response.body?.cancel().catch(() => {}); // the answer is refused anyway; a body that will not cancel changes nothing
    throw new AnswerTooLargeError();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_RPC_ANSWER_BYTES) {
        await reader.cancel().catch(() => {}); // the answer is refused anyway; a body that will not cancel changes nothing
        throw new AnswerTooLargeError();
      }
      chunks.push(value);
    }
  }
  return new Response(Buffer.concat(chunks), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The {@link ChainUnavailableError} for whatever viem threw. */
function unavailable(error: unknown): ChainUnavailableError {
  if (error instanceof ChainUnavailableError) return error;
  let status: number | undefined;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AnswerTooLargeError) return new ChainUnavailableError('too_large');
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return new ChainUnavailableError('timeout');
    const s = (e as { status?: unknown }).status;
    if (typeof s === 'number' && s >= 300) status = s;
  }
  if (status !== undefined) return new ChainUnavailableError('http_status', status);
  const name = error instanceof Error ? error.name : '';
  if (name === 'HttpRequestError' || /ECONNREFUSED|ENOTFOUND|fetch failed/.test(String((error as Error)?.cause ?? ''))) return new ChainUnavailableError('unreachable');
  return new ChainUnavailableError('invalid_answer');
}

function address(value: unknown): `0x${string}` {
  if (typeof value !== 'string' || !isAddress(value, { strict: false })) throw new ChainUnavailableError('invalid_answer');
  return getAddress(value);
}

function isNotFound(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

/** Options of {@link ChainReader}. */
export interface ChainReaderOptions {
  /** Per-request bound, ms (default {@link RPC_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

/**
 * Reads one EVM chain through the JSON-RPC endpoint `rpcUrl` (checked by the caller with
 * `chainRpcProblem`). Its methods throw {@link ChainUnavailableError} and nothing else.
 */
export class ChainReader {
  readonly #client: Client;

  constructor(rpcUrl: string, options: ChainReaderOptions = {}) {
    // viem's bare client and its tree-shakable actions: only what is read is bundled.
    this.#client = createClient({
      transport: http(rpcUrl, { batch: true, retryCount: 0, timeout: options.timeoutMs ?? RPC_TIMEOUT_MS, fetchFn: boundedFetch }),
    });
  }

  /** What the chain says about `txHash` (`0x` + 64 hex), in one batched round trip. */
  async readTransaction(txHash: Hash): Promise<TransactionRead> {
    const c = this.#client;
    const [chainId, head, tx, receipt] = await Promise.allSettled([
      getChainId(c),
      getBlockNumber(c, { cacheTime: 0 }),
      getTransaction(c, { hash: txHash }),
      getTransactionReceipt(c, { hash: txHash }),
    ]);
    if (chainId.status === 'rejected') throw unavailable(chainId.reason);
    if (head.status === 'rejected') throw unavailable(head.reason);
    if (!Number.isSafeInteger(chainId.value) || typeof head.value !== 'bigint') throw new ChainUnavailableError('invalid_answer');
    if (tx.status === 'rejected' && !isNotFound(tx.reason, 'TransactionNotFoundError')) throw unavailable(tx.reason);
    if (receipt.status === 'rejected' && !isNotFound(receipt.reason, 'TransactionReceiptNotFoundError')) throw unavailable(receipt.reason);
    if (tx.status === 'rejected') return { kind: 'not_found', chainId: chainId.value };
    try {
      const from = address(tx.value.from);
      if (receipt.status === 'rejected') return { kind: 'pending', chainId: chainId.value, from };
      const r = receipt.value;
      if (typeof r.blockNumber !== 'bigint' || (r.status !== 'success' && r.status !== 'reverted')) throw new ChainUnavailableError('invalid_answer');
      // A receipt in a block after the head the same answer gave is no confirmation: the answer is not valid.
      if (r.blockNumber > head.value) throw new ChainUnavailableError('invalid_answer');
      const logs = parseEventLogs({ abi: ERC20_ABI, logs: r.logs, eventName: 'Transfer' });
      const transfers = logs.map((log) => ({ token: address(log.address), from: address(log.args.from), to: address(log.args.to), value: log.args.value }));
      const confirmations = confirmationsAt(head.value, r.blockNumber);
      return {
        kind: 'mined',
        chainId: chainId.value,
        status: r.status,
        blockNumber: r.blockNumber,
        confirmations,
        from,
        to: tx.value.to ? address(tx.value.to) : null,
        valueWei: typeof tx.value.value === 'bigint' ? tx.value.value : 0n,
        transfers,
      };
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** The chain id the RPC serves. */
  async chainId(): Promise<number> {
    try {
      return await getChainId(this.#client);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * The token's `Transfer` events to `to` from block `from` (or, for `{ back }`, from that many
   * blocks behind the head) to the head, at most {@link MAX_LOG_BLOCKS} blocks (the newest ones when
   * the range is wider), oldest first, with the head they were counted against and the block the
   * read started at. Two requests: the head, then `eth_getLogs`.
   */
  async findTransfers(to: `0x${string}`, from: bigint | { readonly back: bigint }): Promise<{ readonly head: bigint; readonly from: bigint; readonly transfers: readonly FoundTransfer[] }> {
    try {
      const head = await getBlockNumber(this.#client, { cacheTime: 0 });
      const fromBlock = typeof from === 'bigint' ? from : head > from.back ? head - from.back : 0n;
      const start = head - fromBlock + 1n > MAX_LOG_BLOCKS ? head - MAX_LOG_BLOCKS + 1n : fromBlock < 0n ? 0n : fromBlock;
      const logs = await getLogs(this.#client, {
        address: USDC_BASE_CONTRACT,
        event: ERC20_ABI[0],
        args: { to },
        fromBlock: start,
        toBlock: head,
        strict: true,
      });
      const transfers: FoundTransfer[] = [];
      for (const log of logs) {
        if (log.blockNumber === null || log.transactionHash === null || !/^0x[0-9a-fA-F]{64}$/.test(log.transactionHash)) continue;
        // A log from past the head it was asked up to: not a valid answer.
        if (log.blockNumber > head) throw new ChainUnavailableError('invalid_answer');
        const token = address(log.address);
        if (token.toLowerCase() !== USDC_BASE_CONTRACT.toLowerCase()) continue;
        const recipient = address(log.args.to);
        if (recipient.toLowerCase() !== to.toLowerCase()) continue;
        transfers.push({
          token,
          from: address(log.args.from),
          to: recipient,
          value: log.args.value,
          txHash: log.transactionHash.toLowerCase() as Hash,
          blockNumber: log.blockNumber,
          confirmations: confirmationsAt(head, log.blockNumber),
        });
      }
      return { head, from: start, transfers };
    } catch (error) {
      throw unavailable(error);
    }
  }
}
