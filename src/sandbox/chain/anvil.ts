/**
 * The sandbox on a real chain: a local anvil node (the binary inside the
 * `@foundry-rs/anvil` devDependency, else `anvil` on PATH) on loopback with Base's chain id 8453,
 * the sandbox's USDC (./SandboxUsdc.sol, 6 decimals) placed at the native USDC address with
 * `anvil_setCode`, and a funded payer (anvil's first unlocked account). `--chain-rpc URL` points
 * at another anvil-compatible node instead (it must accept `anvil_setCode`). Nothing here is
 * loaded unless the sandbox is started with a chain.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import which from 'which';
import { createClient, getAddress, http } from 'viem';
import { waitForTransactionReceipt, writeContract } from 'viem/actions';
import { ERC20_ABI } from '../../api/chain/erc20.js';
import { ChainReader } from '../../api/chain/reader.js';
import { BASE_CHAIN_ID, USDC_BASE_CONTRACT } from '../../api/chain/rpcUrl.js';
import { SANDBOX_USDC_RUNTIME } from './sandboxUsdc.js';

/** anvil's first unlocked development account: the sandbox's payer (its key is public, in anvil's banner). */
export const SANDBOX_PAYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266' as const;
/** USDC minted to the payer at start, base units (one million USDC). */
const PAYER_USDC_UNITS = 1_000_000n * 1_000_000n;
/** Longest the node may take to listen, ms. */
const START_TIMEOUT_MS = 15_000;

/** A running sandbox chain. */
export interface SandboxChain {
  /** Its JSON-RPC URL (`http://127.0.0.1:PORT` when keydeck started it). */
  readonly rpcUrl: string;
  readonly chainId: number;
  /** The funded payer's address ({@link SANDBOX_PAYER}), an unlocked account of the node. */
  readonly payer: `0x${string}`;
  /** A reader of it (the sandbox's verify-topup reads receipts with it). */
  readonly reader: ChainReader;
  /**
   * Sends `units` (6 decimals) of the sandbox's USDC from the payer to `to` and waits for its
   * receipt; returns the hash. Throws when the node refuses or the transfer reverts.
   */
  transfer(to: `0x${string}`, units: bigint): Promise<`0x${string}`>;
  /** Stops the node keydeck started (nothing for a node given by URL). */
  close(): Promise<void>;
}

/** Options of {@link startSandboxChain}. */
export interface SandboxChainOptions {
  /** An existing node to use instead of starting anvil. */
  readonly rpcUrl?: string;
  /** The chain id anvil runs with (default 8453; the tests start a second one with 1). */
  readonly chainId?: number;
  /** Deploy the sandbox USDC and fund the payer (default true). */
  readonly deployUsdc?: boolean;
}

/** The anvil binary: the platform package of `@foundry-rs/anvil`, else `anvil` on PATH, else undefined. */
function anvilBinary(): string | undefined {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  try {
    const manifest = createRequire(import.meta.url).resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    const binary = path.join(path.dirname(manifest), 'bin', exe);
    if (existsSync(binary)) return binary;
  } catch {
    // not installed: try PATH
  }
  return which.sync('anvil', { nothrow: true }) ?? undefined;
}

/** Starts anvil on a free loopback port; resolves with its URL once it listens. */
function spawnAnvil(chainId: number): Promise<{ url: string; child: ChildProcess }> {
  const binary = anvilBinary();
  if (!binary) {
    return Promise.reject(new Error('anvil was not found: install the devDependencies (npm ci) or put foundry’s anvil on PATH'));
  }
  const child = spawn(binary, ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error('anvil did not start listening within 15 s')), START_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', (error) => fail(new Error(`anvil could not start: ${error.message}`)));
    child.once('exit', (code) => fail(new Error(`anvil exited (${code ?? 'signal'}) before listening`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      // The banner (development accounts and their public keys) is not forwarded anywhere.
      seen = (seen + chunk.toString('latin1')).slice(-4096);
      const match = /Listening on 127\.0\.0\.1:(\d{1,5})/.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        child.stderr!.resume();
        resolve({ url: `http://127.0.0.1:${match[1]}`, child });
      }
    });
    child.stderr!.resume();
  });
}

/**
 * Starts (or connects to) the sandbox chain, deploys the sandbox USDC at the native USDC address
 * and funds the payer. Throws when anvil is missing, does not start, or the node refuses
 * `anvil_setCode`; nothing is left running then.
 */
export async function startSandboxChain(options: SandboxChainOptions = {}): Promise<SandboxChain> {
  const chainId = options.chainId ?? BASE_CHAIN_ID;
  const started = options.rpcUrl === undefined ? await spawnAnvil(chainId) : undefined;
  const rpcUrl = started?.url ?? options.rpcUrl!;
  const stop = async () => {
    if (!started || started.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => started.child.once('exit', () => resolve()));
    started.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    if (started.child.exitCode === null) started.child.kill('SIGKILL');
  };
  try {
    const reader = new ChainReader(rpcUrl, { timeoutMs: 15_000 });
    // The payer is one of the node's unlocked accounts: eth_sendTransaction, no key in keydeck.
    const wallet = createClient({ account: SANDBOX_PAYER, transport: http(rpcUrl, { retryCount: 0 }), pollingInterval: 50 });
    const actualChainId = await reader.chainId();
    if (options.deployUsdc !== false) {
      // anvil's own method (viem's setCode action wants a test client, which would bundle all test actions).
      const request = wallet.request as (args: { method: string; params: unknown[] }) => Promise<unknown>;
      await request({ method: 'anvil_setCode', params: [USDC_BASE_CONTRACT, SANDBOX_USDC_RUNTIME] });
      const minted = await writeContract(wallet, { address: USDC_BASE_CONTRACT, abi: ERC20_ABI, functionName: 'mint', args: [SANDBOX_PAYER, PAYER_USDC_UNITS], chain: null });
      await waitForTransactionReceipt(wallet, { hash: minted, timeout: 15_000 });
    }
    /** The last send of {@link SandboxChain.transfer}: the next waits for it. */
    let sends: Promise<unknown> = Promise.resolve();
    return {
      rpcUrl,
      chainId: actualChainId,
      payer: SANDBOX_PAYER,
      reader,
      async transfer(to, units) {
        // One send at a time: the node numbers the payer's transactions itself (eth_sendTransaction
        // without a nonce), and two sends at once can be given the same nonce, the second refused
        // ("nonce too low"). The receipts are awaited concurrently.
        const send = sends.then(() => writeContract(wallet, { address: USDC_BASE_CONTRACT, abi: ERC20_ABI, functionName: 'transfer', args: [getAddress(to.toLowerCase()), units], chain: null }));
        sends = send.catch(() => undefined); // the queue only orders sends: this send's failure reaches its caller below
        const hash = await send;
        const receipt = await waitForTransactionReceipt(wallet, { hash, timeout: 15_000 });
        if (receipt.status !== 'success') throw new Error('the sandbox USDC transfer reverted');
        return hash;
      },
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
