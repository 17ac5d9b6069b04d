/**
 * The chain's JSON-RPC endpoint: Base's public endpoint by default, and the one rule an
 * endpoint must meet: https, or http only to this machine (an RPC learns the transaction hash and
 * the deposit address; on plain http off loopback anyone on the path learns them and may forge the
 * answer). Also Base's facts the reader and the watch share (chain id, USDC's address, how
 * confirmations count). Pure: no viem here, so it loads on any path.
 */
import { isLoopbackHost } from '../baseUrl.js';

/** Base's public JSON-RPC endpoint (docs.base.org, "Network information"): the default. */
export const BASE_PUBLIC_RPC = 'https://mainnet.base.org';

/** Base mainnet's chain id. */
export const BASE_CHAIN_ID = 8453;

/**
 * The native USDC contract on Base (Circle's published list of USDC addresses, "Base": 6
 * decimals). Not USDbC (the bridged token, 0xd9aA…6CA), which the service does not credit.
 */
export const USDC_BASE_CONTRACT = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/** USDC's decimals: one USD is 1,000,000 units. */
export const USDC_DECIMALS = 6;

/**
 * Why `value` cannot be the chain RPC URL, as the end of a sentence starting "The chain RPC URL …",
 * or undefined when it can: an absolute https URL without user name or password, or http to a
 * loopback host. Unlike the service's base URL (`baseUrlProblem` in ../baseUrl.ts) a query is allowed: some
 * RPC providers take their API key there.
 */
export function chainRpcProblem(value: string): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'is empty';
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    // not a URL: the problem is the answer
    return 'is not a valid URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return isLoopbackHost(url.host) ? undefined : 'must use https:// (plain http:// only to this machine)';
  return 'must start with https://';
}

/** The host (`name:port`) of an RPC URL, for sentences: never its path, which may hold an API key. */
export function rpcHostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    // not a URL: named in general words
    return 'the chain RPC';
  }
}

/** Confirmations of a transaction in block `block` at chain head `head`: its own block counts (at least 1). */
export function confirmationsAt(head: bigint, block: bigint): bigint {
  return head >= block ? head - block + 1n : 1n;
}
