/** Where the chain is read: flag > env > profile > a local sandbox's chain > Base's public endpoint; off when asked. */
import { describe, expect, it } from 'vitest';
import { chainRpcProblem } from '../../src/api/chain/rpcUrl.js';
import { ChainSettingsError, resolveChainSettings, type ChainInputs } from '../../src/billing/chainSettings.js';

const REAL = 'https://api.example-service.test';
const on = { chainChecks: true };
function resolve(inputs: Partial<ChainInputs>) {
  return resolveChainSettings({ profile: on, baseUrl: REAL, env: {}, askSandbox: async () => undefined, ...inputs });
}

describe('resolveChainSettings', () => {
  it('defaults to Base’s public endpoint for a remote service', async () => {
    expect(await resolve({})).toEqual({ enabled: true, rpcUrl: 'https://mainnet.base.org', source: 'default' });
  });
  it('takes --chain-rpc over KEYDECK_CHAIN_RPC over the profile', async () => {
    const env = { KEYDECK_CHAIN_RPC: 'https://env.example/rpc' };
    const profile = { chainChecks: true, chainRpc: 'https://profile.example/rpc' };
    expect(await resolve({ chainRpc: 'https://flag.example/rpc', env, profile })).toMatchObject({ rpcUrl: 'https://flag.example/rpc', source: 'flag' });
    expect(await resolve({ env, profile })).toMatchObject({ rpcUrl: 'https://env.example/rpc', source: 'env' });
    expect(await resolve({ profile })).toMatchObject({ rpcUrl: 'https://profile.example/rpc', source: 'profile' });
  });
  it('is off with --no-chain, KEYDECK_CHAIN_CHECKS=0 or chainChecks: false', async () => {
    expect(await resolve({ noChain: true, chainRpc: 'https://flag.example' })).toEqual({ enabled: false, why: '--no-chain' });
    expect(await resolve({ env: { KEYDECK_CHAIN_CHECKS: '0' } })).toMatchObject({ enabled: false });
    expect(await resolve({ profile: { chainChecks: false } })).toMatchObject({ enabled: false });
  });
  it('asks a loopback service for its chain: a sandbox’s anvil, or off without one', async () => {
    const local = 'http://127.0.0.1:8787';
    expect(await resolve({ baseUrl: local, askSandbox: async () => ({ rpcUrl: 'http://127.0.0.1:8545' }) })).toEqual({ enabled: true, rpcUrl: 'http://127.0.0.1:8545', source: 'sandbox' });
    expect(await resolve({ baseUrl: local, askSandbox: async () => ({ rpcUrl: null }) })).toMatchObject({ enabled: false, why: expect.stringContaining('--chain anvil') });
    expect(await resolve({ baseUrl: local })).toMatchObject({ enabled: false });
  });
  it('refuses plain http off this machine and credentials in the URL', async () => {
    await expect(resolve({ chainRpc: 'http://rpc.example.com' })).rejects.toThrow(ChainSettingsError);
    await expect(resolve({ env: { KEYDECK_CHAIN_RPC: 'ftp://x' } })).rejects.toThrow(/KEYDECK_CHAIN_RPC must start with https/);
    expect(chainRpcProblem('https://user:pw@rpc.example')).toMatch(/user name/);
    expect(chainRpcProblem('http://localhost:8545')).toBeUndefined();
    expect(chainRpcProblem('http://[::1]:8545')).toBeUndefined();
  });
});
