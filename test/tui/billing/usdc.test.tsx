/**
 * The USDC walk-through from amount to credited balance, against the sandbox: the amount
 * refused inline, the EIP-55 address and the QR code on screen, the hash checked as typed, and
 * each refusal in words: amount mismatch (then fixed with the amount actually sent), a hash the
 * journal saw credited (no request), a hash the service says was used, a hash not found yet; and
 * the outcomes another keydeck process writes to the shared record, shown at the next refresh.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toChecksumAddress, usdcTransferUri } from '../../../src/billing/eip681.js';
import { TopUpJournal } from '../../../src/billing/journal.js';
import { qrLines } from '../../../src/tui/flows/topup/qr.js';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { KEYS, openBilling, recordingDeps, sandboxPost, shownAddress, startUsdcTopUp, tempJournal } from './billingHarness.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Sends a simulated transfer of `amount` to `to`; returns its hash. */
async function transfer(to: string, amount: string): Promise<string> {
  return (await sandboxPost<{ txHash: string }>(sandbox, '/sandbox/chain/transfers', { to, amount })).txHash;
}

describe('USDC walk-through', () => {
  it('refuses a bad amount inline, then shows the EIP-55 address, the warning and a QR code of the EIP-681 request', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal), columns: 120, rows: 40 });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await tui.press('t');
      await tui.waitFor('1/3 amount');
      await tui.type('5');
      await tui.waitFor('✕ the minimum top-up is 10 USD');
      await tui.press(KEYS.enter);
      expect(tui.lastFrame()).toContain('1/3 amount');
      await tui.press(KEYS.backspace);
      await tui.type('10.001');
      await tui.waitFor('✕ at most two decimals');
      await tui.press(KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace);
      await tui.type('12.50');
      await tui.press(KEYS.enter);
      await tui.waitFor('2/3 method · $12.50');
      await tui.press(KEYS.enter);
      const frame = await tui.waitFor('To address');
      const address = shownAddress(frame)!;
      expect(address).toBe(toChecksumAddress(address.toLowerCase()));
      expect(frame).toContain('Send exactly  12.5 USDC');
      expect(frame).toContain('Send USDC on the Base network only');
      expect(frame).toContain('chain id 8453');
      // The QR code on screen is exactly the one of the EIP-681 URI (NO_COLOR rendering in tests),
      // which test/billing/eip681.test.ts decodes back to the URI.
      const uri = usdcTransferUri({ address, amount: '12.5' });
      expect(uri).toContain('uint256=12500000');
      for (const line of qrLines(uri, { lightDrawn: true })) expect(frame).toContain(line);
      // c and a copy the address and the amount.
      await tui.press('c', 'a');
      expect(screen.services.copies).toEqual([address, '12.5']);
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('checks the hash as typed, explains an amount mismatch, and credits with the amount actually sent', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      const address = shownAddress(await startUsdcTopUp(tui, '20'))!;
      // The user sent 19.5 instead of 20.
      const hash = await transfer(address, '19.5');
      await tui.press('h');
      await tui.waitFor('tx hash:');
      await tui.type('0x12');
      await tui.waitFor('✕ 2 of 64 hex digits');
      await tui.type('zz');
      await tui.waitFor('✕ only hex digits');
      await tui.press(KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace);
      await tui.press(hash); // pasted at once
      await tui.waitFor('✓ a valid transaction hash');
      // One digit too many is refused with its count, never cut to 64 and sent.
      await tui.type('a');
      await tui.waitFor('✕ 65 of 64 hex digits: 1 too many');
      await tui.press(KEYS.enter);
      await tui.waitFor('✕ 65 of 64 hex digits');
      expect((await journal.list())[0]).toMatchObject({ state: 'awaiting_payment' });
      expect((await journal.list())[0]!.txHash).toBeUndefined();
      await tui.press(KEYS.backspace);
      await tui.waitFor('✓ a valid transaction hash');
      await tui.press(KEYS.enter);
      let frame = await tui.waitFor('Refused: the amount must equal what was sent');
      expect(frame).toContain('press e');
      // Refused for this amount only: the instruction still awaits its payment (one instruction, one record).
      expect(frame.replace(/[│\s]+/g, ' ')).toContain('still awaits its payment');
      expect((await journal.list())[0]).toMatchObject({ state: 'awaiting_payment', reasonCode: 'amount_mismatch', txHash: hash });
      await tui.press('e');
      await tui.waitFor('amount you sent, USD:');
      // A transfer that can never be credited says so, and what to do.
      await tui.type('9.5');
      await tui.waitFor((f) => f.replace(/[│\s]+/g, ' ').includes('a transfer of 9.5 USDC is below the 10 USD minimum top-up, so the service can never credit it'));
      await tui.press(KEYS.backspace, KEYS.backspace, KEYS.backspace);
      await tui.type('19.50');
      await tui.press(KEYS.enter);
      await tui.waitFor('will be verified for $19.50');
      await tui.press('h');
      await tui.waitFor('✓ a valid transaction hash');
      await tui.press(KEYS.enter);
      frame = await tui.waitFor('Credited $19.50');
      expect(frame).toContain('New balance $19.50');
      expect((await journal.list())[0]).toMatchObject({ state: 'credited', credited: 19.5, balance: 19.5 });
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('never submits a hash the journal saw credited, and explains the service’s "already used" and "not found yet"', async () => {
    const { journal, cleanup } = tempJournal();
    const token = await sandbox.newUser();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await startUsdcTopUp(tui, '10');
      await tui.press('s');
      await tui.waitFor('Simulated transfer');
      await tui.press(KEYS.enter);
      await tui.waitFor('Credited $10.00');
      const credited = (await journal.list())[0]!;
      await tui.press(KEYS.enter);

      // The same hash again: the journal answers, nothing is sent.
      await startUsdcTopUp(tui, '10');
      await tui.press('h');
      await tui.press(credited.txHash!);
      await tui.press(KEYS.enter);
      let frame = await tui.waitFor('Already credited');
      expect(frame).toContain('Nothing was sent');
      expect((await journal.list())[0]).toMatchObject({ state: 'awaiting_payment' });
      expect((await journal.list())[0]).not.toHaveProperty('txHash');

      // A hash credited outside keydeck (its journal never saw it): the service refuses it.
      const c = sandbox.client(token);
      const other = await c.billing.topUp({ amount: 10, method: 'usdc' });
      if (other.method !== 'usdc') throw new Error('expected usdc');
      const outside = await transfer(other.data.address, '10');
      await c.billing.verifyTopUp({ txHash: outside, amount: 10 });
      c.close();
      await tui.press('h');
      await tui.paste(outside); // pasted onto the previous hash: replaces it
      await tui.waitFor('✓ a valid transaction hash');
      await tui.press(KEYS.enter);
      frame = await tui.waitFor('this transaction hash was already used');
      // Another top-up's transfer: refused for this one, which still awaits its payment.
      expect(frame.replace(/[│\s]+/g, ' ')).toContain('still awaits its payment');
      expect((await journal.list())[0]).toMatchObject({ state: 'awaiting_payment', reasonCode: 'tx_already_used' });

      // A hash unknown to the chain: not found yet, the top-up stays open, nothing retried.
      await tui.press('h');
      await tui.paste(`0x${'ab'.repeat(32)}`);
      await tui.waitFor('✓ a valid transaction hash');
      await tui.press(KEYS.enter);
      frame = await tui.waitFor('Not found yet');
      expect(frame).toContain('never retries it by itself');
      expect((await journal.list())[0]).toMatchObject({ state: 'awaiting_payment', reasonCode: 'not_found' });
      await tui.waitFor('$20.00 left');
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('shows the outcomes another process writes to the record at the next refresh: credited after the poll that saw the total rise, refused with no rise', async () => {
    const { journal, file, cleanup } = tempJournal();
    const token = await sandbox.newUser();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal), columns: 100, rows: 30 });
    const { tui } = screen;
    // `keydeck billing verify` in another shell: the same record file, another process's copy.
    const other = new TopUpJournal({ path: file });
    const host = new URL(sandbox.url).host;
    try {
      await tui.waitFor('remaining $0.00');
      const address = await sandbox.usdcInstruction(token, 25);
      const txHash = await transfer(address, '25');
      const entry = await other.add({ amount: 25, method: 'usdc', state: 'verifying', host, profile: 'test', address, txHash, baselineTotalTopUp: 0 });
      // The service credits it, and a poll sees the total rise before the other process has
      // written the outcome: the record still says verifying.
      await sandboxPost(sandbox, '/api/billing/verify-topup', { txHash, amount: 25 }, token);
      await tui.press('r');
      await tui.waitFor(/\$25\.00 +USDC on Base +verifying/);
      // The outcome lands on the record; the total does not change again.
      await other.update(entry.id, { state: 'credited', credited: 25 });
      await tui.press('r');
      await tui.waitFor(/\$25\.00 +USDC on Base +credited/);
      // A refusal in the other shell moves no total at all.
      const refused = await other.add({ amount: 40, method: 'usdc', state: 'verifying', host, profile: 'test', address, txHash: `0x${'d'.repeat(64)}`, baselineTotalTopUp: 25 });
      await other.update(refused.id, { state: 'refused', reason: 'amount_mismatch' });
      await tui.press('r');
      await tui.waitFor(/\$40\.00 +USDC on Base +refused \(amount_mismatch\)/);
    } finally {
      other.close();
      screen.close();
      cleanup();
    }
  });

  it('never invites paying twice: a top-up a transfer was named for reopens as "verify it", with no "Send exactly"', async () => {
    const { journal, cleanup } = tempJournal();
    const token = await sandbox.newUser();
    const address = toChecksumAddress(await sandbox.usdcInstruction(token, 25));
    const host = new URL(sandbox.url).host;
    // A verify of a hash the service did not find yet: the instruction awaits payment with that hash.
    const entry = await journal.add({ amount: 25, method: 'usdc', state: 'awaiting_payment', host, profile: 'test', address, chain: 'base', instructedAmount: '25' });
    await journal.update(entry.id, { txHash: `0x${'ab'.repeat(32)}`, reasonCode: 'not_found', reason: 'not found yet (may still be confirming)' });
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      // A line of the pane, selected: enter takes it up.
      await tui.waitFor('⚠ top-up of $25.00 sent, not credited yet · enter verifies it');
      await tui.press(KEYS.enter);
      let frame = await tui.waitFor('A transfer was named for this top-up');
      expect(frame).toContain('Amount        25 USDC');
      expect(frame).not.toContain('Send exactly');
      await tui.press(KEYS.esc);
      await tui.waitFor('top-up in progress: $25.00');
      // A new top-up started and cancelled: the pane names the one left unfinished.
      await tui.press('t');
      await tui.waitFor(/amount/i);
      await tui.press(KEYS.esc);
      frame = await tui.waitFor('sent, not credited yet');
      expect(frame).toContain('⚠ top-up of $25.00 sent, not credited yet · enter verifies it');
      expect(frame).not.toContain('finish it');
    } finally {
      screen.close();
      cleanup();
    }
  });
});
