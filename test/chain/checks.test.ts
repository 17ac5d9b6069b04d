/**
 * Checks before verify, each mistake made real on a local anvil chain: ETH
 * instead of USDC, a look-alike token, the wrong recipient, a short amount, a reverted transfer, a
 * pending one (mining paused), a hash from another chain; and the RPC down, slow, failing,
 * enormous or hostile: one line, never raw text from the RPC.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createTestClient, createWalletClient, getAddress, http, type Hash } from 'viem';
import { ERC20_ABI } from '../../src/api/chain/erc20.js';
import { USDC_BASE_CONTRACT } from '../../src/api/chain/rpcUrl.js';
import { startSandboxChain, SANDBOX_PAYER, type SandboxChain } from '../../src/sandbox/chain/anvil.js';
import { SANDBOX_USDC_RUNTIME } from '../../src/sandbox/chain/sandboxUsdc.js';
import { checkTransaction, type ChainCheck } from '../../src/billing/chainChecks.js';
import { shortAddress } from '../../src/billing/eip681.js';
import { startHostileServer, type HostileServer } from '../api/hostile-server.js';

const DEPOSIT = getAddress('0x9f3c00000000000000000000000000000000abcd');
const OTHER = getAddress('0x12ab000000000000000000000000000000001234');
/** A token with USDC's code, name and decimals at another address. */
const LOOK_ALIKE = getAddress('0x00000000000000000000000000000000deadbeef');
/** anvil's second development account: unlocked, with ETH and no USDC. */
const EMPTY_PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const;

let base: SandboxChain;
let mainnet: SandboxChain;

beforeAll(async () => {
  [base, mainnet] = await Promise.all([startSandboxChain(), startSandboxChain({ chainId: 1 })]);
}, 40_000);
afterAll(async () => {
  await Promise.all([base?.close(), mainnet?.close()]);
});

function wallet(chain: SandboxChain, account: `0x${string}` = SANDBOX_PAYER) {
  return createWalletClient({ account, transport: http(chain.rpcUrl) });
}
function node(chain: SandboxChain) {
  return createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
}
async function mined(chain: SandboxChain, hash: Hash): Promise<Hash> {
  await createPublicClient({ transport: http(chain.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 50 });
  return hash;
}
function check(rpcUrl: string, txHash: string, amount = 25, timeoutMs?: number): Promise<ChainCheck> {
  return checkTransaction({ enabled: true, rpcUrl, source: 'flag' }, { txHash, amount, depositAddress: DEPOSIT }, timeoutMs !== undefined ? { timeoutMs } : {});
}

describe('the chain checks on anvil', () => {
  it('passes a USDC transfer of the amount to the deposit address, with its evidence', async () => {
    const hash = await base.transfer(DEPOSIT, 25_000_000n);
    const result = await check(base.rpcUrl, hash);
    expect(result).toMatchObject({ kind: 'passed', evidence: { txHash: hash.toLowerCase(), amount: '25.00', from: SANDBOX_PAYER, confirmations: 1 } });
    expect(result.kind === 'passed' && result.sentence).toMatch(
      new RegExp(`^the chain shows 25\\.00 USDC from 0xf39F…2266 to ${shortAddress(DEPOSIT).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} in block \\d+ \\(1 confirmation\\)$`),
    );
  });

  it('says ETH moved, not USDC', async () => {
    const hash = await mined(base, await wallet(base).sendTransaction({ to: DEPOSIT, value: 10n ** 16n, chain: null }));
    expect(await check(base.rpcUrl, hash)).toMatchObject({ kind: 'problem', code: 'eth_not_usdc', sentence: expect.stringMatching(/^this transaction moved ETH, not USDC/) });
  });

  it('names a look-alike token by its address', async () => {
    await node(base).setCode({ address: LOOK_ALIKE, bytecode: SANDBOX_USDC_RUNTIME });
    await mined(base, await wallet(base).writeContract({ address: LOOK_ALIKE, abi: ERC20_ABI, functionName: 'mint', args: [SANDBOX_PAYER, 10n ** 9n], chain: null }));
    const hash = await mined(base, await wallet(base).writeContract({ address: LOOK_ALIKE, abi: ERC20_ABI, functionName: 'transfer', args: [DEPOSIT, 25_000_000n], chain: null }));
    expect(await check(base.rpcUrl, hash)).toMatchObject({
      kind: 'problem',
      code: 'wrong_token',
      sentence: `this transaction moved another token (${shortAddress(LOOK_ALIKE)}), not native USDC (0x8335…2913): the service credits native USDC on Base only`,
    });
  });

  it('says where the USDC went when it is not the deposit address', async () => {
    const hash = await base.transfer(OTHER, 25_000_000n);
    expect(await check(base.rpcUrl, hash)).toMatchObject({
      kind: 'problem',
      code: 'wrong_recipient',
      sentence: `USDC went to ${shortAddress(OTHER)}, not to the deposit address ${shortAddress(DEPOSIT)}: it cannot be credited to this top-up`,
    });
  });

  it('says what arrived when the amount is short', async () => {
    const hash = await base.transfer(DEPOSIT, 24_500_000n);
    const result = await check(base.rpcUrl, hash);
    expect(result).toMatchObject({ kind: 'problem', code: 'amount_differs', sentence: '24.50 USDC arrived, the top-up is for 25.00: verify with 24.50 or top up again' });
    expect(result.kind === 'problem' && result.evidence?.amount).toBe('24.50');
  });

  it('says a reverted transfer moved no USDC', async () => {
    // No USDC on this account: the transfer reverts; the gas is given so that it is mined anyway.
    const hash = await mined(
      base,
      await wallet(base, EMPTY_PAYER).writeContract({
        address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        abi: ERC20_ABI,
        functionName: 'transfer',
        args: [DEPOSIT, 25_000_000n],
        chain: null,
        gas: 100_000n,
      }),
    );
    expect(await check(base.rpcUrl, hash)).toMatchObject({ kind: 'problem', code: 'reverted', sentence: expect.stringMatching(/^reverted: no USDC moved/) });
  });

  it('says pending while the transfer is not in a block, and passes once it is', async () => {
    await node(base).setAutomine(false);
    try {
      const hash = await wallet(base).writeContract({ address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', abi: ERC20_ABI, functionName: 'transfer', args: [DEPOSIT, 25_000_000n], chain: null });
      expect(await check(base.rpcUrl, hash)).toMatchObject({ kind: 'problem', code: 'pending', sentence: expect.stringMatching(/^pending: not in a block yet/) });
      await node(base).mine({ blocks: 1 });
      expect(await check(base.rpcUrl, hash)).toMatchObject({ kind: 'passed' });
    } finally {
      await node(base).setAutomine(true);
    }
  });

  it('does not find on Base a hash from another chain, and names a non-Base RPC', async () => {
    const hash = await mainnet.transfer(DEPOSIT, 25_000_000n);
    expect(await check(base.rpcUrl, hash)).toMatchObject({
      kind: 'problem',
      code: 'not_found',
      sentence: expect.stringMatching(/^no transaction with this hash on Base: was it sent on another network\?/),
    });
    expect(await check(mainnet.rpcUrl, hash)).toMatchObject({ kind: 'problem', code: 'wrong_chain', sentence: expect.stringMatching(/^the chain RPC serves chain id 1, not Base \(8453\)/) });
  });
});

/** A JSON-RPC endpoint on loopback answering with `answer` (per batch). */
const HASH = `0x${'cd'.repeat(32)}`;
const ESC = '\u001b';

describe('an RPC that cannot be trusted', () => {
  const servers: HostileServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  /** A JSON-RPC endpoint on loopback that answers each request body with `answer` (test/api/hostile-server.ts). */
  async function rpc(answer: (body: unknown, res: ServerResponse) => void): Promise<string> {
    const server = await startHostileServer((req, res) => answer(JSON.parse(req.body), res));
    servers.push(server);
    return server.url;
  }

  it('down: one line naming the host', async () => {
    expect(await check('http://127.0.0.1:9', HASH)).toEqual({
      kind: 'unavailable',
      sentence: "the chain could not be read at 127.0.0.1:9 (it cannot be reached): going on with the service's verdict alone",
    });
  });

  it('slow: given up after the time bound', async () => {
    const url = await rpc(() => {}); // never answers
    const started = Date.now();
    const result = await check(url, HASH, 25, 300);
    expect(result).toMatchObject({ kind: 'unavailable', sentence: expect.stringContaining('(it did not answer in time)') });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('enormous: refused past 2 MB', async () => {
    const url = await rpc((_body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`[${' '.repeat(3 * 1024 * 1024)}]`);
    });
    expect(await check(url, HASH)).toMatchObject({ kind: 'unavailable', sentence: expect.stringContaining('(its answer was too large)') });
  });

  it('failing: its HTTP status, not its text', async () => {
    const url = await rpc((_body, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end(`${ESC}]0;owned${ESC}\\ down`);
    });
    const result = await check(url, HASH);
    expect(result).toMatchObject({ kind: 'unavailable', sentence: expect.stringContaining('(it answered HTTP 503)') });
    expect(JSON.stringify(result)).not.toContain(ESC);
  });

  it('hostile strings in its answer: nothing of them reaches a sentence', async () => {
    const url = await rpc((body, res) => {
      const calls = Array.isArray(body) ? body : [body];
      const result = (method: string): unknown => {
        if (method === 'eth_chainId') return '0x2105';
        if (method === 'eth_blockNumber') return '0x10';
        if (method === 'eth_getTransactionByHash') return { hash: HASH, from: `${ESC}[2J\u202eEVIL`, to: DEPOSIT, value: '0x0', blockNumber: '0x1', nonce: '0x0', gas: '0x1', input: '0x' };
        return {
          transactionHash: HASH,
          blockNumber: '0x1',
          status: '0x1',
          logs: [],
          from: `${ESC}[31m`,
          to: DEPOSIT,
          gasUsed: '0x1',
          cumulativeGasUsed: '0x1',
          effectiveGasPrice: '0x1',
          logsBloom: '0x',
          type: '0x0',
        };
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(calls.map((c: { id: number; method: string }) => ({ jsonrpc: '2.0', id: c.id, result: result(c.method) }))));
    });
    const result = await check(url, HASH);
    expect(result).toMatchObject({ kind: 'unavailable', sentence: expect.stringContaining('(its answer was not a valid chain answer)') });
    expect(JSON.stringify(result)).not.toMatch(/EVIL|\\u001b|\u202e/);
  });

  it('a receipt in a block after the head the same answer gave: not a valid answer, never a confirmation', async () => {
    const pad = (a: string) => `0x${a.slice(2).toLowerCase().padStart(64, '0')}`;
    const url = await rpc((body, res) => {
      const calls = Array.isArray(body) ? body : [body];
      const result = (method: string): unknown => {
        if (method === 'eth_chainId') return '0x2105';
        if (method === 'eth_blockNumber') return '0x10';
        const common = { blockNumber: '0x20', blockHash: `0x${'11'.repeat(32)}`, transactionIndex: '0x0' };
        if (method === 'eth_getTransactionByHash') return { hash: HASH, from: SANDBOX_PAYER, to: USDC_BASE_CONTRACT, value: '0x0', nonce: '0x0', gas: '0x1', input: '0x', ...common };
        const log = {
          address: USDC_BASE_CONTRACT,
          topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', pad(SANDBOX_PAYER), pad(DEPOSIT)],
          data: pad('0x17d7840'),
          logIndex: '0x0',
          transactionHash: HASH,
          removed: false,
          ...common,
        };
        return {
          transactionHash: HASH,
          status: '0x1',
          logs: [log],
          from: SANDBOX_PAYER,
          to: USDC_BASE_CONTRACT,
          gasUsed: '0x1',
          cumulativeGasUsed: '0x1',
          effectiveGasPrice: '0x1',
          logsBloom: `0x${'0'.repeat(512)}`,
          type: '0x0',
          contractAddress: null,
          ...common,
        };
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(calls.map((c: { id: number; method: string }) => ({ jsonrpc: '2.0', id: c.id, result: result(c.method) }))));
    });
    expect(await check(url, HASH)).toMatchObject({ kind: 'unavailable', sentence: expect.stringContaining('(its answer was not a valid chain answer)') });
  });
});
