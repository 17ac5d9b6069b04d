/**
 * The money-state rules, unit by unit: what the billing status and a card charge's
 * answer say about one top-up (read only when recognisable); the verify procedure shared by the
 * TUI and the commands, outcome by outcome, against a scripted client (what it sends, what the
 * record says after); one amount rule and one hash check; the checkout link rule.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkoutUrlProblem, isLoopbackHost } from '../../src/api/baseUrl.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import type { CreditBalance, VerifiedTopUp } from '../../src/api/schemas.js';
import { directChargeEvidence, paymentEvidence, unexplainedRise } from '../../src/billing/evidence.js';
import { parseUsdAmount, txHashProblem } from '../../src/billing/input.js';
import { TopUpJournal, type JournalEntry } from '../../src/billing/journal.js';
import { checkCardPayments, recordForVerify, recordTopUp, type TopUpClient, type TopUpPorts } from '../../src/billing/topups.js';
import { verifyUsdc } from '../../src/operations/verify.js';
import { usedHashVerdict } from '../../src/billing/usedHash.js';

const HASH = `0x${'ab'.repeat(32)}`;
const SCOPE = { host: 'api.example.com', profile: 'default' };

let dir: string;
let journal: TopUpJournal;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'keydeck-topups-'));
  journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
});
afterEach(async () => {
  journal.close();
  await rm(dir, { recursive: true, force: true });
});

/** A client whose answers are scripted; records what was sent. */
function scriptedClient(script: { totals: number[]; verify: Array<VerifiedTopUp | Error>; status?: unknown }): TopUpClient & { sent: string[] } {
  const sent: string[] = [];
  const credits = (totalTopUp: number): CreditBalance => ({ totalTopUp, remaining: totalTopUp, hasCreditKey: true, creditKeyCount: 1, userId: 'u' });
  return {
    sent,
    billing: {
      async credits() {
        sent.push('getCredits');
        const next = script.totals.shift();
        if (next === undefined) throw new KeydeckApiError('network_error', 'no answer (scripted).');
        return credits(next);
      },
      async verifyTopUp(input) {
        sent.push(`verify ${input.txHash.slice(0, 6)} ${input.amount}`);
        const next = script.verify.shift();
        if (!next) throw new Error('unexpected verify');
        if (next instanceof Error) throw next;
        return next;
      },
      async status() {
        sent.push('status');
        return script.status;
      },
    },
  };
}

const lost = () => new KeydeckApiError('timeout', 'The service did not answer within 3 s after the request to verify the top-up was sent.', { outcomeUnknown: true });
const refusedWith = (code: 'tx_already_used' | 'amount_mismatch' | 'not_found' | 'rate_limited') => new KeydeckApiError(code, `refused: ${code}.`, { status: 409 });

async function usdcAwaiting(amount = 25, address = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'): Promise<JournalEntry> {
  return (
    await recordTopUp(journal, SCOPE, amount, {
      method: 'usdc',
      wireMethod: 'usdc',
      data: { address, chain: 'base', amount: String(amount) },
      instructedAmount: amount,
      amountDiffers: false,
    })
  ).entry;
}

describe('verifyUsdc: credited only on evidence that names the top-up', () => {
  it('the verify answer for its hash: credited, with what the service credited; the baseline was on record before it was sent', async () => {
    const entry = await usdcAwaiting();
    const client = scriptedClient({ totals: [50], verify: [{ credited: 25, balance: 75 }] });
    const outcome = await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 });
    expect(outcome).toMatchObject({ kind: 'credited', credited: 25, balance: 75, byEarlierVerify: false });
    expect(client.sent).toEqual(['getCredits', 'status', 'verify 0xabab 25']);
    expect(await journal.get(entry.id)).toMatchObject({
      state: 'credited',
      credited: 25,
      balance: 75,
      txHash: HASH,
      evidence: 'the service’s answer to verifying this transaction hash says it was credited',
    });
  });

  it('an answer lost: verifying (with the baseline kept); then tx_already_used with the total risen by its amount: credited', async () => {
    const entry = await usdcAwaiting();
    const ports: TopUpPorts = { journal, client: scriptedClient({ totals: [50, 90, 75], verify: [lost(), refusedWith('tx_already_used')] }), scope: SCOPE };
    expect((await verifyUsdc(ports, { entryId: entry.id, txHash: HASH, amount: 25 })).kind).toBe('unknown');
    expect(await journal.get(entry.id)).toMatchObject({ state: 'verifying', verifyBaselineTotalTopUp: 50, reasonCode: 'outcome_unknown' });
    // A restart: a new record instance, the same file.
    journal.close();
    const outcome = await verifyUsdc({ ...ports, journal }, { entryId: entry.id, txHash: HASH, amount: 25 });
    // 90 read before the second verify is not the baseline: the first verify's 50 is.
    expect(outcome).toMatchObject({ kind: 'credited', credited: 25, balance: 75, byEarlierVerify: true });
    const after = (await journal.get(entry.id))!;
    expect(after).toMatchObject({ state: 'credited', credited: 25 });
    expect(after.evidence).toMatch(/tx_already_used for this hash after keydeck’s own earlier verification/);
    expect(after).not.toHaveProperty('verifyBaselineTotalTopUp');
  });

  it('tx_already_used after an unknown verify, but the total rose by less than its amount: refused (another top-up used it)', async () => {
    const entry = await usdcAwaiting();
    const client = scriptedClient({ totals: [50, 50, 60], verify: [lost(), refusedWith('tx_already_used')] });
    await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 });
    const outcome = await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 });
    expect(outcome.kind).toBe('refused');
    expect((await journal.get(entry.id))!.reason).toMatch(/rose by only \$10\.00 since keydeck’s earlier verification/);
  });

  it('tx_already_used after an unknown verify, and the balance cannot be read: still verifying, nothing claimed', async () => {
    const entry = await usdcAwaiting();
    const client = scriptedClient({ totals: [50, 50], verify: [lost(), refusedWith('tx_already_used')] });
    await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 });
    const outcome = await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 });
    expect(outcome.kind).toBe('used_unconfirmed');
    expect((await journal.get(entry.id))!.state).toBe('verifying');
  });

  it('tx_already_used without an earlier unknown verify of its own: refused for this top-up, an instruction still awaits its payment', async () => {
    const entry = await usdcAwaiting();
    const outcome = await verifyUsdc({ journal, client: scriptedClient({ totals: [50], verify: [refusedWith('tx_already_used')] }), scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 });
    expect(outcome.kind).toBe('refused');
    expect((await journal.get(entry.id))!).toMatchObject({
      state: 'awaiting_payment',
      reasonCode: 'tx_already_used',
      reason: 'this transaction hash was already used for another top-up: it does not pay this one',
    });
    // A verify keydeck recorded on its own (no instruction open): refused.
    await journal.update(entry.id, { state: 'closed' });
    const bare = await verifyUsdc({ journal, client: scriptedClient({ totals: [50], verify: [refusedWith('tx_already_used')] }), scope: SCOPE }, { txHash: `0x${'cd'.repeat(32)}`, amount: 40 });
    expect(bare.kind === 'refused' && bare.entry).toMatchObject({ state: 'refused', reasonCode: 'tx_already_used' });
  });

  it('amount_mismatch: refused, the instruction still awaits payment, the amount tried dropped; verified again with the amount sent: credited', async () => {
    const entry = await usdcAwaiting(20);
    const client = scriptedClient({ totals: [0, 0, 0], verify: [refusedWith('amount_mismatch'), refusedWith('amount_mismatch'), { credited: 19.5, balance: 19.5 }] });
    expect((await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 20 })).kind).toBe('refused');
    expect((await journal.get(entry.id))!.state).toBe('awaiting_payment');
    expect((await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 19 })).kind).toBe('refused');
    expect((await journal.get(entry.id))!).toMatchObject({ state: 'awaiting_payment', reasonCode: 'amount_mismatch' });
    expect((await journal.get(entry.id))!).not.toHaveProperty('amountSent');
    expect(await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 19.5 })).toMatchObject({ kind: 'credited', credited: 19.5 });
    expect(await journal.get(entry.id)).toMatchObject({ state: 'credited', amountSent: 19.5, credited: 19.5 });
  });

  it('not_found: back to awaiting payment; another answered failure after an unknown verify keeps it verifying', async () => {
    const entry = await usdcAwaiting();
    const client = scriptedClient({ totals: [0, 0, 0], verify: [refusedWith('not_found'), lost(), refusedWith('rate_limited')] });
    expect((await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 })).kind).toBe('not_found');
    expect((await journal.get(entry.id))!.state).toBe('awaiting_payment');
    expect((await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 })).kind).toBe('unknown');
    expect((await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 })).kind).toBe('failed');
    expect((await journal.get(entry.id))!).toMatchObject({ state: 'verifying', reasonCode: 'rate_limited' });
  });

  it('a hash credited on record is never sent again; without a baseline nothing is sent', async () => {
    const entry = await usdcAwaiting();
    const client = scriptedClient({ totals: [0], verify: [{ credited: 25, balance: 25 }] });
    await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: entry.id, txHash: HASH, amount: 25 });
    const other = await usdcAwaiting(30);
    client.sent.length = 0;
    expect((await verifyUsdc({ journal, client, scope: SCOPE }, { entryId: other.id, txHash: HASH.toUpperCase().replace('0X', '0x'), amount: 30 })).kind).toBe('already_credited');
    expect(client.sent).toEqual([]);
    // The balance cannot be read: the verify is not sent (nothing to recognise it by later).
    const third = scriptedClient({ totals: [], verify: [] });
    const outcome = await verifyUsdc({ journal, client: third, scope: SCOPE }, { entryId: other.id, txHash: `0x${'cd'.repeat(32)}`, amount: 30 });
    expect(outcome.kind).toBe('not_sent');
    expect(third.sent).toEqual(['getCredits']);
    expect((await journal.get(other.id))!.state).toBe('awaiting_payment');
  });

  it('from the command line: finds the record by hash, else the one USDC top-up awaiting this amount, else records a new one', async () => {
    const waiting = await usdcAwaiting(25);
    const client = scriptedClient({
      totals: [0, 0],
      verify: [
        { credited: 25, balance: 25 },
        { credited: 40, balance: 65 },
      ],
    });
    await verifyUsdc({ journal, client, scope: SCOPE }, { txHash: HASH, amount: 25 });
    expect((await journal.get(waiting.id))!.state).toBe('credited');
    const other = `0x${'ef'.repeat(32)}`;
    await verifyUsdc({ journal, client, scope: SCOPE }, { txHash: other, amount: 40 });
    const list = await journal.list();
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ method: 'usdc', amount: 40, state: 'credited', txHash: other });
  });
});

describe('one instruction is one record, whatever the number of verifies', () => {
  const A = `0x${'a1'.repeat(32)}`;
  const B = `0x${'b2'.repeat(32)}`;

  it('new hashes stay on the instruction: the earlier ones kept, the deposit address kept; found again by an earlier hash', async () => {
    const entry = await usdcAwaiting();
    const client = scriptedClient({ totals: [0, 0, 0, 0], verify: [refusedWith('not_found'), refusedWith('not_found'), { credited: 25, balance: 25 }] });
    const ports = { journal, client, scope: SCOPE };
    expect((await verifyUsdc(ports, { txHash: A, amount: 25 })).kind).toBe('not_found');
    expect((await verifyUsdc(ports, { txHash: B, amount: 25 })).kind).toBe('not_found');
    expect((await verifyUsdc(ports, { txHash: HASH, amount: 25 })).kind).toBe('credited');
    const all = await journal.list();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ id: entry.id, state: 'credited', txHash: HASH, triedHashes: [A, B], address: entry.address });
    // An earlier hash finds the same record, and is not taken for the one that credited it.
    expect((await journal.withHash(A, SCOPE)).map((e) => e.id)).toEqual([entry.id]);
    expect(await journal.creditedWithHash(A, SCOPE)).toBeUndefined();
    expect((await journal.creditedWithHash(HASH, SCOPE))?.id).toBe(entry.id);
  });

  it('a verify with no instruction that credits nothing is refused, never left awaiting payment; verified again by its hash', async () => {
    const client = scriptedClient({ totals: [0, 0], verify: [refusedWith('not_found'), { credited: 30, balance: 30 }] });
    const ports = { journal, client, scope: SCOPE };
    const first = await verifyUsdc(ports, { txHash: A, amount: 30 });
    expect(first.kind).toBe('not_found');
    expect(first.entry).toMatchObject({ state: 'refused', reasonCode: 'not_found' });
    expect(await journal.unfinished(SCOPE)).toEqual([]);
    expect((await verifyUsdc(ports, { txHash: A, amount: 30 })).kind).toBe('credited');
    expect(await journal.list()).toEqual([expect.objectContaining({ id: first.entry!.id, state: 'credited' })]);
  });

  it('another hash while the verify of one has no known outcome: nothing is sent (the first may have credited it)', async () => {
    const entry = await usdcAwaiting();
    const client = scriptedClient({ totals: [0, 0], verify: [lost()] });
    const ports = { journal, client, scope: SCOPE };
    expect((await verifyUsdc(ports, { entryId: entry.id, txHash: A, amount: 25 })).kind).toBe('unknown');
    client.sent.length = 0;
    const other = await verifyUsdc(ports, { txHash: B, amount: 25 });
    expect(other.kind).toBe('not_sent');
    expect(String((other as { error: Error }).error.message)).toMatch(new RegExp(`sent for verification with ${A}, .*verify ${A} again first`));
    expect(client.sent).toEqual(['getCredits', 'status']);
    expect((await journal.get(entry.id))!).toMatchObject({ state: 'verifying', txHash: A });
  });

  it('several instructions of the amount: none is picked (the command asks), unless they share one address (the newest); a closed top-up can be verified again', async () => {
    const one = await usdcAwaiting();
    const other = await usdcAwaiting(25, '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359');
    const client = scriptedClient({
      totals: [0, 0, 0],
      verify: [
        { credited: 25, balance: 25 },
        { credited: 25, balance: 50 },
      ],
    });
    const ports = { journal, client, scope: SCOPE };
    expect(await recordForVerify(ports, A, 25)).toEqual({ ambiguous: [other, one] });
    expect((await verifyUsdc(ports, { txHash: A, amount: 25 })).kind).toBe('not_sent');
    expect(client.sent).toEqual([]);
    // One address (a service with one deposit address per account): a transfer cannot tell them apart.
    const again = await usdcAwaiting();
    expect((await recordForVerify(ports, A, 25, one.address)).entry?.id).toBe(again.id);
    await journal.update(one.id, { state: 'closed' });
    expect((await verifyUsdc(ports, { entryId: one.id, txHash: A, amount: 25 })).kind).toBe('credited');
  });
});

describe('card top-ups: credited only when the service names them', () => {
  const checkout = (sessionUrl = 'https://pay.example.com/c/cs_1') =>
    recordTopUp(journal, SCOPE, 15, { method: 'card_checkout', wireMethod: 'card_checkout', data: { sessionId: 'cs_1', sessionUrl } }, 100);

  it('the sandbox’s status: pending keeps it waiting; naming the session succeeded credits it, with the amount it names', async () => {
    const { entry } = await checkout();
    const pending = {
      pendingTopUps: [{ method: 'card_checkout', status: 'pending', amount: 15, sessionId: 'cs_1' }],
      recentTopUps: [{ method: 'usdc', status: 'succeeded', amount: 15, txHash: HASH }],
    };
    expect(await checkCardPayments({ journal, client: scriptedClient({ totals: [], verify: [], status: pending }), scope: SCOPE }, [entry])).toEqual([]);
    expect((await journal.get(entry.id))!.state).toBe('awaiting_payment');
    const paid = { pendingTopUps: [], recentTopUps: [{ method: 'card_checkout', status: 'succeeded', amount: 15, sessionId: 'cs_1', completedAt: '2026-01-01T00:00:00Z' }] };
    const changed = await checkCardPayments({ journal, client: scriptedClient({ totals: [], verify: [], status: paid }), scope: SCOPE }, [entry]);
    expect(changed.map((e) => e.state)).toEqual(['credited']);
    expect((await journal.get(entry.id))!).toMatchObject({ state: 'credited', credited: 15, evidence: 'the billing status lists checkout session cs_1 as succeeded (in recentTopUps)' });
  });

  it('reads other recognisable shapes, and claims nothing from what it does not recognise', () => {
    const ref = { sessionId: 'cs_1' };
    expect(paymentEvidence({ data: { payments: [{ session_id: 'cs_1', state: 'PAID' }] } }, ref).kind).toBe('paid');
    expect(paymentEvidence({ completed: [{ checkoutSessionId: 'cs_1', paidAt: '2026-01-01' }] }, ref).kind).toBe('paid');
    expect(paymentEvidence({ open: [{ sessionId: 'cs_1' }] }, ref).kind).toBe('pending');
    // Named, but no word about payment; or another session; or a contradiction: nothing.
    expect(paymentEvidence({ sessions: [{ sessionId: 'cs_1' }] }, ref).kind).toBe('unknown');
    expect(paymentEvidence({ recentTopUps: [{ sessionId: 'cs_2', status: 'succeeded' }] }, ref).kind).toBe('unknown');
    expect(paymentEvidence({ a: [{ sessionId: 'cs_1', status: 'paid' }], b: [{ sessionId: 'cs_1', status: 'pending' }] }, ref).kind).toBe('unknown');
    expect(paymentEvidence('not json', ref).kind).toBe('unknown');
    expect(paymentEvidence({ balance: { totalTopUp: 1e9 } }, ref).kind).toBe('unknown');
    // Bounded: a deep or huge body is cut off, not walked.
    let deep: unknown = { sessionId: 'cs_1', status: 'paid' };
    for (let i = 0; i < 50; i++) deep = { next: deep };
    expect(paymentEvidence(deep, ref).kind).toBe('unknown');
  });

  it('a rise of the total of top-ups that nothing names is a sentence, never a state', () => {
    expect(unexplainedRise('card_checkout', 100, 115)).toBe(
      'The total of top-ups rose by $15.00 since this checkout started: this checkout or another payment; confirm on the checkout page. It is not marked credited until the service names it.',
    );
    expect(unexplainedRise('card_checkout', 100, 100)).toBeUndefined();
    expect(unexplainedRise('card_checkout', undefined, 115)).toBeUndefined();
  });

  it('a card-on-file charge: credited when its answer says so; verifying otherwise', async () => {
    expect(directChargeEvidence({ status: 'succeeded', paymentId: 'pi_1', credited: 15, balance: 40 })).toEqual({ credited: true, amount: 15, balance: 40, paymentId: 'pi_1' });
    expect(directChargeEvidence({ status: 'requires_action', credited: 15 }).credited).toBe(false);
    expect(directChargeEvidence('ok').credited).toBe(false);
    const a = await recordTopUp(journal, SCOPE, 15, { method: 'card_direct', wireMethod: 'card_direct', data: { status: 'succeeded', paymentId: 'pi_1', credited: 15, balance: 40 } });
    expect(a.entry).toMatchObject({ state: 'credited', credited: 15, paymentId: 'pi_1' });
    const b = await recordTopUp(journal, SCOPE, 15, { method: 'card_direct', wireMethod: 'card_direct', data: { id: 'pi_2' } });
    expect(b.entry).toMatchObject({ state: 'verifying', paymentId: 'pi_2' });
    expect(b.problems[0]).toMatch(/does not say that it was credited/);
  });

  it('a checkout link that is not https (or http on loopback) is not kept, and says why', async () => {
    const { entry, problems } = await checkout('javascript:alert(1)');
    expect(entry.sessionUrl).toBeUndefined();
    expect(entry).toMatchObject({ sessionId: 'cs_1', state: 'awaiting_payment', reasonCode: 'checkout_url_refused' });
    expect(problems[0]).toMatch(/^The checkout link from the service was refused \(it is a javascript: link, not https:\/\/\)/);
  });
});

describe('one amount rule and one hash check (TUI and CLI)', () => {
  it('reads plain decimals only, whole cents, 10 to 1,000,000', () => {
    expect(parseUsdAmount('25')).toEqual({ ok: true, amount: 25 });
    expect(parseUsdAmount(' 12.5 ')).toEqual({ ok: true, amount: 12.5 });
    expect(parseUsdAmount('10.00')).toEqual({ ok: true, amount: 10 });
    for (const text of ['$25', '25.', '.5', '1e3', '-10', '1,000', '25 USD']) expect(parseUsdAmount(text)).toMatchObject({ ok: false, code: 'format' });
    expect(parseUsdAmount('10.001')).toMatchObject({ ok: false, code: 'decimals' });
    expect(parseUsdAmount('9.99')).toMatchObject({ ok: false, code: 'minimum' });
    expect(parseUsdAmount('1000000.01')).toMatchObject({ ok: false, code: 'maximum' });
  });

  it('says when a transfer can never be credited, and what to do', () => {
    const below = parseUsdAmount('9.5', 'transfer');
    expect(below).toMatchObject({ ok: false, code: 'uncreditable' });
    expect(!below.ok && below.reason).toMatch(/below the 10 USD minimum top-up, so the service can never credit it .*support.*new transfer of at least 10 USDC/);
    expect(parseUsdAmount('10.005', 'transfer')).toMatchObject({ ok: false, code: 'uncreditable' });
    expect(parseUsdAmount('10.000', 'transfer')).toMatchObject({ ok: false, code: 'decimals' });
  });

  it('counts hex digits both ways and never cuts a hash', () => {
    expect(txHashProblem(HASH)).toBeUndefined();
    expect(txHashProblem(`0x${'a'.repeat(12)}`)).toBe('12 of 64 hex digits');
    expect(txHashProblem(`0x${'a'.repeat(65)}`)).toMatch(/^65 of 64 hex digits: 1 too many/);
    expect(txHashProblem(`0x${'a'.repeat(66)}`)).toMatch(/^66 of 64 hex digits: 2 too many/);
    expect(txHashProblem('ab')).toBe('a transaction hash starts with 0x');
  });
});

describe('the checkout link rule', () => {
  it('accepts https anywhere and http on loopback only', () => {
    for (const ok of ['https://checkout.example.com/c/cs_1', 'http://127.0.0.1:8787/sandbox/checkout/cs_1', 'http://127.9.8.7/x', 'http://localhost:3000/x', 'http://[::1]:8080/x']) {
      expect(checkoutUrlProblem(ok), ok).toBeUndefined();
    }
    for (const bad of [
      'http://checkout.example.com/c',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'https://user:pw@example.com/',
      'not a url',
      '',
      'https://example.com/\u001b[2J',
      `https://example.com/${'a'.repeat(3000)}`,
      'http://128.0.0.1/x',
    ]) {
      expect(checkoutUrlProblem(bad), bad).toMatch(/^The checkout link from the service was refused \(.+\): nothing was shown, copied or opened/);
    }
    expect(checkoutUrlProblem(42)).toMatch(/it is empty/);
    expect(isLoopbackHost('127.0.0.2:80')).toBe(true);
    expect(isLoopbackHost('localhost.example.com')).toBe(false);
  });
});

describe('tx_already_used after keydeck’s own verify whose answer was lost: credited only on evidence naming it (src/billing/usedHash.ts)', () => {
  const credits = (totalTopUp: number): CreditBalance => ({ totalTopUp, remaining: totalTopUp, hasCreditKey: true, creditKeyCount: 1, userId: 'u' });
  const status = (...items: Array<{ ref: string; amount: number }>) => ({
    body: { recentTopUps: items.map((i) => ({ method: 'usdc', status: 'succeeded', amount: i.amount, txHash: i.ref, completedAt: '2026-11-28T03:00:00.000Z' })) },
  });
  const entry = (before?: string[]) => ({ txHash: HASH, verifyBaselineTotalTopUp: 50, ...(before && { verifyBaselineListed: before }) });

  it('the status listed the hash before keydeck’s verify was sent: another top-up used it, whatever the total did', () => {
    expect(usedHashVerdict(entry([HASH]), 25, credits(105), status({ ref: HASH, amount: 25 }))).toMatchObject({
      kind: 'elsewhere',
      reason: expect.stringMatching(/credited before keydeck’s verification was sent/),
    });
  });

  it('the status lists it now and did not then: credited, for the amount it names', () => {
    expect(usedHashVerdict(entry([]), 25, credits(50), status({ ref: HASH, amount: 24.5 }))).toMatchObject({ kind: 'credited', credited: 24.5 });
  });

  it('a rise another listed top-up explains (an unrelated $30 card charge) is not this one', () => {
    const card = { body: { recentTopUps: [{ method: 'card_direct', status: 'succeeded', amount: 30, paymentId: 'pay_1', completedAt: '2026-11-28T03:00:00.000Z' }] } };
    expect(usedHashVerdict(entry([]), 25, credits(80), card)).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/other top-ups the billing status lists since explain \$30\.00/) });
    expect(usedHashVerdict(entry([]), 25, credits(105), card)).toMatchObject({ kind: 'credited', credited: 25 });
    expect(usedHashVerdict(entry([]), 25, credits(60), card)).toMatchObject({ kind: 'elsewhere' });
  });

  it('without the baseline’s listing (a record from before): the rise alone, as before; without the balance: unknown', () => {
    expect(usedHashVerdict(entry(), 25, credits(80), undefined)).toMatchObject({ kind: 'credited', credited: 25 });
    expect(usedHashVerdict(entry([]), 25, credits(80), undefined)).toMatchObject({ kind: 'unknown' });
    expect(usedHashVerdict(entry([]), 25, undefined, status())).toMatchObject({ kind: 'unknown' });
  });
});
