/**
 * `keydeck billing verify` and `billing topup --wait` with the chain's word, as the
 * built CLI against a sandbox on a real anvil chain: a mismatch is its sentence and nothing is
 * sent without `--yes`; a matching transfer is verified; `--find` and `--wait` find the transfer
 * without a hash; `--no-chain` and an unreachable RPC leave the service's verdict alone.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { scripted, type Scripted } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
beforeAll(async () => {
  sb = await startTestSandbox({ chain: {} });
  cli = scripted(sb.url);
}, 30_000);
afterAll(async () => {
  cli?.home.remove();
  await sb?.close();
});

async function instruction(user: string, amount: string, on: Scripted = cli): Promise<string> {
  const r = await on.run(user, ['billing', 'topup', '--amount', amount, '--method', 'usdc', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).address as string;
}

describe('billing verify on a real chain', () => {
  it('a short transfer: the chain’s sentence, nothing sent without --yes, the balance untouched', async () => {
    const user = await sb.newUser();
    const address = await instruction(user, '25');
    const tx = await sb.transfer(address, '24.5');
    const refused = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '25']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('keydeck: chain_mismatch: 24.50 USDC arrived, the top-up is for 25.00: verify with 24.50 or top up again. Nothing was sent;');
    expect(refused.stderr).toContain(`keydeck billing verify --tx ${tx} --amount 25 --yes`);
    expect((await sb.credits(user)).totalTopUp).toBe(0);
    // --yes: the service decides (it refuses the amount, as the chain said).
    const asked = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '25', '--yes']);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toMatch(/^warning: chain: 24\.50 USDC arrived/m);
    expect(asked.stderr).toMatch(/^keydeck: amount_mismatch: /m);
    // The amount the chain shows: checked, then credited.
    const credited = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '24.50']);
    expect(credited.code, credited.stderr).toBe(0);
    expect(credited.stderr).toMatch(/^chain: the chain shows 24\.50 USDC from 0xf39F…2266 to 0x\w{4}…\w{4} in block \d+ \(\d+ confirmations?\)$/m);
    // On the instruction's record (one instruction, one record), said so.
    expect(credited.stdout).toMatch(
      /^The transfer is verified for the one USDC top-up awaiting payment, 25\.00 USD to 0x\w{40}, requested .*, with 24\.50 USD as the amount sent\.\nCredited 24\.50 USD; the balance is now 24\.50 USD\.\n$/,
    );
    // Credited on keydeck's record: said as such; the chain is not asked about it, nor the user.
    const again = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '25']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^keydeck: already_credited: /m);
    expect(again.stderr).not.toMatch(/chain/);
  });

  it('a transfer to another address and an unknown hash: their sentences', async () => {
    const user = await sb.newUser();
    await instruction(user, '10');
    const elsewhere = await sb.transfer('0x000000000000000000000000000000000000dead', '10');
    const wrong = await cli.run(user, ['billing', 'verify', '--tx', elsewhere, '--amount', '10']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/chain_mismatch: USDC went to 0x0000…dEaD, not to the deposit address 0x\w{4}…\w{4}: it cannot be credited to this top-up/);
    const unknown = await cli.run(user, ['billing', 'verify', '--tx', `0x${'5a'.repeat(32)}`, '--amount', '10']);
    expect(unknown.stderr).toMatch(/chain_mismatch: no transaction with this hash on Base: was it sent on another network\?/);
  });

  it('a second verify of the instruction keeps its deposit address and the chain’s recipient check', async () => {
    // A home of its own: the record is the machine's, and other tests leave instructions of 10 USD.
    const own = scripted(sb.url);
    onTestFinished(() => own.home.remove());
    const user = await sb.newUser();
    const address = await instruction(user, '10', own);
    // A first verify with a hash the chain and the service do not know (sent with --yes): not found.
    const first = await own.run(user, ['billing', 'verify', '--tx', `0x${'6b'.repeat(32)}`, '--amount', '10', '--yes']);
    expect(first.stderr).toMatch(/^keydeck: not_found: /m);
    // The second, a transfer that went elsewhere: checked against the instruction's address still.
    const elsewhere = await sb.transfer('0x000000000000000000000000000000000000dead', '10');
    const second = await own.run(user, ['billing', 'verify', '--tx', elsewhere]);
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(/^No --amount given: the one USDC top-up awaiting payment is 10\.00 USD to 0x\w{40}/m);
    expect(second.stderr.toLowerCase()).toContain(
      `chain_mismatch: usdc went to 0x0000…dead, not to the deposit address ${address.slice(0, 6)}…${address.slice(-4)}: it cannot be credited to this top-up`.toLowerCase(),
    );
  });

  it('--no-chain and an unreachable RPC: the service’s verdict alone, said in one line', async () => {
    const user = await sb.newUser();
    const address = await instruction(user, '10');
    const tx = await sb.transfer(address, '10');
    const down = await cli.run(user, ['--chain-rpc', 'http://127.0.0.1:9', 'billing', 'verify', '--tx', tx, '--amount', '12', '--to', address]);
    expect(down.stderr).toMatch(/^warning: the chain could not be read at 127\.0\.0\.1:9 \(it cannot be reached\): going on with the service's verdict alone$/m);
    expect(down.stderr).toMatch(/^keydeck: amount_mismatch: /m);
    const off = await cli.run(user, ['--no-chain', 'billing', 'verify', '--tx', tx, '--amount', '10']);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).not.toMatch(/chain/);
    const badRpc = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '10'], { KEYDECK_CHAIN_RPC: 'http://rpc.example.com' });
    expect(badRpc.code).toBe(2);
    expect(badRpc.stderr).toMatch(/invalid_chain_rpc: The chain RPC URL of KEYDECK_CHAIN_RPC must use https:\/\//);
  });

  it('topup --wait settles its flags and where the chain is read before anything is sent', async () => {
    const user = await sb.newUser();
    const badTimeout = await cli.run(user, ['billing', 'topup', '--amount', '15', '--method', 'usdc', '--wait', '--timeout', 'soon']);
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toContain('--timeout: a whole number of seconds, at least 1; nothing was sent.');
    const noChain = await cli.run(user, ['--no-chain', 'billing', 'topup', '--amount', '15', '--method', 'usdc', '--wait']);
    expect(noChain.code).toBe(2);
    expect(noChain.stderr).toMatch(/the chain is not read \(.*\), so the transfer cannot be found: .*; nothing was sent\./);
    const card = await cli.run(user, ['billing', 'topup', '--amount', '15', '--method', 'card_checkout', '--wait']);
    expect(card.code).toBe(2);
    expect(card.stderr).toContain('--wait watches USDC transfers on chain, and card_checkout is not USDC; nothing was sent.');
    // Nothing reached the service: no top-up awaits payment for this user.
    expect((await sb.call('GET', '/api/billing/status', { token: user })).body.data.pendingTopUps).toEqual([]);
  });

  it('topup --wait finds the transfer on chain and verifies it: no hash typed', async () => {
    const user = await sb.newUser();
    const waiting = cli.start(user, ['billing', 'topup', '--amount', '15', '--method', 'usdc', '--wait', '--timeout', '60']);
    await waiting.waitForStderr(/^Watching (0x[0-9a-fA-F]{40}) for USDC on Base/m);
    const address = /^Watching (0x[0-9a-fA-F]{40})/m.exec(waiting.stderr())![1]!;
    const tx = await sb.transfer(address, '15');
    expect(await waiting.exited).toBe(0);
    expect(waiting.stderr()).toContain(`Found: 15.00 USDC from 0xf39F…2266 · ${tx} · `);
    expect(waiting.stdout()).toMatch(/Credited 15\.00 USD; the balance is now 15\.00 USD\.\n$/);
  });

  it('verify --find picks the awaiting top-up, never offers a credited transfer again, and lists several', async () => {
    const user = await sb.newUser();
    // A home of its own: the other tests' top-ups still await payment on the shared record.
    const cli = scripted(sb.url);
    onTestFinished(() => cli.home.remove());
    const address = await instruction(user, '20', cli);
    const first = await sb.transfer(address, '20');
    const found = await cli.run(user, ['billing', 'verify', '--find', '--timeout', '30']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr).toContain(`Found: 20.00 USDC from 0xf39F…2266 · ${first} · `);
    const none = await cli.run(user, ['billing', 'verify', '--find']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no USDC top-up awaits payment on keydeck's record/);
    // Two transfers to one new deposit address: listed, nothing sent without a terminal.
    const second = await instruction(user, '10', cli);
    const a = await sb.transfer(second, '10');
    const b = await sb.transfer(second, '10');
    const several = await cli.run(user, ['billing', 'verify', '--find', '--amount', '10', '--timeout', '30']);
    expect(several.code).toBe(1);
    expect(several.stderr).toMatch(/^1\. 10\.00 USDC/m);
    expect(several.stderr).toContain(`keydeck billing verify --tx ${a} --amount 10.00`);
    expect(several.stderr).toContain(`keydeck billing verify --tx ${b} --amount 10.00`);
    expect((await sb.credits(user)).totalTopUp).toBe(20);
  });

  it('verify --find honours --to: of two top-ups of one amount, the one whose deposit address it names', async () => {
    const user = await sb.newUser();
    const cli = scripted(sb.url);
    onTestFinished(() => cli.home.remove());
    const first = await instruction(user, '12', cli);
    const second = await instruction(user, '12', cli);
    expect(second).not.toBe(first);
    // Both await 12 USD: --amount cannot say which, --to can.
    const ambiguous = await cli.run(user, ['billing', 'verify', '--find', '--amount', '12', '--timeout', '5']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/several USDC top-ups await payment \(12\.00 USD to 0x\w{40}; 12\.00 USD to 0x\w{40}\): say which with --to ADDRESS\./);
    const tx = await sb.transfer(second, '12');
    const found = await cli.run(user, ['billing', 'verify', '--find', '--to', second.toLowerCase(), '--timeout', '30']);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr.toLowerCase()).toContain(`watching ${second.toLowerCase()} for usdc on base`);
    expect(found.stderr).toContain(tx);
    expect((await sb.credits(user)).totalTopUp).toBe(12);
    // The first still awaits payment; an address no top-up awaits is said so.
    const other = await cli.run(user, ['billing', 'verify', '--find', '--to', `0x${'1'.repeat(40)}`]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/no USDC top-up to 0x1{40} awaits payment on keydeck's record/);
  });
});
