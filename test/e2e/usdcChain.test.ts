/**
 * End to end on a real chain, as a user of `keydeck --sandbox --chain anvil`: the
 * built app in a pseudo-terminal, a USDC top-up of $25; its QR code is read off the screen and
 * decoded, exactly that payment is sent on the sandbox's anvil chain as a wallet would (the token,
 * chain id, recipient and amount of the EIP-681 request), the watch finds it, and `f` credits it:
 * no hash is typed anywhere. Quitting stops anvil with the sandbox.
 */
import { createWalletClient, getAddress, http } from 'viem';
import { describe, expect, it } from 'vitest';
import { ERC20_ABI } from '../../src/api/chain/erc20.js';
import { decodeQrText } from '../billing/qrDecode.js';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();

/** The QR code's rows on screen (half-block glyphs), with a light quiet zone around them. */
function qrOnScreen(screen: readonly string[]): string[] {
  const rows = screen.filter((line) => /[█▀▄]/.test(line) && /^[\s█▀▄]+$/.test(line));
  const first = Math.min(...rows.map((l) => l.search(/[█▀▄]/)));
  const last = Math.max(...rows.map((l) => l.length));
  const pad = ' '.repeat(4);
  return [pad, ...rows.map((l) => `${pad}${l.padEnd(last).slice(first, last)}${pad}`), pad].map((l, _i, all) => l.padEnd(Math.max(...all.map((x) => x.length))));
}

describe('a USDC top-up on the sandbox’s anvil chain', () => {
  it('decodes the QR code, pays exactly that on chain, and the watch finds and credits it with no hash typed', { timeout: 90_000 }, async () => {
    const dir = rig.tempDir('keydeck-e2e-chain-');
    const app: PtyApp = rig.start({ args: ['--sandbox', '--chain', 'anvil'], env: cleanEnv(dir), columns: 100, rows: 30 });
    await openDemoAccount(app);
    const origin = /(127\.0\.0\.1:\d+)/.exec(app.screenText())![1]!;

    app.write('3');
    await app.waitFor('t starts one');
    app.write('t');
    await app.waitFor('amount USD:');
    app.write('25');
    await app.waitFor(/amount USD: 25 *│/);
    app.write('\r');
    await app.waitFor('2/3 method · $25.00');
    app.write('\r');
    await app.waitFor(/On chain +watching for USDC on Base through 127\.0\.0\.1:\d+/);

    app.write('v');
    await app.waitFor('Scan with a wallet');
    const uri = decodeQrText(qrOnScreen(app.screen()), false);
    const request = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/.exec(uri ?? '');
    expect(request, `decoded: ${uri}`).not.toBeNull();
    const [, token, chainId, to, units] = request!;
    expect(token).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    expect(chainId).toBe('8453');
    expect(units).toBe('25000000');
    app.write('v');
    await app.waitFor('To address');
    expect(app.screenText()).toContain(`To address    ${to}`);

    // The wallet: the sandbox chain's payer sends exactly what the QR code asks for.
    const { rpcUrl } = (await (await fetch(`http://${origin}/sandbox/chain`)).json()) as { rpcUrl: string };
    const wallet = createWalletClient({ account: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', transport: http(rpcUrl) });
    expect(await wallet.getChainId()).toBe(Number(chainId));
    // First a stray 7 USDC to the same address (listed, never verified here), then the payment.
    await wallet.writeContract({ address: getAddress(token!), abi: ERC20_ABI, functionName: 'transfer', args: [getAddress(to!), 7_000_000n], chain: null });
    const hash = await wallet.writeContract({ address: getAddress(token!), abi: ERC20_ABI, functionName: 'transfer', args: [getAddress(to!), BigInt(units!)], chain: null });

    await app.waitFor(/› found +7\.00 USDC[\s\S]* {2}found +25\.00 USDC from 0xf39F…2266/, 20_000);
    expect(app.screenText()).toContain(`${hash.slice(0, 6)}…${hash.slice(-4)}`);
    // Keys in one read (key repeat, ssh): three tabs then f act in order: the second transfer is verified.
    app.write('\t\t\tf');
    await app.waitFor('Credited $25.00', 20_000);
    await app.waitFor('$109.20 left');
    // The hash was never typed; the credited dialog shows it whole (never cut).
    expect(app.screenText()).toContain(hash);

    app.write('\r');
    app.write('q');
    expect((await app.exited).exitCode).toBe(0);
    // anvil stopped with the sandbox.
    await expect(fetch(rpcUrl, { method: 'POST', body: '{}', signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  });
});
