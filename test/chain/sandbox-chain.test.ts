/**
 * The sandbox on a real chain: `POST /sandbox/chain/transfers` makes a token
 * transfer on anvil, and verify-topup reads its receipt, refusing what the real service would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox({ chain: {} });
}, 30_000);
afterAll(async () => {
  await sb?.close();
});

const verify = (token: string, txHash: string, amount: number) => sb.call('POST', '/api/billing/verify-topup', { token, body: { txHash, amount } });

describe('the sandbox with --chain anvil', () => {
  it('names its chain at GET /sandbox/chain', async () => {
    const reply = await sb.call('GET', '/sandbox/chain');
    expect(reply.body).toMatchObject({ rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), chainId: 8453, token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' });
  });

  it('credits a real transfer once, for its exact amount', async () => {
    const user = await sb.newUser();
    const address = await sb.usdcInstruction(user, 25);
    const tx = await sb.transfer(address, '25');
    expect((await verify(user, tx, 20)).body.error.code).toBe('amount_mismatch');
    const credited = await verify(user, tx, 25);
    expect(credited.status).toBe(200);
    expect(credited.body.data).toEqual({ credited: 25, balance: 25 });
    expect((await verify(user, tx, 25)).body.error.code).toBe('tx_already_used');
  });

  it('does not find a transfer to another user’s address, nor a hash the chain never saw', async () => {
    const payer = await sb.newUser();
    const other = await sb.newUser();
    const tx = await sb.transfer(await sb.usdcInstruction(other, 10), '10');
    expect((await verify(payer, tx, 10)).body.error.code).toBe('not_found');
    expect((await verify(payer, `0x${'77'.repeat(32)}`, 10)).body.error.code).toBe('not_found');
    expect((await verify(other, tx, 10)).status).toBe(200);
  });

  it('makes transfers asked for at once, each its own transaction, each credited', async () => {
    // The payer's transactions are numbered by the node: sends at once used to get the same nonce,
    // and all but one failed with HTTP 500 (the USDC step's concurrent tests, on a busy machine).
    const user = await sb.newUser();
    const amounts = [10, 11, 12, 13, 14, 15, 16, 17];
    const addresses = await Promise.all(amounts.map((amount) => sb.usdcInstruction(user, amount)));
    const hashes = await Promise.all(amounts.map((amount, i) => sb.transfer(addresses[i]!, String(amount))));
    expect(new Set(hashes).size).toBe(amounts.length);
    for (const [i, amount] of amounts.entries()) expect((await verify(user, hashes[i]!, amount)).status).toBe(200);
    expect((await sb.credits(user)).totalTopUp).toBe(108);
  });
});
