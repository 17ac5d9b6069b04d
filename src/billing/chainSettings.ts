/**
 * Where keydeck reads the chain: `--no-chain` > `--chain-rpc URL` > `KEYDECK_CHAIN_RPC`
 * > the profile's `chainRpc` > a local sandbox's own chain > Base's public endpoint; and off when
 * the profile says `chainChecks: false`, `KEYDECK_CHAIN_CHECKS=0`, or the service is a local
 * sandbox without a chain (its simulated transfers are on no chain at all). What the RPC learns:
 * the transaction hash and the deposit address (README, "USDC on chain").
 */
import { hostOf, isLoopbackHost } from '../api/baseUrl.js';
import { BASE_PUBLIC_RPC, chainRpcProblem } from '../api/chain/rpcUrl.js';
import { readSandboxChain, type SandboxChainInfo } from '../api/sandbox-sim.js';
import { KeydeckError } from '../errors/index.js';

/** Where the chain is read, or why it is not. */
export type ChainSettings =
  { readonly enabled: true; readonly rpcUrl: string; readonly source: 'flag' | 'env' | 'profile' | 'sandbox' | 'default' } | { readonly enabled: false; readonly why: string };

/** The inputs of {@link resolveChainSettings}. */
export interface ChainInputs {
  /** `--no-chain` was given. */
  readonly noChain?: boolean | undefined;
  /** `--chain-rpc URL`. */
  readonly chainRpc?: string | undefined;
  /** The profile's `chainRpc` and `chainChecks`. */
  readonly profile: { readonly chainRpc?: string | undefined; readonly chainChecks: boolean };
  /** The service's base URL: a loopback one is asked whether it is a sandbox with a chain. */
  readonly baseUrl: string;
  readonly env?: NodeJS.ProcessEnv;
  /** How a loopback service is asked (default {@link readSandboxChain}: `GET /sandbox/chain`, 2 s). */
  readonly askSandbox?: (baseUrl: string) => Promise<SandboxChainInfo | undefined>;
}

/** The chain RPC URL is not usable: code `invalid_chain_rpc`, bad usage. */
export class ChainSettingsError extends KeydeckError {
  override readonly name = 'ChainSettingsError';
  constructor(message: string) {
    super('invalid_chain_rpc', message, { exitClass: 'usage', nothingSent: true });
  }
}

/**
 * The chain settings of one command (precedence in the module comment).
 * @throws ChainSettingsError when `--chain-rpc` or `KEYDECK_CHAIN_RPC` is not a usable URL.
 */
export async function resolveChainSettings(inputs: ChainInputs): Promise<ChainSettings> {
  const env = inputs.env ?? process.env;
  if (inputs.noChain) return { enabled: false, why: '--no-chain' };
  const check = (url: string, where: string): string => {
    const problem = chainRpcProblem(url);
    if (problem !== undefined) throw new ChainSettingsError(`${where} ${problem}`);
    return url.trim();
  };
  if (inputs.chainRpc !== undefined && inputs.chainRpc.trim() !== '') return { enabled: true, rpcUrl: check(inputs.chainRpc, 'The chain RPC URL of --chain-rpc'), source: 'flag' };
  if (env.KEYDECK_CHAIN_CHECKS === '0' || env.KEYDECK_CHAIN_CHECKS === 'false') return { enabled: false, why: 'KEYDECK_CHAIN_CHECKS=0' };
  const fromEnv = env.KEYDECK_CHAIN_RPC;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return { enabled: true, rpcUrl: check(fromEnv, 'The chain RPC URL of KEYDECK_CHAIN_RPC'), source: 'env' };
  if (!inputs.profile.chainChecks) return { enabled: false, why: 'the profile says chainChecks: false' };
  if (inputs.profile.chainRpc !== undefined) return { enabled: true, rpcUrl: inputs.profile.chainRpc, source: 'profile' };
  if (isLoopbackHost(hostOf(inputs.baseUrl))) {
    const sandbox = await (inputs.askSandbox ?? readSandboxChain)(inputs.baseUrl);
    if (sandbox?.rpcUrl) return { enabled: true, rpcUrl: sandbox.rpcUrl, source: 'sandbox' };
    if (sandbox) return { enabled: false, why: 'the sandbox simulates its transfers (start it with --chain anvil for a real chain)' };
    return { enabled: false, why: 'the service runs on this machine and is not a sandbox with a chain (give --chain-rpc to check anyway)' };
  }
  return { enabled: true, rpcUrl: BASE_PUBLIC_RPC, source: 'default' };
}
