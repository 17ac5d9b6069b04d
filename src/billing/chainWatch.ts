/**
 * The deposit address watched: USDC transfers to one address, read with
 * `eth_getLogs` from about the instruction's block on, at most once per {@link WATCH_INTERVAL_MS}
 * (the caller's loop waits that long between polls). Found transfers are kept across polls, so
 * the window can move forward; a chain that cannot be read is a sentence, never an exception.
 */
import type { ChainReader, FoundTransfer } from '../api/chain/reader.js';
import { confirmationsAt } from '../api/chain/rpcUrl.js';
import { unavailableSentence } from './chainChecks.js';

/** Least time between two polls of one watch, ms (one `eth_getLogs` per 4 s at most). */
export const WATCH_INTERVAL_MS = 4_000;
/** Base produces a block every 2 s: how far back the instruction's time lies, in blocks. */
const BASE_BLOCK_MS = 2_000;
/** Blocks read before the estimated instruction block (clock skew), and re-read behind the head (reorgs). */
const MARGIN_BLOCKS = 150n;
const REORG_BLOCKS = 20n;

/** One poll's result. */
export type WatchPoll = { readonly kind: 'ok'; readonly transfers: readonly FoundTransfer[] } | { readonly kind: 'unavailable'; readonly sentence: string };

/** Watches one deposit address (see the module comment). */
export class DepositWatch {
  readonly #rpcUrl: string;
  readonly #address: `0x${string}`;
  readonly #sinceMs: number;
  #reader: ChainReader | undefined;
  #from: bigint | undefined;
  #lastPoll = 0;
  readonly #found = new Map<string, FoundTransfer>();

  /** `sinceMs`: when the instruction was given (epoch ms). */
  constructor(rpcUrl: string, address: `0x${string}`, sinceMs: number) {
    this.#rpcUrl = rpcUrl;
    this.#address = address;
    this.#sinceMs = sinceMs;
  }

  /**
   * Reads the transfers since the last poll (waits first when called sooner than
   * {@link WATCH_INTERVAL_MS} after the last one); returns every transfer found so far, oldest first.
   */
  async poll(now: () => number = Date.now): Promise<WatchPoll> {
    const wait = this.#lastPoll + WATCH_INTERVAL_MS - now();
    if (this.#lastPoll > 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.#lastPoll = now();
    this.#reader ??= new (await import('../api/chain/reader.js')).ChainReader(this.#rpcUrl);
    try {
      // The first poll reads from about the instruction's block: its age in Base's blocks, with a margin.
      const from = this.#from ?? { back: BigInt(Math.max(0, Math.ceil((now() - this.#sinceMs) / BASE_BLOCK_MS))) + MARGIN_BLOCKS };
      const { head, from: read, transfers } = await this.#reader.findTransfers(this.#address, from);
      this.#from ??= read;
      for (const t of transfers) this.#found.set(t.txHash, t);
      // Confirmations grow with the head: recount the ones kept from earlier polls.
      for (const [hash, t] of this.#found) this.#found.set(hash, { ...t, confirmations: confirmationsAt(head, t.blockNumber) });
      const next = head > REORG_BLOCKS ? head - REORG_BLOCKS : 0n;
      if (next > this.#from) this.#from = next;
      return { kind: 'ok', transfers: [...this.#found.values()].sort((a, b) => (a.blockNumber < b.blockNumber ? -1 : a.blockNumber > b.blockNumber ? 1 : 0)) };
    } catch (error) {
      return { kind: 'unavailable', sentence: unavailableSentence(this.#rpcUrl, error) };
    }
  }
}
