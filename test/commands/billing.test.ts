/**
 * `keydeck billing credits | status | topup | verify | history | watch`, run as the built CLI against the
 * sandbox on loopback, in both output modes; `--json` parsed with the wire schemas. `watch` is
 * driven by real spending (inference through a credit key) and real top-ups, and by stopping
 * and restarting the sandbox for network trouble; waits are generous (loaded 2-core machine).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CardCheckoutSessionSchema, CreditBalanceSchema, UsdcPaymentInstructionSchema, VerifiedTopUpSchema } from '../../src/api/schemas.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, type TestSandbox } from '../sandbox/helpers.js';
import { startApp } from '../e2e/pty.js';
import { json, startHostileServer } from '../api/hostile-server.js';
import { lines, scripted, startCli, UNREACHABLE, type Scripted, useScriptedSandbox } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

/** `POST /sandbox/chain/transfers`: a simulated USDC transfer; its hash. */
async function transfer(to: string, amount: string): Promise<string> {
  const r = await sb.call<{ txHash: string }>('POST', '/sandbox/chain/transfers', { body: { to, amount } });
  return r.body.txHash;
}

const WATCH_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ remaining (\S+) USD totalTopUp (\S+) USD$/;

describe('billing credits and status', () => {
  it('show the balance record and the status in both modes (--json is the unwrapped data)', async () => {
    const user = await sb.fundedUser(25);
    const [human, json, status, statusJson] = await Promise.all([
      cli.run(user, ['billing', 'credits']),
      cli.run(user, ['billing', 'credits', '--json']),
      cli.run(user, ['billing', 'status']),
      cli.run(user, ['billing', 'status', '--json']),
    ]);
    for (const r of [human, json, status, statusJson]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
    }
    const credits = CreditBalanceSchema.parse(JSON.parse(json.stdout));
    expect(credits).toEqual(await sb.credits(user));
    expect(lines(human.stdout)).toEqual(['remaining       25.00 USD', 'totalTopUp      25.00 USD', 'hasCreditKey    no', 'creditKeyCount  0', `userId          ${credits.userId}`]);
    const direct = await sb.call('GET', '/api/billing/status', { token: user });
    expect(JSON.parse(statusJson.stdout)).toEqual(direct.body.data);
    // The documented shape (the newer status page) reads as a summary.
    expect(status.stdout).toMatch(/^subscriptions: none$/m);
    expect(status.stdout).toMatch(/^credit balance: 25\.00 USD$/m);
  });

  it('a new account shows zeros and no userId yet', async () => {
    const r = await cli.run(await sb.fundedUser(0), ['billing', 'credits']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^remaining\s+0\.00 USD$/m);
    expect(r.stdout).toMatch(/^userId\s+\(none until the first top-up\)$/m);
  });
});

describe('billing topup and verify', () => {
  it('refuses bad amounts, hashes and methods before sending anything (exit 2, service unreachable)', async () => {
    // One amount rule and one hash check for the CLI and the TUI (src/billing/input.ts).
    const cases: [string[], RegExp][] = [
      [['--amount', '9.99', '--method', 'usdc'], /--amount: the minimum top-up is 10 USD/],
      [['--amount', '1e3', '--method', 'usdc'], /--amount: an amount in USD is a plain decimal number such as 25 or 12\.50.*\(got "1e3"\)/],
      [['--amount', '10.', '--method', 'usdc'], /plain decimal number .*\(no dot at the end\)/],
      [['--amount', '$25', '--method', 'usdc'], /plain decimal number .*\(the number only, without \$\)/],
      [['--amount', '10.001', '--method', 'card_checkout'], /--amount: at most two decimals \(whole cents\)/],
      [['--amount', '-10', '--method', 'usdc'], /plain decimal number/],
      [['--amount', '2000000', '--method', 'usdc'], /at most 1,000,000 USD/],
      [['--amount', '10', '--method', 'pay pal'], /--method: method must be 1–64 letters, digits/],
      [['--amount', '10'], /required option '--method <name>'/],
    ];
    const verifyCases: [string[], RegExp][] = [
      [['--tx', '0x1234', '--amount', '10'], /--tx: 4 of 64 hex digits/],
      [['--tx', `0x${'g'.repeat(64)}`, '--amount', '10'], /--tx: only hex digits/],
      // Never cut to 64 and sent.
      [['--tx', `0x${'a'.repeat(65)}`, '--amount', '10'], /--tx: 65 of 64 hex digits: 1 too many/],
      [['--tx', `0x${'a'.repeat(66)}`, '--amount', '10'], /--tx: 66 of 64 hex digits: 2 too many/],
      [['--tx', `0x${'a'.repeat(64)}`, '--amount', '10.5.1'], /--amount: an amount in USD is a plain decimal/],
      // A transfer that can never be credited says so, and what to do.
      [['--tx', `0x${'a'.repeat(64)}`, '--amount', '9.5'], /--amount: a transfer of 9\.5 USDC is below the 10 USD minimum top-up, so the service can never credit it .*ask the service's support/],
      [['--tx', `0x${'a'.repeat(64)}`, '--amount', '10.005'], /--amount: a transfer of 10\.005 USDC has digits below a cent.*never credit it/],
    ];
    const results = await Promise.all([
      ...cases.map(([args]) => cli.run('sess_x', ['billing', 'topup', ...args], { KEYDECK_BASE_URL: UNREACHABLE })),
      ...verifyCases.map(([args]) => cli.run('sess_x', ['billing', 'verify', ...args], { KEYDECK_BASE_URL: UNREACHABLE })),
    ]);
    [...cases, ...verifyCases].forEach(([, pattern], i) => {
      const r = results[i]!;
      expect(r.code, `${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(pattern);
    });
    expect(results[0]!.stderr).toBe('keydeck: invalid_request: --amount: the minimum top-up is 10 USD.\n');
  });

  it('card_checkout prints the checkout page (human) or the session (JSON); paying there credits the account', async () => {
    const user = await sb.fundedUser(0);
    const [human, json] = await Promise.all([
      cli.run(user, ['billing', 'topup', '--amount', '10', '--method', 'card_checkout']),
      cli.run(user, ['billing', 'topup', '--amount', '12.50', '--method', 'card_checkout', '--json']),
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^Pay 10\.00 USD by card on the checkout page:$/m);
    const url = human.stdout.match(/^ {2}(http:\/\/\S+)$/m)?.[1];
    expect(url).toMatch(new RegExp(`^${sb.url}/sandbox/checkout/`));
    expect(json.code, json.stderr).toBe(0);
    const session = CardCheckoutSessionSchema.parse(JSON.parse(json.stdout));
    expect(json.stdout).toBe(`${JSON.stringify(session, null, 2)}\n`);

    const paid = await call(url!, 'POST', '');
    expect(paid.status).toBe(200);
    expect((await sb.credits(user)).totalTopUp).toBe(10);
  });

  it('usdc prints the exact instruction, then verify credits the transfer once; a wrong amount is amount_mismatch', async () => {
    const user = await sb.fundedUser(0);
    const human = await cli.run(user, ['billing', 'topup', '--amount', '12.5', '--method', 'usdc']);
    expect(human.code, human.stderr).toBe(0);
    const out = lines(human.stdout);
    expect(out[0]).toBe('Send exactly 12.5 USDC to this address on Base:');
    const address = human.stdout.match(/^ {2}address\s+(0x[0-9a-fA-F]{40})$/m)?.[1];
    expect(address).toBeDefined();
    expect(human.stdout).toMatch(/^ {2}chain\s+base$/m);
    expect(human.stdout).toMatch(/^ {2}amount\s+12\.5 USDC$/m);
    expect(human.stdout).toMatch(/^Warning: send USDC on Base only\./m);
    expect(out.at(-1)).toBe('Then credit it with the transaction hash: keydeck billing verify --tx HASH --amount 12.5');

    const json = await cli.run(user, ['billing', 'topup', '--amount', '20', '--method', 'usdc', '--json']);
    const instruction = UsdcPaymentInstructionSchema.parse(JSON.parse(json.stdout));
    expect(instruction).toMatchObject({ chain: 'base', amount: '20' });

    const tx = await transfer(instruction.address, '20');
    // An amount no instruction waits for, two instructions open: which one is asked (one instruction, one record).
    const which = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '25']);
    expect(which.code).toBe(2);
    expect(which.stderr).toMatch(
      /^keydeck: 2 USDC top-ups await payment \(20\.00 USD to 0x\w{40}, requested .*; 12\.50 USD to .*\): say which with --to ADDRESS, the deposit address the transfer paid; nothing was sent\.$/m,
    );
    const mismatch = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '25', '--to', instruction.address]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stdout).toMatch(/^The transfer is verified for the one USDC top-up awaiting payment, 20\.00 USD to 0x\w{40}, requested .*, with 25\.00 USD as the amount sent\.$/m);
    expect(mismatch.stderr).toMatch(
      /^warning: Refused: the amount must equal what was sent in this transaction, and it is not \$25\.00\. .* The USDC top-up of \$20\.00 to 0x\w{40} still awaits its payment/m,
    );
    expect(mismatch.stderr).toMatch(/^keydeck: amount_mismatch: /m);
    const verified = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '20', '--json']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(VerifiedTopUpSchema.parse(JSON.parse(verified.stdout))).toEqual({ credited: 20, balance: 20 });
    // On keydeck's record as credited: not sent again.
    const reused = await cli.run(user, ['billing', 'verify', '--tx', tx, '--amount', '20']);
    expect(reused.code).toBe(1);
    expect(reused.stderr).toMatch(/^keydeck: already_credited: Already credited: this transaction credited \$20\.00 on .* Nothing was sent\.$/m);

    const tx2 = await transfer(address!, '12.5');
    const again = await cli.run(user, ['billing', 'verify', '--tx', tx2, '--amount', '12.50']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('Credited 12.50 USD; the balance is now 32.50 USD.\n');
  });

  it('card_direct prints what the service answered, in both modes (scripts pass --yes)', async () => {
    const user = await sb.fundedUser(0);
    const human = await cli.run(user, ['billing', 'topup', '--amount', '10', '--method', 'card_direct', '--yes']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^Top-up of 10\.00 USD by card_direct; the service answered:$/m);
    expect(human.stdout).toMatch(/^ {2}balance\s+10$/m);
    const json = await cli.run(user, ['billing', 'topup', '--amount', '15', '--method', 'card_direct', '--json', '-y']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ credited: 15, balance: 25 });
  });
});

describe('money is confirmed', () => {
  it('without a terminal and without --yes: a card-on-file charge and an amount above the ceiling exit 2, nothing sent', async () => {
    const user = await sb.fundedUser(0);
    const [direct, large, small] = await Promise.all([
      cli.run(user, ['billing', 'topup', '--amount', '10', '--method', 'card_direct']),
      cli.run(user, ['billing', 'topup', '--amount', '600', '--method', 'card_checkout']),
      cli.run(user, ['billing', 'topup', '--amount', '500', '--method', 'card_checkout']),
    ]);
    expect(direct.code).toBe(2);
    expect(direct.stdout).toBe('');
    expect(direct.stderr).toBe(
      'keydeck: confirmation_required: stdin is not a terminal, so no confirmation can be asked and nothing was changed; to proceed run `keydeck billing topup --amount 10 --method card_direct --yes`.\n',
    );
    expect(large.code).toBe(2);
    expect(large.stderr).toMatch(/confirmation_required: .*`keydeck billing topup --amount 600 --method card_checkout --yes`/);
    // At the ceiling itself a checkout needs no confirmation (nothing is charged until paid).
    expect(small.code, small.stderr).toBe(0);
    expect((await sb.credits(user)).totalTopUp).toBe(0);
  });

  it('an unknown method is refused before anything is asked or sent, naming the methods (did you mean for a near miss); a declared one is sent', async () => {
    const user = await sb.fundedUser(0);
    const [bitcoin, card, stripe] = await Promise.all([
      cli.run(user, ['billing', 'topup', '--amount', '11', '--method', 'bitcoin']),
      cli.run(user, ['billing', 'topup', '--amount', '11', '--method', 'card']),
      cli.run(user, ['billing', 'topup', '--amount', '11', '--method', 'strpe']),
    ]);
    for (const r of [bitcoin, card, stripe]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      // Never the card question, never the --yes line.
      expect(r.stderr).not.toMatch(/Charge|--yes|confirmation_required/);
      expect(r.stderr).toMatch(
        /The methods are usdc \(USDC on Base\), card_checkout \(a card checkout page\), card_direct \(the card on file\), stripe \(a card checkout page\), stripe_direct \(the card on file\)\. Nothing was asked or sent\.\n$/,
      );
    }
    expect(bitcoin.stderr).toMatch(/^keydeck: --method bitcoin: keydeck knows no such top-up method\. The methods are/);
    expect(card.stderr).toMatch(/^keydeck: --method card: keydeck knows no such top-up method\. Did you mean card_checkout \(a card checkout page\) or card_direct \(the card on file\)\?/);
    expect(stripe.stderr).toMatch(/Did you mean stripe \(a card checkout page\)\?/);
    expect((await sb.credits(user)).totalTopUp).toBe(0);

    // A name the profile declares (topUpMethods) is sent as given: here the sandbox refuses it.
    const { writeFileSync, mkdirSync } = await import('node:fs');
    mkdirSync(cli.home.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(`${cli.home.configDir}/config.json`, JSON.stringify({ version: 1, profiles: { default: { topUpMethods: { card_checkout: 'hosted_card' } } } }), { mode: 0o600 });
    try {
      const declared = await cli.run(user, ['billing', 'topup', '--amount', '11', '--method', 'hosted_card']);
      expect(declared.code).toBe(1);
      expect(declared.stderr).toMatch(/invalid_request: .*The method name sent was "hosted_card"/);
    } finally {
      const { rmSync } = await import('node:fs');
      rmSync(`${cli.home.configDir}/config.json`);
    }
  });

  it('on a terminal asks "Charge $10.00 to the card on file? [y/N]": the default keeps the money, y charges', { timeout: 30_000 }, async () => {
    const user = await sb.fundedUser(0);
    const env = cli.home.env({ KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url });
    const no = startApp({ args: ['billing', 'topup', '--amount', '10', '--method', 'card_direct'], env, columns: 200 });
    await no.waitFor('Charge $10.00 to the card on file? [y/N]');
    no.write('\r');
    expect((await no.exited).exitCode).toBe(1);
    await no.waitFor('keydeck: cancelled: nothing was charged.');
    expect((await sb.credits(user)).totalTopUp).toBe(0);

    const yes = startApp({ args: ['billing', 'topup', '--amount', '10', '--method', 'card_direct'], env, columns: 200 });
    await yes.waitFor('[y/N]');
    yes.write('y\r');
    expect((await yes.exited).exitCode).toBe(0);
    await yes.waitFor('Top-up of 10.00 USD by card_direct');
    expect((await sb.credits(user)).totalTopUp).toBe(10);
  });

  it('on a terminal an amount above the ceiling must be typed again; a different amount sends nothing', { timeout: 30_000 }, async () => {
    const user = await sb.fundedUser(0);
    const env = cli.home.env({ KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url });
    const wrong = startApp({ args: ['billing', 'topup', '--amount', '5000', '--method', 'card_direct'], env, columns: 200 });
    await wrong.waitFor("$5,000.00 is above this profile's top-up ceiling of $500.00 (confirmAboveUsd). Type the amount again to confirm:");
    wrong.write('500\r');
    expect((await wrong.exited).exitCode).toBe(1);
    await wrong.waitFor('does not match $5,000.00; nothing was requested');

    const right = startApp({ args: ['billing', 'topup', '--amount', '5000', '--method', 'card_direct'], env, columns: 200 });
    await right.waitFor('Type the amount again');
    right.write('5000\r');
    await right.waitFor('Charge $5,000.00 to the card on file? [y/N]');
    right.write('y\r');
    expect((await right.exited).exitCode).toBe(0);
    expect((await sb.credits(user)).totalTopUp).toBe(5000);
  });
});

describe('one USDC instruction is one record', () => {
  const unknownHash = () => `0x${[...Array(64)].map(() => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('')}`;

  it('two verifies with hashes the service does not know, then the right one: one record, credited, its deposit address kept; nothing awaits payment', { timeout: 30_000 }, async () => {
    const own = scripted(sb.url);
    try {
      const user = await sb.fundedUser(0);
      const topup = await own.run(user, ['billing', 'topup', '--amount', '25', '--method', 'usdc', '--json']);
      const { address } = UsdcPaymentInstructionSchema.parse(JSON.parse(topup.stdout));
      const first = await own.run(user, ['billing', 'verify', '--tx', unknownHash(), '--amount', '25']);
      expect([first.code, first.stderr]).toEqual([1, expect.stringMatching(/^keydeck: not_found: /m)]);
      // Without --amount: the one top-up awaiting payment gives it, and says so.
      const second = await own.run(user, ['billing', 'verify', '--tx', unknownHash()]);
      expect(second.code).toBe(1);
      expect(second.stdout).toMatch(
        new RegExp(`^No --amount given: the one USDC top-up awaiting payment is 25\\.00 USD to ${address}, requested .* UTC; verifying the transfer for 25\\.00 USD\\.$`, 'im'),
      );
      const tx = await transfer(address, '25');
      const right = await own.run(user, ['billing', 'verify', '--tx', tx]);
      expect(right.code, right.stderr).toBe(0);
      expect(right.stdout).toMatch(/^Credited 25\.00 USD; the balance is now 25\.00 USD\.$/m);
      const items = JSON.parse((await own.run(undefined, ['billing', 'history', '--json'])).stdout) as Array<Record<string, unknown>>;
      expect(items).toEqual([
        { method: 'usdc', amount: 25, state: 'credited', createdAt: expect.any(String), txHash: tx, credited: 25, address: expect.stringMatching(new RegExp(`^${address}$`, 'i')) },
      ]);
      expect(lines((await own.run(undefined, ['billing', 'history'])).stdout)).toHaveLength(2);
    } finally {
      own.home.remove();
    }
  });

  it('without --amount: asks for it when nothing awaits payment; names the top-ups when several do (no terminal); --to picks one', { timeout: 30_000 }, async () => {
    const own = scripted(sb.url);
    try {
      const user = await sb.fundedUser(0);
      const none = await own.run(user, ['billing', 'verify', '--tx', unknownHash()]);
      expect([none.code, none.stderr]).toEqual([
        2,
        expect.stringMatching(/^keydeck: give --amount USD, the amount the transfer sent: no USDC top-up awaits payment on keydeck's record for this service; nothing was sent\.$/m),
      ]);
      const a = UsdcPaymentInstructionSchema.parse(JSON.parse((await own.run(user, ['billing', 'topup', '--amount', '25', '--method', 'usdc', '--json'])).stdout));
      const b = UsdcPaymentInstructionSchema.parse(JSON.parse((await own.run(user, ['billing', 'topup', '--amount', '25', '--method', 'usdc', '--json'])).stdout));
      const tx = await transfer(b.address, '25');
      const several = await own.run(user, ['billing', 'verify', '--tx', tx]);
      expect(several.code).toBe(2);
      expect(several.stderr).toMatch(
        /^keydeck: 2 USDC top-ups await payment \(25\.00 USD to 0x\w{40}, requested .*; 25\.00 USD to 0x\w{40}, requested .*\): say which with --amount \(and --to ADDRESS, the deposit address the transfer paid, when two have the same amount\); nothing was sent\.$/m,
      );
      const same = await own.run(user, ['billing', 'verify', '--tx', tx, '--amount', '25']);
      expect([same.code, same.stderr]).toEqual([2, expect.stringMatching(/say which with --to ADDRESS, the deposit address the transfer paid; nothing was sent\.$/m)]);
      const picked = await own.run(user, ['billing', 'verify', '--tx', tx, '--to', b.address.toLowerCase()]);
      expect(picked.code, picked.stderr).toBe(0);
      const items = JSON.parse((await own.run(undefined, ['billing', 'history', '--json'])).stdout) as Array<{ state: string; address: string }>;
      expect(items.map((i) => [i.address.toLowerCase(), i.state])).toEqual([
        [b.address.toLowerCase(), 'credited'],
        [a.address.toLowerCase(), 'awaiting_payment'],
      ]);
    } finally {
      own.home.remove();
    }
  });
});

describe('billing history', () => {
  it('lists what topup and verify put on the record (the TUI’s record), newest first, in both modes', { timeout: 60_000 }, async () => {
    const own = scripted(sb.url);
    try {
      const user = await sb.fundedUser(0);
      const empty = await own.run(user, ['billing', 'history']);
      expect(empty.code, empty.stderr).toBe(0);
      expect(empty.stdout).toMatch(/^No top-ups on record for this service yet/);
      expect(JSON.parse((await own.run(user, ['billing', 'history', '--json'])).stdout)).toEqual([]);

      const checkout = await own.run(user, ['billing', 'topup', '--amount', '10', '--method', 'card_checkout', '--json']);
      const { sessionId } = CardCheckoutSessionSchema.parse(JSON.parse(checkout.stdout));
      const usdc = await own.run(user, ['billing', 'topup', '--amount', '12.5', '--method', 'usdc', '--json']);
      const { address } = UsdcPaymentInstructionSchema.parse(JSON.parse(usdc.stdout));
      const tx = await transfer(address, '12.5');
      const verified = await own.run(user, ['billing', 'verify', '--tx', tx, '--amount', '12.50']);
      expect(verified.code, verified.stderr).toBe(0);

      const json = await own.run(undefined, ['billing', 'history', '--json']);
      expect(json.code, json.stderr).toBe(0);
      const items = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
      expect(items).toEqual([
        { method: 'usdc', amount: 12.5, state: 'credited', createdAt: expect.any(String), txHash: tx, credited: 12.5, address: expect.stringMatching(new RegExp(`^${address}$`, 'i')) },
        { method: 'card_checkout', amount: 10, state: 'awaiting_payment', createdAt: expect.any(String), sessionId },
      ]);
      const human = await own.run(undefined, ['billing', 'history']);
      const rows = lines(human.stdout);
      expect(rows[0]).toMatch(/^CREATED\s+AMOUNT\s+METHOD\s+STATE\s+REFERENCE\s+NOTE$/);
      expect(rows[1]).toMatch(new RegExp(`12\\.50 USD\\s+USDC on Base\\s+credited\\s+${tx}`));
      expect(rows[2]).toMatch(new RegExp(`10\\.00 USD\\s+card checkout\\s+awaiting payment\\s+${sessionId}`));
    } finally {
      own.home.remove();
    }
  });
});

describe('billing status from a service that sends line breaks and escapes in its texts', () => {
  it('shows every value through the sanitiser: a newline in a plan’s name starts no forged line', async () => {
    const forged = 'credit balance: 1000000.00 USD';
    const server = await startHostileServer((req, res) =>
      req.path === '/api/billing/status'
        ? json(res, 200, {
            success: true,
            data: {
              subscriptions: [{ id: `sub_1\n${forged}`, planSlug: `pro\n${forged}`, status: 'active', currentPeriodEnd: `soon\n${forged}`, cancelAtPeriodEnd: false, keyCount: 0 }],
              poolPledges: [{ poolId: 'pl_1', poolSlug: `gpu\r\n${forged}`, status: 'active\u001b[2J', hasKey: false }],
              creditBalance: 25,
            },
          })
        : json(res, 404, { error: { code: 'not_found' } }),
    );
    const own = scripted(server.url);
    try {
      const r = await own.run('sess_x', ['billing', 'status']);
      expect(r.code, r.stderr).toBe(0);
      // The one credit balance line is the service's creditBalance; nothing else starts a line of its own.
      expect(lines(r.stdout).filter((l) => l.trimStart().startsWith('credit balance'))).toEqual(['credit balance: 25.00 USD']);
      expect(r.stdout).toContain(`  pro\\u000a${forged}`);
      expect(r.stdout).toContain(`status: active\\u001b[2J`);
      expect(r.stdout).not.toContain('\u001b');
      expect(r.stdout).toMatch(/^One subscription has no key yet: pro\\u000acredit balance: 1000000\.00 USD \(sub_1\\u000acredit/m);
    } finally {
      own.home.remove();
      await server.close();
    }
  });
});

describe('a checkout link the service should not send', () => {
  it('is refused before it is printed (exit 1, nothing on stdout); the session stays on record, awaiting payment', { timeout: 30_000 }, async () => {
    // The balance read first (the top-up's baseline), then the top-up's answer with a link to refuse.
    const server = await startHostileServer((req, res) =>
      req.path === '/api/billing/topup'
        ? json(res, 200, { success: true, data: { sessionId: 'cs_evil', sessionUrl: 'http://checkout.evil.example/pay' } })
        : req.path === '/api/billing/credits'
          ? json(res, 200, { success: true, data: { totalTopUp: 0, remaining: 0, hasCreditKey: false, creditKeyCount: 0 } })
          : json(res, 404, { error: { code: 'not_found' } }),
    );
    const own = scripted(server.url);
    try {
      for (const args of [[], ['--json']]) {
        const r = await own.run('sess_x', ['billing', 'topup', '--amount', '10', '--method', 'card_checkout', ...args]);
        const refusal = /^The checkout link from the service was refused \(it is plain http:\/\/ to another machine, not https:\/\/\): nothing was shown, copied or opened/;
        expect(r.code).toBe(1);
        expect(r.stderr).not.toContain('evil.example');
        expect(r.stdout).not.toContain('evil.example');
        if (args.length === 0) {
          expect(r.stdout).toBe('');
          expect(r.stderr.replace(/^keydeck: /, '')).toMatch(refusal);
        } else {
          // Under --json the refusal is the one JSON document on stdout (docs/commands.md).
          const { error } = JSON.parse(r.stdout) as { error: { code: string; message: string } };
          expect(error.code).toBe('checkout_refused');
          expect(error.message).toMatch(refusal);
          expect(r.stderr).not.toMatch(/^keydeck: /m);
        }
      }
      const list = JSON.parse((await own.run(undefined, ['billing', 'history', '--json'])).stdout) as unknown[];
      expect(list).toEqual([
        { method: 'card_checkout', amount: 10, state: 'awaiting_payment', createdAt: expect.any(String), sessionId: 'cs_evil' },
        { method: 'card_checkout', amount: 10, state: 'awaiting_payment', createdAt: expect.any(String), sessionId: 'cs_evil' },
      ]);
    } finally {
      own.home.remove();
      await server.close();
    }
  });
});

// The three run at once: each mostly waits for its watcher's 2 s polls. Each watcher has a home of
// its own (the first), or the suite's (the second, which alone uses it meanwhile), or its own service
// (the third).
describe.concurrent('billing watch', () => {
  it('prints one line per change and exits 3 as soon as the balance is below --alert-below', { timeout: 60_000 }, async () => {
    const user = await sb.fundedUser(25);
    const key = await sb.creditKey(user, 'spender');
    const home = scripted(sb.url);
    const watch = home.start(user, ['billing', 'watch', '--interval', '2', '--alert-below', '20']);
    try {
      await watch.waitForStdout(/remaining 25\.00 USD/);
      await sb.infer(key.apiKey, { sandbox_cost_usd: 3 });
      await watch.waitForStdout(/remaining 22\.00 USD/, 20_000);
      await sb.infer(key.apiKey, { sandbox_cost_usd: 5 });
      expect(await watch.exited).toBe(3);
    } finally {
      watch.kill();
      home.home.remove();
    }
    const out = lines(watch.stdout());
    expect(out.map((l) => l.match(WATCH_LINE)?.slice(1))).toEqual([
      ['25.00', '25.00'],
      ['22.00', '25.00'],
      ['17.00', '25.00'],
    ]);
    expect(watch.stderr()).toBe('keydeck: below_threshold: the remaining balance 17.00 USD is below 20.00 USD.\n');
  });

  it('runs until ctrl-c (exit 0, no repeated lines); exits 3 at once when already below; first read failing is exit 4; bad flags exit 2', { timeout: 60_000 }, async () => {
    const user = await sb.fundedUser(25);
    const watch = cli.start(user, ['billing', 'watch', '--interval', '2']);
    const [below, down, badInterval, badAlert] = await Promise.all([
      cli.run(user, ['billing', 'watch', '--alert-below', '25.01']),
      cli.run(user, ['billing', 'watch'], { KEYDECK_BASE_URL: UNREACHABLE }),
      cli.run(user, ['billing', 'watch', '--interval', '1']),
      cli.run(user, ['billing', 'watch', '--alert-below', '5 USD']),
    ]);
    try {
      await watch.waitForStdout(/remaining 25\.00 USD/);
      // Let a few more polls pass with no change: still one line.
      await new Promise((r) => setTimeout(r, 4_500));
      watch.kill('SIGINT');
      // ctrl-c: 130, as shells expect.
      expect(await watch.exited).toBe(130);
    } finally {
      watch.kill();
    }
    expect(lines(watch.stdout())).toHaveLength(1);
    expect(watch.stderr()).toBe('');

    expect(below.code).toBe(3);
    expect(lines(below.stdout)).toHaveLength(1);
    expect(below.stderr).toMatch(/below_threshold: the remaining balance 25\.00 USD is below 25\.01 USD/);
    expect(down.code).toBe(4);
    expect(down.stdout).toBe('');
    expect(down.stderr).toMatch(/^keydeck: network_error: could not reach the service/);
    expect(badInterval.code).toBe(2);
    expect(badInterval.stderr).toMatch(/--interval must be at least 2 seconds/);
    expect(badAlert.code).toBe(2);
    expect(badAlert.stderr).toMatch(/--alert-below must be an amount in USD/);
  });

  it('keeps watching through network trouble after the first read, and picks up the change once the service is back', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-watch-'));
    const dbPath = path.join(dir, 'sandbox.db');
    let server = await startSandbox({ dbPath, port: 0 });
    const port = Number(new URL(server.url).port);
    const home = scripted(server.url);
    const watch = startCli(['billing', 'watch', '--interval', '2'], home.home.env({ KEYDECK_BASE_URL: server.url, KEYDECK_TOKEN: server.token }));
    try {
      await watch.waitForStdout(/remaining 84\.20 USD/);
      await server.close();
      await watch.waitForStderr(/keydeck: network_error: .* Still watching\.\n/, 30_000);
      server = await startSandbox({ dbPath, port });
      await call(server.url, 'POST', '/api/billing/topup', { token: server.token, body: { amount: 10, method: 'card_direct' } });
      await watch.waitForStdout(/remaining 94\.20 USD totalTopUp 135\.00 USD/, 30_000);
      watch.kill('SIGINT');
      // ctrl-c: 130, as shells expect.
      expect(await watch.exited).toBe(130);
      expect(lines(watch.stdout())).toHaveLength(2);
      // One line per problem, not one per failed poll.
      expect(lines(watch.stderr()).filter((l) => l.includes('network_error')).length).toBe(1);
    } finally {
      watch.kill();
      await server.close();
      home.home.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
