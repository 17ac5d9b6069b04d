/**
 * One USDC instruction is one record whatever hashes or amounts are verified for it, and it is
 * "credited" only on evidence that names it (src/billing/verifyUsdc.ts; docs/topups.md "The record
 * of top-ups"; I4 of docs/crash-safety.md). Against the sandbox, with the built CLI:
 *
 * - a hash already credited to another instruction (another machine's) is refused for this one
 *   without closing it: the instruction still awaits payment, and the transfer that does pay it
 *   is credited on the same record (before: "refused", then "no USDC top-up awaits payment", or a
 *   second record without the address);
 * - killed after the service answered a verify of such a hash, a later verify of it, after an
 *   unrelated $30 card charge raised the total, does not call the instruction credited (before:
 *   "Credited … keydeck's earlier verification credited it");
 * - a verify with a wrong amount stays on the instruction's record, and a later verify without
 *   `--amount` uses the instruction's amount, not the wrong one (before: a separate refused
 *   record, and the wrong amount again).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { makeTempHome, runCli, type CliResult, type TempHome } from '../credentials/harness.js';
import { runUntilKilled } from '../crash/harness.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

/** One machine: a home and data dir of its own, signed in with `token`. */
interface Machine {
  readonly home: TempHome;
  readonly env: NodeJS.ProcessEnv;
  run(args: readonly string[]): Promise<CliResult>;
}

const homes: TempHome[] = [];
afterAll(() => {
  for (const h of homes) h.remove();
});

function machine(token: string): Machine {
  const home = makeTempHome();
  homes.push(home);
  const env = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token, KEYDECK_DATA_DIR: path.join(home.home, 'data') });
  return { home, env, run: (args) => runCli(args, { env }) };
}

/** A USDC instruction of `amount` on `m`'s record; its deposit address. */
async function instruction(m: Machine, amount: string): Promise<string> {
  const r = await m.run(['billing', 'topup', '--amount', amount, '--method', 'usdc', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { address: string }).address.toLowerCase();
}

interface Item {
  readonly state: string;
  readonly amount: number;
  readonly address?: string;
  readonly txHash?: string;
  readonly credited?: number;
}
async function history(m: Machine): Promise<Item[]> {
  const r = await m.run(['billing', 'history', '--json']);
  expect(r.code, r.stderr).toBe(0);
  // Addresses in lower case: the record keeps the EIP-55 form, the service sends its own.
  return (JSON.parse(r.stdout) as Item[]).map((i) => (i.address === undefined ? i : { ...i, address: i.address.toLowerCase() }));
}

/** A transfer `other` credited on its own instruction: a hash already used at the service. */
async function usedElsewhere(token: string): Promise<string> {
  const other = machine(token);
  const tx = await sb.transfer(await instruction(other, '25'), '25');
  const r = await other.run(['billing', 'verify', '--tx', tx, '--amount', '25']);
  expect(r.code, r.stderr).toBe(0);
  return tx;
}

describe('a hash already credited to another instruction', () => {
  it('is refused for this one without closing it; the transfer that pays it is credited on the same record', async () => {
    const token = await sb.newUser();
    const used = await usedElsewhere(token);
    const m = machine(token);
    const address = await instruction(m, '25');

    const refused = await m.run(['billing', 'verify', '--tx', used, '--amount', '25']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already used for another top-up/);
    expect(refused.stderr).toMatch(/still awaits its payment/);
    expect(await history(m)).toEqual([expect.objectContaining({ state: 'awaiting_payment', address, amount: 25 })]);

    const paid = await sb.transfer(address, '25');
    const credited = await m.run(['billing', 'verify', '--tx', paid]);
    expect(credited.code, credited.stderr).toBe(0);
    expect(credited.stdout).toMatch(/^Credited 25\.00 USD/m);
    expect(await history(m)).toEqual([expect.objectContaining({ state: 'credited', address, txHash: paid, credited: 25 })]);
  }, 60_000);

  it('killed after the service answered, then an unrelated card charge: never "credited" for this instruction', async () => {
    const token = await sb.newUser();
    const used = await usedElsewhere(token);
    const m = machine(token);
    const address = await instruction(m, '25');
    await runUntilKilled('answered:verifyTopUp#1', ['billing', 'verify', '--tx', used, '--amount', '25'], { env: m.env });
    expect(await history(m)).toEqual([expect.objectContaining({ state: 'verifying', address })]);
    const card = await m.run(['billing', 'topup', '--amount', '30', '--method', 'card_direct', '--yes']);
    expect(card.code, card.stderr).toBe(0);

    const again = await m.run(['billing', 'verify', '--tx', used]);
    expect(again.stdout).not.toMatch(/Credited/);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/credited before keydeck.s verification was sent \(the billing status listed it then\): another top-up used it, not this one/);
    const records = await history(m);
    expect(records.filter((r) => r.address === address)).toEqual([expect.objectContaining({ state: 'awaiting_payment', amount: 25 })]);
    expect(records).toHaveLength(2); // the instruction and the card charge
  }, 60_000);
});

describe('a verify with the wrong amount', () => {
  it('stays on the instruction; a later verify without --amount uses the instruction’s amount', async () => {
    const token = await sb.newUser();
    const m = machine(token);
    const address = await instruction(m, '25');
    const tx = await sb.transfer(address, '25');

    const wrong = await m.run(['billing', 'verify', '--tx', tx, '--amount', '24']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/amount must equal what was sent/);
    expect(await history(m)).toEqual([expect.objectContaining({ state: 'awaiting_payment', address, amount: 25, txHash: tx })]);

    const right = await m.run(['billing', 'verify', '--tx', tx]);
    expect(right.stdout + right.stderr).toMatch(/No --amount given: the top-up this transaction was verified for before is 25\.00 USD to .*; verifying the transfer for 25\.00 USD/);
    expect(right.code, right.stderr).toBe(0);
    expect(await history(m)).toEqual([expect.objectContaining({ state: 'credited', address, credited: 25 })]);
  }, 60_000);
});
