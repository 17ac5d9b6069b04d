/**
 * Auto top-up across machines (two data dirs on one account are two machines), as the built CLI
 * run in real processes at once against the sandbox: what docs/topups.md "Auto top-up" says is
 * guaranteed across machines. Two runs that see one fall at the same moment are kept apart by the
 * settle wait (here each machine's window is set apart with KEYDECK_AUTOTOPUP_SETTLE_SECONDS, so
 * the outcome is certain; test/crash/autotopup-race.test.ts draws them from one window); when both
 * still charge, the later one pauses itself and says why, and a cap is passed by that one charge
 * at most. A card charge made by hand counts toward the caps; the pause after failures counts on
 * The service's clock, whatever the local clock says, and machines share that count; `autotopup
 * set` says when the service lists card charges this machine did not make. Against a service that
 * lists no top-ups (the real one's pages show none), the total of top-ups stands in.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliRunner } from '../credentials/harness.js';
import { startFaultProxy, type FaultProxy } from '../resilience/fault-proxy.js';
import type { TestSandbox } from '../sandbox/helpers.js';
import { scripted, type CliResult, type Scripted, useScriptedSandbox } from './scripted.js';

let sb: TestSandbox;
useScriptedSandbox((s) => (sb = s));

const homes: Scripted[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.home.remove();
});

/** The service each machine talks to. */
const urls = new WeakMap<Scripted, string>();
/** How each machine's commands run, when not the suites' default. */
const runners = new WeakMap<Scripted, CliRunner>();

/**
 * Another machine: a home (config and data dir) of its own. Its runs of `autotopup run --once`
 * at once with another machine's ({@link runAtOnce}) are each a process of its own, what the
 * guarantee across machines is about; its commands one at a time (`autotopup set`, `status`, a
 * charge by hand, a run alone: {@link run}) run in the test's thread unless `runner` says
 * otherwise (a machine whose clock is moved by NODE_OPTIONS is a process's).
 */
function machine(url = sb.url, runner?: CliRunner): Scripted {
  const cli = scripted(url, runner && { runner });
  homes.push(cli);
  urls.set(cli, url);
  if (runner) runners.set(cli, runner);
  return cli;
}

/**
 * `autotopup run --once` on `cli` alone, with the settle wait in `settle` seconds (`MIN-MAX`), run
 * as the machine's commands run (`runner`); given 45 s (a run waits out its settle and the
 * proxy's delays, on a busy machine).
 */
function run(cli: Scripted, token: string, settle = '0', extra: Record<string, string> = {}, runner = runners.get(cli)): Promise<CliResult> {
  const env = cli.home.env({ KEYDECK_BASE_URL: urls.get(cli)!, KEYDECK_TOKEN: token, KEYDECK_AUTOTOPUP_SETTLE_SECONDS: settle, ...extra });
  return runCli(['autotopup', 'run', '--once'], { env, ...(runner && { runner }), timeoutMs: 45_000 });
}

/** {@link run} as a process of its own, for runs on two machines at once. */
function runAtOnce(cli: Scripted, token: string, settle = '0'): Promise<CliResult> {
  return run(cli, token, settle, {}, 'process');
}

/** Spends `usd` of the account through a credit key. */
async function spend(token: string, usd: number): Promise<void> {
  const key = await sb.creditKey(token, `spender-${Math.random().toString(36).slice(2, 8)}`);
  expect((await sb.infer(key.apiKey, { sandbox_cost_usd: usd })).status).toBe(200);
}

async function set(clis: Scripted[], token: string, flags: string[]): Promise<void> {
  for (const cli of clis) {
    const r = await cli.run(token, ['autotopup', 'set', ...flags, '--yes']);
    expect(r.code, r.stderr).toBe(0);
  }
}

/** The card-on-file charges the sandbox lists for `token`'s account (credited or in flight). */
async function cardCharges(token: string): Promise<Array<{ amount: number; paymentId: string }>> {
  const data = (await sb.call('GET', '/api/billing/status', { token })).body.data;
  return [...data.recentTopUps, ...data.pendingTopUps].filter((t: { method: string }) => t.method === 'card_direct');
}

/** What a run said: a charge on stdout, the rest on stderr (quiet for cron: src/commands/autotopup.ts). */
const said = (r: CliResult) => `${r.stdout}${r.stderr}`.trim();

const charged = (r: CliResult) => r.stdout.startsWith('Charged $30.00');

/**
 * Two machines behind a fault proxy on a new account ($25) with the policy below $20, $30 a
 * charge, `dayCap` a day; then the balance falls to $15, and with `first`, machine a charges it
 * once and the balance falls to $15 again. `body` gets them; the proxy is closed after it.
 */
async function onTwoMachines(dayCap: string, first: boolean, body: (w: { proxy: FaultProxy; a: Scripted; b: Scripted; token: string }) => Promise<void>): Promise<void> {
  const proxy = await startFaultProxy(sb.url);
  try {
    const [a, b] = [machine(proxy.url), machine(proxy.url)];
    const token = await sb.fundedUser(25);
    await set([a, b], token, ['--below', '20', '--amount', '30', '--max-per-day', dayCap]);
    await spend(token, 10);
    if (first) {
      expect(charged(await run(a, token))).toBe(true);
      await spend(token, 30);
    }
    await body({ proxy, a, b, token });
  } finally {
    await proxy.close();
  }
}

/** Holds the answers of the next `count` billing status reads 2 s: runs that read it then have all seen the fall before any charges. */
function slowStatus(proxy: FaultProxy, count: number): void {
  proxy.set({ kind: 'delay', ms: 2000, count, only: { method: 'GET', path: '/api/billing/status' } });
}

// Each test starts a dozen processes, some of them held 2 s by the proxy: more than the default 20 s on a busy machine.
describe('auto top-up on two machines at once', { timeout: 120_000 }, () => {
  it('two runs that see one fall at the same moment charge it once: the later one sees the charge and does nothing', () =>
    onTwoMachines('100', false, async ({ proxy, a, b, token }) => {
      slowStatus(proxy, 2);
      const runs = await Promise.all([runAtOnce(a, token, '0-0.2'), runAtOnce(b, token, '3-3.5')]);
      expect(runs.filter(charged), runs.map((r) => said(r)).join('\n')).toHaveLength(1);
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      expect(
        runs.filter((r) => r.code === 0 && said(r) === ''),
        'the later run, the balance back at $45.00, says nothing (quiet for cron)',
      ).toHaveLength(1);
      expect(proxy.seen.filter((r) => r.method === 'POST' && r.path === '/api/billing/topup')).toHaveLength(1);
      expect(await sb.credits(token)).toMatchObject({ totalTopUp: 55 });
    }));

  it('a day cap of two charges: one charge, then a pair at once, then another fall: the cap is never passed', () =>
    onTwoMachines('60', true, async ({ proxy, a, b, token }) => {
      slowStatus(proxy, 2);
      const pair = await Promise.all([runAtOnce(a, token, '0-0.2'), runAtOnce(b, token, '3-3.5')]);
      expect(pair.filter(charged), pair.map((r) => said(r)).join('\n')).toHaveLength(1);
      await spend(token, 30);
      const capped = await Promise.all([runAtOnce(a, token), runAtOnce(b, token)]);
      for (const r of capped) expect([r.code, said(r)]).toEqual([3, expect.stringMatching(/^Nothing charged: \$30\.00 would pass the day's cap \(\$60\.00 of \$60\.00 charged this UTC day\)/)]);
      expect((await cardCharges(token)).length).toBe(2);
      expect(await sb.credits(token)).toMatchObject({ totalTopUp: 85, remaining: 15 });
    }));

  it('when both still charge for one fall, the later machine pauses itself naming the other charge; the cap is passed by that charge at most', () =>
    onTwoMachines('60', true, async ({ proxy, a, b, token }) => {
      // No settle wait, and every status read slow until both have decided: both charge.
      slowStatus(proxy, 4);
      const pair = await Promise.all([runAtOnce(a, token), runAtOnce(b, token)]);
      expect(pair.filter(charged), pair.map((r) => said(r)).join('\n')).toHaveLength(2);
      const charges = await cardCharges(token);
      expect(charges.map((c) => c.amount)).toEqual([30, 30, 30]);
      const later = pair.findIndex((r) => /two machines run auto top-up for this account: keep one/.test(said(r)));
      expect(later, pair.map((r) => said(r)).join('\n')).toBeGreaterThanOrEqual(0);
      expect(pair.filter((r) => /two machines/.test(said(r)))).toHaveLength(1);
      const [paused, kept] = later === 0 ? [a, b] : [b, a];
      const other = charges.map((c) => c.paymentId).find((id) => said(pair[later]!).includes(id));
      expect(other, 'the sentence names the other charge').toBeDefined();
      expect(said(pair[later]!)).toMatch(/Auto top-up is paused on this machine until keydeck autotopup resume\./);
      // The pause holds: the later machine says why and charges nothing; the other one stops at the cap.
      await spend(token, 60);
      const status = await paused.run(token, ['autotopup', 'status']);
      expect(status.stdout).toMatch(
        new RegExp(
          `^PAUSED on this machine since .*UTC: Another card charge for the same fall of the balance was made before this one \\(.*${other}.*\\): two machines run auto top-up for this account: keep one\\.`,
          'm',
        ),
      );
      const again = await run(paused, token);
      expect([again.code, said(again)]).toEqual([3, expect.stringMatching(/^Auto top-up is paused on this machine: .*keep one\. Nothing was charged/)]);
      const capped = await run(kept, token);
      expect([capped.code, said(capped)]).toEqual([3, expect.stringMatching(/would pass the day's cap \(\$90\.00 of \$60\.00 charged this UTC day\)/)]);
      expect(await sb.credits(token)).toMatchObject({ totalTopUp: 115 });
      // resume lifts the pause (and says so).
      const resumed = await paused.run(token, ['autotopup', 'resume']);
      expect(resumed.stdout).toMatch(/The pause for two machines is lifted/);
      expect((await paused.run(token, ['autotopup', 'status'])).stdout).toMatch(/^Active/m);
    }));
});

describe('auto top-up counts what the service counts', { timeout: 120_000 }, () => {
  it('a card charge made by hand on this machine counts toward the day cap', async () => {
    const cli = machine();
    const token = await sb.fundedUser(25);
    await set([cli], token, ['--below', '20', '--amount', '30', '--max-per-day', '60']);
    const byHand = await cli.run(token, ['billing', 'topup', '--amount', '50', '--method', 'card_direct', '--yes']);
    expect(byHand.code, byHand.stderr).toBe(0);
    await spend(token, 65);
    const r = await run(cli, token);
    expect([r.code, said(r)]).toEqual([3, expect.stringMatching(/^Nothing charged: \$30\.00 would pass the day's cap \(\$50\.00 of \$60\.00 charged this UTC day\)/)]);
    expect(await sb.credits(token)).toMatchObject({ totalTopUp: 75, remaining: 10 });
  });

  it('autotopup set says when the service lists card charges no record of this machine names', async () => {
    const [a, b] = [machine(), machine()];
    const token = await sb.fundedUser(25);
    const byHand = await a.run(token, ['billing', 'topup', '--amount', '10', '--method', 'card_direct', '--yes']);
    expect(byHand.code, byHand.stderr).toBe(0);
    const POLICY = ['autotopup', 'set', '--below', '20', '--amount', '30', '--yes'];
    const here = await a.run(token, POLICY);
    expect(here.stdout).not.toMatch(/another owner/);
    const there = await b.run(token, POLICY);
    expect(there.code).toBe(0);
    expect(there.stdout).toMatch(
      /^The service lists a card-on-file charge that no record of this machine names \(the latest: a card_direct top-up of \$10\.00 \(pi_sandbox_\w+, asked for \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)\): another owner charges this account's card, another machine or a person\. If another machine runs auto top-up for this account, keep one/m,
    );
  });

  it('a local clock moved back does not defeat the pause after 3 failures', async () => {
    const cli = machine(sb.url, 'process');
    const token = await sb.fundedUser(25);
    await set([cli], token, ['--below', '20', '--amount', '30']);
    expect((await sb.call('POST', '/sandbox/cards/decline', { token, body: { count: 6 } })).status).toBe(200);
    await spend(token, 10);
    // From now on this machine's clock is two hours behind the service's.
    const back = { NODE_OPTIONS: `--import=${path.join(import.meta.dirname, 'fixtures', 'clock-offset.mjs')}`, TEST_CLOCK_OFFSET_MS: String(-2 * 3600_000) };
    const runs: CliResult[] = [];
    for (let i = 0; i < 6; i++) runs.push(await run(cli, token, '0', back));
    expect(
      runs.map((r) => r.code),
      runs.map((r) => said(r)).join('\n'),
    ).toEqual([1, 1, 1, 3, 3, 3]);
    expect(said(runs[2]!)).toMatch(/That is 3 failures in a row: auto top-up is paused/);
    expect((await cli.run(token, ['autotopup', 'status'], back)).stdout).toMatch(/^PAUSED: the last 3 charges failed/m);
    // Three charges were sent, all declined: the service lists three.
    expect((await sb.call('GET', '/api/billing/status', { token })).body.data.failedTopUps).toHaveLength(3);
  });

  it('the pause after 3 failures counts the service’s declines: two machines make 3 declined attempts between them, not 6', async () => {
    const [a, b] = [machine(), machine()];
    const token = await sb.fundedUser(25);
    await set([a, b], token, ['--below', '20', '--amount', '30']);
    expect((await sb.call('POST', '/sandbox/cards/decline', { token, body: { count: 4 } })).status).toBe(200);
    await spend(token, 10);
    const runs = [await run(a, token), await run(b, token), await run(a, token), await run(b, token), await run(a, token)];
    expect(
      runs.map((r) => r.code),
      runs.map((r) => said(r)).join('\n'),
    ).toEqual([1, 1, 1, 3, 3]);
    expect(said(runs[2]!)).toMatch(/That is 3 failures in a row: auto top-up is paused/);
    expect(said(runs[3]!)).toMatch(/^Auto top-up is paused: the last 3 charges failed\. Nothing was charged/);
    // Neither machine sent a fourth charge: the service lists three declines.
    expect((await sb.call('GET', '/api/billing/status', { token })).body.data.failedTopUps).toHaveLength(3);
  });
});

/**
 * A service that lists no top-ups, as the real one's pages show: the sandbox behind a proxy that
 * drops `pendingTopUps`, `recentTopUps` and `failedTopUps` from the billing status (its `Date`
 * header kept). `statusReads` counts the status reads it answered.
 */
async function listless(upstream: string): Promise<{ url: string; statusReads: () => number; close(): Promise<void> }> {
  let reads = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method!,
        headers: { authorization: req.headers.authorization ?? '', 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
      });
      let body = await answer.text();
      if (req.method === 'GET' && req.url?.split('?')[0] === '/api/billing/status' && answer.ok) {
        reads++;
        const json = JSON.parse(body) as { data: Record<string, unknown> };
        for (const key of ['pendingTopUps', 'recentTopUps', 'failedTopUps']) delete json.data[key];
        body = JSON.stringify(json);
      }
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', date: answer.headers.get('date')! });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    statusReads: () => reads,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('auto top-up against a service that lists no top-ups', { timeout: 120_000 }, () => {
  it('a rise of the total of top-ups while it settles serves the fall', async () => {
    const service = await listless(sb.url);
    try {
      const cli = machine(service.url);
      const token = await sb.fundedUser(25);
      await set([cli], token, ['--below', '30', '--amount', '40']);
      await spend(token, 10);
      const before = service.statusReads();
      const running = run(cli, token, '3');
      // Once it has seen the fall (its first status read), someone tops up $10: still below $30.
      while (service.statusReads() === before) await new Promise((r) => setTimeout(r, 20));
      await sb.topUp(token, 10);
      const r = await running;
      expect([r.code, said(r)]).toEqual([3, expect.stringMatching(/^Nothing charged: since the balance was seen below the threshold, the total of top-ups rose by \$10\.00: it serves this fall/)]);
      expect(await sb.credits(token)).toMatchObject({ totalTopUp: 35, remaining: 25 });
    } finally {
      await service.close();
    }
  });

  it('two machines that both charge for one fall: the one that sees the total rise past its own charge pauses itself', async () => {
    const service = await listless(sb.url);
    const proxy = await startFaultProxy(service.url);
    try {
      const [a, b] = [machine(proxy.url), machine(proxy.url)];
      const token = await sb.fundedUser(25);
      await set([a, b], token, ['--below', '20', '--amount', '30', '--max-per-day', '100']);
      await spend(token, 10);
      slowStatus(proxy, 4);
      const pair = await Promise.all([runAtOnce(a, token), runAtOnce(b, token)]);
      expect(pair.filter(charged), pair.map((r) => said(r)).join('\n')).toHaveLength(2);
      const paused = pair.filter((r) =>
        /the total of top-ups rose by \$30\.00 more than this charge, and the service does not list who made it\): two machines run auto top-up for this account: keep one\./.test(said(r)),
      );
      expect(paused.length, pair.map((r) => said(r)).join('\n')).toBeGreaterThanOrEqual(1);
      expect(await sb.credits(token)).toMatchObject({ totalTopUp: 85 });
    } finally {
      await proxy.close();
      await service.close();
    }
  });
});
