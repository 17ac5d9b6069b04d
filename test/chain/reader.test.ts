/**
 * The chain reader against a real anvil node: what it reads of a USDC transfer, a
 * pending one, an unknown hash, and the watch's `eth_getLogs`; the sandbox chain's own USDC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hash } from 'viem';
import { startSandboxChain, type SandboxChain } from '../../src/sandbox/chain/anvil.js';
import { USDC_BASE_CONTRACT } from '../../src/api/chain/rpcUrl.js';

const DEPOSIT = '0x1111111111111111111111111111111111111111' as const;
let chain: SandboxChain;

beforeAll(async () => {
  chain = await startSandboxChain();
}, 30_000);
afterAll(async () => {
  await chain?.close();
});

describe('ChainReader on anvil', () => {
  it('reads a USDC transfer: chain id, status, the Transfer event, confirmations', async () => {
    const hash = await chain.transfer(DEPOSIT, 25_000_000n);
    const read = await chain.reader.readTransaction(hash);
    expect(read.kind).toBe('mined');
    if (read.kind !== 'mined') return;
    expect(read.chainId).toBe(8453);
    expect(read.status).toBe('success');
    expect(read.confirmations).toBe(1n);
    expect(read.transfers).toEqual([{ token: USDC_BASE_CONTRACT, from: expect.any(String), to: DEPOSIT, value: 25_000_000n }]);
  });

  it('says not_found for a hash the chain has never seen', async () => {
    const read = await chain.reader.readTransaction(`0x${'ab'.repeat(32)}` as Hash);
    expect(read).toEqual({ kind: 'not_found', chainId: 8453 });
  });

  it('finds the transfers to an address with eth_getLogs, oldest first', async () => {
    const to = '0x2222222222222222222222222222222222222222' as const;
    const first = await chain.transfer(to, 10_000_000n);
    const second = await chain.transfer(to, 12_340_000n);
    await chain.transfer(DEPOSIT, 1n);
    const { transfers } = await chain.reader.findTransfers(to, 0n);
    expect(transfers.map((t) => [t.txHash, t.value])).toEqual([
      [first.toLowerCase(), 10_000_000n],
      [second.toLowerCase(), 12_340_000n],
    ]);
    expect(transfers[0]!.confirmations).toBeGreaterThan(transfers[1]!.confirmations);
  });
});
