/**
 * The one top-up procedure of the TUI and `billing topup` (src/operations/topUp.ts), step by
 * step against a scripted client and a real top-up record: a card charge is on record, verifying
 * with its totalTopUp baseline, before its request is sent, and the answer (or the failure) is put
 * on that same record; an instruction is recorded with its baseline once answered; nothing is sent
 * when the record cannot be trusted or written for a charge, or the balance cannot be read; every
 * request is sent once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TopUpResult } from '../../src/api/client.js';
import { KeydeckApiError } from '../../src/api/errors.js';
import type { CreditBalance } from '../../src/api/schemas.js';
import { TopUpJournal, type JournalEntry } from '../../src/billing/journal.js';
import { requestTopUp, type TopUpRequestClient, type TopUpStep } from '../../src/operations/topUp.js';

const SCOPE = { host: 'api.example.com', profile: 'default' };

let dir: string;
let journal: TopUpJournal;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-topup-request-'));
  journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
});
afterEach(() => {
  journal.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A client whose top-up answers `answer` (or fails with it); it records what was sent and what the record held when the top-up left. */
function client(answer: (input: { amount: number; method: string }) => TopUpResult | Error, total: number | Error = 40) {
  const sent: string[] = [];
  const onRecordWhenSent: JournalEntry[][] = [];
  const c: TopUpRequestClient = {
    billing: {
      async credits(): Promise<CreditBalance> {
        sent.push('getCredits');
        if (total instanceof Error) throw total;
        return { totalTopUp: total, remaining: 5, hasCreditKey: true, creditKeyCount: 1, userId: 'u' };
      },
      async topUp(input) {
        sent.push(`topUp ${input.method} ${input.amount}`);
        onRecordWhenSent.push(await journal.list());
        const a = answer(input);
        if (a instanceof Error) throw a;
        return a;
      },
      async verifyTopUp() {
        throw new Error('not sent here');
      },
      async status() {
        throw new Error('not sent here');
      },
    },
  };
  return { client: c, sent, onRecordWhenSent };
}

const direct = (data: unknown): TopUpResult => ({ method: 'card_direct', data, wireMethod: 'card_direct' });

describe('a card charge', () => {
  it('is on record, verifying with its baseline, before the request leaves; the answer credits that record', async () => {
    const c = client(() => direct({ status: 'paid', credited: 25, balance: 30, paymentId: 'pi_1' }));
    const steps: TopUpStep[] = [];
    const outcome = await requestTopUp({ journal, client: c.client, scope: SCOPE }, { amount: 25, kind: 'card_direct' }, (s) => steps.push(s));
    expect(steps).toEqual(['checking_record', 'reading_balance', 'recording', 'requesting']);
    expect(c.sent).toEqual(['getCredits', 'topUp card_direct 25']);
    expect(c.onRecordWhenSent[0]).toEqual([expect.objectContaining({ method: 'card_direct', amount: 25, state: 'verifying', baselineTotalTopUp: 40 })]);
    expect(outcome).toMatchObject({ kind: 'answered', problems: [], entry: { state: 'credited', credited: 25, paymentId: 'pi_1', baselineTotalTopUp: 40 } });
    const list = await journal.list();
    expect(list).toHaveLength(1);
    expect(list[0]!.id).toBe(c.onRecordWhenSent[0]![0]!.id);
  });

  it('an answer that does not say credited: still verifying, and said', async () => {
    const c = client(() => direct({ status: 'processing', paymentId: 'pi_2' }));
    const outcome = await requestTopUp({ journal, client: c.client, scope: SCOPE }, { amount: 25, kind: 'card_direct' });
    expect(outcome).toMatchObject({ kind: 'answered', entry: { state: 'verifying', paymentId: 'pi_2' } });
    expect(outcome.kind === 'answered' && outcome.problems.join(' ')).toMatch(/does not say that it was credited/);
  });

  it('its answer lost: still verifying, the reason kept; refused: refused; never sent: closed; each sent once', async () => {
    const cases: Array<[Error, Partial<JournalEntry>, boolean]> = [
      [new KeydeckApiError('timeout', 'The service did not answer in time.', { outcomeUnknown: true }), { state: 'verifying', reasonCode: 'timeout' }, true],
      [new KeydeckApiError('card_declined', 'The card was declined.', { status: 402 }), { state: 'refused', reasonCode: 'card_declined' }, false],
      [new KeydeckApiError('network_error', 'Could not connect.'), { state: 'closed', reasonCode: 'not_sent' }, false],
    ];
    for (const [error, state, unknown] of cases) {
      const c = client(() => error);
      const outcome = await requestTopUp({ journal, client: c.client, scope: SCOPE }, { amount: 25, kind: 'card_direct' });
      expect(outcome).toMatchObject({ kind: 'failed', error, outcomeUnknown: unknown, entry: state });
      expect(c.sent.filter((s) => s.startsWith('topUp'))).toHaveLength(1);
    }
    expect((await journal.list()).map((e) => e.state).sort()).toEqual(['closed', 'refused', 'verifying']);
  });

  it('is never sent when its record cannot be written, nor when the balance cannot be read', async () => {
    const unread = client(() => direct({}), new KeydeckApiError('network_error', 'Could not connect.'));
    expect(await requestTopUp({ journal, client: unread.client, scope: SCOPE }, { amount: 25, kind: 'card_direct' })).toMatchObject({ kind: 'not_requested', step: 'baseline' });
    expect(unread.sent).toEqual(['getCredits']);
    // A data dir that cannot be made (a file is in its way): the record cannot be opened.
    writeFileSync(path.join(dir, 'in-the-way'), '');
    const stuck = new TopUpJournal({ path: path.join(dir, 'in-the-way', 'data', 'topups.db') });
    const c = client(() => direct({}));
    expect(await requestTopUp({ journal: stuck, client: c.client, scope: SCOPE }, { amount: 25, kind: 'card_direct' })).toMatchObject({ kind: 'not_requested', step: 'record' });
    expect(c.sent.filter((s) => s.startsWith('topUp'))).toEqual([]);
    stuck.close();
  });

  it('is never sent when the record cannot be trusted', async () => {
    writeFileSync(path.join(dir, 'topups.db'), 'not an SQLite file at all, but something else entirely'.repeat(20));
    const c = client(() => direct({}));
    const outcome = await requestTopUp({ journal, client: c.client, scope: SCOPE }, { amount: 25, kind: 'card_direct' });
    expect(outcome).toMatchObject({ kind: 'not_requested', step: 'record', error: { code: 'record_damaged' } });
    expect(c.sent).toEqual([]);
  });
});

describe('an instruction', () => {
  it('is recorded once answered, with the baseline, before it is shown; sent with the profile’s name for the method', async () => {
    const c = client(() => ({
      method: 'usdc',
      wireMethod: 'crypto',
      data: { address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', chain: 'base', amount: '25' },
      instructedAmount: 25,
      amountDiffers: false,
    }));
    const outcome = await requestTopUp({ journal, client: c.client, scope: SCOPE }, { amount: 25, kind: 'usdc', method: 'crypto' });
    expect(c.onRecordWhenSent[0]).toEqual([]);
    expect(c.sent).toEqual(['getCredits', 'topUp crypto 25']);
    expect(outcome).toMatchObject({ kind: 'answered', entry: { method: 'usdc', state: 'awaiting_payment', baselineTotalTopUp: 40, address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } });
  });

  it('refused by the service: nothing on record', async () => {
    const c = client(() => new KeydeckApiError('invalid_request', 'amount: at least 10.', { status: 400 }));
    expect(await requestTopUp({ journal, client: c.client, scope: SCOPE }, { amount: 25, kind: 'card_checkout' })).toMatchObject({ kind: 'failed', outcomeUnknown: false });
    expect(await journal.list()).toEqual([]);
  });
});
