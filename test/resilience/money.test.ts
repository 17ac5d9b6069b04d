/**
 * The two untruths, reproduced as a user meets them: the built app in a real
 * terminal against the sandbox, the fault proxy between them, and the scriptable commands in a
 * second "shell" on the same data dir.
 *
 * - An unpaid card checkout while a USDC top-up is credited from the CLI: the total of top-ups
 *   rises, and the checkout stays `awaiting_payment` (also across a restart); the rise is shown as
 *   what it is; only paying the checkout page (the billing status naming the session) credits it.
 * - A verify whose answer is lost (the proxy forwards it and never answers): the record stays
 *   `verifying`; after a restart, verifying again meets `tx_already_used` and ends `credited`
 *   (keydeck's own earlier verify, with the total of top-ups risen by its amount since), with the
 *   credited amount in the list; the same through `keydeck billing verify`.
 */
import { describe, expect, it } from 'vitest';
import { toChecksumAddress } from '../../src/billing/eip681.js';
import { runCli } from '../credentials/harness.js';
import { startApp, type PtyApp } from '../e2e/pty.js';
import { CALL_TIMEOUT_MS, POLL_SECONDS, startUpstream, waitForData, type Upstream } from './harness.js';
import { useRig } from './scenario.js';

const VERIFY = { method: 'POST', path: '/api/billing/verify-topup' } as const;

/**
 * Runs `keydeck …args` (the built CLI, test/credentials/harness.ts `runCli`: the test's thread in
 * `npm test`, a process in CI) with the rig's environment: another shell on the same data dir.
 */
function cli(env: NodeJS.ProcessEnv, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli(args, { env, timeoutMs: 40_000 });
}

interface HistoryItem {
  method: string;
  amount: number;
  state: string;
  createdAt: string;
  txHash?: string;
  sessionId?: string;
  credited?: number;
  address?: string;
}

async function history(env: NodeJS.ProcessEnv): Promise<HistoryItem[]> {
  const r = await cli(env, ['billing', 'history', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as HistoryItem[];
}

/** A USDC transfer on the sandbox's chain (a wallet, outside keydeck); returns its hash. */
async function transfer(upstream: Upstream, to: string, amount: string): Promise<string> {
  const r = await upstream.sandbox.call<{ txHash: string }>('POST', '/sandbox/chain/transfers', { body: { to, amount } });
  expect(r.status).toBe(200);
  return r.body.txHash;
}

/** Types `text` one key at a time, each once the screen shows the one before (keys written together are a paste). */
async function typeAmount(app: PtyApp, text: string): Promise<void> {
  let value = '';
  for (const key of text) {
    value += key;
    app.write(key);
    await app.waitFor(new RegExp(`amount USD: ${value.replace(/\./g, '\\.')}`));
  }
}

/** From the Keys pane: Billing, `t`, the amount, and the method by its letter (u, c). */
async function startTopUp(app: PtyApp, amount: string, letter: 'u' | 'c'): Promise<void> {
  app.write('3');
  await app.waitFor('t starts one');
  app.write('t');
  await app.waitFor('amount USD:');
  await typeAmount(app, amount);
  app.write('\r');
  await app.waitFor('2/3 method');
  app.write(letter);
  await app.waitFor(letter === 'c' ? /▶ \S* ?Card checkout/ : /▶ \S* ?USDC on Base/);
  app.write('\r');
}

describe.concurrent('money state never lies', () => {
  it('an unpaid checkout stays awaiting payment while a USDC credit from the CLI raises the total, also after a restart', { timeout: 150_000 }, async (t) => {
    const rig = await useRig(t, { columns: 100, rows: 30 });
    const { app } = rig;
    await waitForData(app);
    await startTopUp(app, '25', 'c');
    await app.waitFor('waiting for the payment', 15_000);
    const sessionId = /session (cs_sandbox_\w+)/.exec(app.screenText().replace(/[│\s]+/g, ' '))?.[1];
    expect(sessionId).toBeDefined();

    // Another shell credits $25 of USDC: the total of top-ups rises by the checkout's amount.
    const started = await cli(rig.env, ['billing', 'topup', '--amount', '25', '--method', 'usdc', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const address = toChecksumAddress((JSON.parse(started.stdout) as { address: string }).address);
    const tx = await transfer(rig, address, '25');
    const verified = await cli(rig.env, ['billing', 'verify', '--tx', tx, '--amount', '25']);
    expect(verified.code, verified.stderr).toBe(0);

    // Polled within a few seconds: the rise is shown as what it is, never as this checkout paid.
    await app.waitFor('$50.00 left', 20_000);
    await app.waitFor(
      (s) => s.replace(/[│\s]+/g, ' ').includes('The total of top-ups rose by $25.00 since this checkout started: this checkout or another payment; confirm on the checkout page.'),
      15_000,
    );
    let screen = app.screenText();
    expect(screen).not.toContain('Credited');
    expect(screen).toContain('card checkout · $25.00 · awaiting payment');
    // The CLI's top-up is on the same record: the pane lists it, credited, beside the waiting checkout.
    app.write('\x1b');
    await app.waitFor(/\$25\.00\s+USDC on Base\s+credited/, 10_000);
    expect(app.screenText()).toMatch(/\$25\.00\s+card checkout\s+awaiting payment/);
    app.write('\r');
    await app.waitFor('waiting for the payment', 10_000);
    let list = await history(rig.env);
    expect(list.find((e) => e.sessionId === sessionId)).toMatchObject({ method: 'card_checkout', amount: 25, state: 'awaiting_payment' });
    expect(list.find((e) => e.txHash === tx)).toMatchObject({ method: 'usdc', state: 'credited', credited: 25, address });
    expect(list.find((e) => e.sessionId === sessionId)).not.toHaveProperty('credited');

    // A restart: the checkout reopens still awaiting payment (nothing at start-up marks it paid).
    app.kill('SIGKILL');
    await app.exited;
    const again = startApp({ args: ['--interval', String(POLL_SECONDS)], env: rig.env, columns: 100, rows: 30 });
    try {
      await again.waitFor('$50.00 left', 20_000);
      again.write('3');
      // A line of the pane, selected; enter takes it up.
      await again.waitFor('⚠ unfinished top-up of $25.00 · enter takes it up', 10_000);
      again.write('\r');
      await again.waitFor('waiting for the payment', 10_000);
      await new Promise((r) => setTimeout(r, POLL_SECONDS * 1000 * 2));
      screen = again.screenText();
      expect(screen).toContain('card checkout · $25.00 · awaiting payment');
      expect(screen).not.toContain('Credited');
      expect((await history(rig.env)).find((e) => e.sessionId === sessionId)?.state).toBe('awaiting_payment');

      // Paying the checkout page is what credits it: the billing status names the session paid.
      const paid = await fetch(`${rig.sandbox.url}/sandbox/checkout/${sessionId}`, { method: 'POST' });
      expect(paid.ok).toBe(true);
      await again.waitFor('Credited $25.00', 20_000);
      await again.waitFor('$75.00 left', 10_000);
      list = await history(rig.env);
      expect(list.find((e) => e.sessionId === sessionId)).toMatchObject({ state: 'credited', credited: 25 });
    } finally {
      again.kill('SIGKILL');
      await Promise.race([again.exited, new Promise((r) => setTimeout(r, 2000))]);
    }
  });

  it('a verify whose answer was lost, a restart, and a second verify end credited, with the amount in the list', { timeout: 150_000 }, async (t) => {
    const rig = await useRig(t, { columns: 100, rows: 30 });
    const { app } = rig;
    await waitForData(app);
    await startTopUp(app, '30', 'u');
    await app.waitFor('awaiting payment', 15_000);
    const address = /To address\s+(0x[0-9a-fA-F]{40})/.exec(app.screenText())?.[1];
    expect(address).toBeDefined();
    const tx = await transfer(rig, address!, '30');

    // The proxy forwards the verification to the sandbox (which credits it) and never answers.
    rig.proxy.set({ kind: 'delay', ms: 120_000, count: 1, only: VERIFY });
    app.write('h');
    await app.waitFor('tx hash:');
    app.write(tx); // pasted
    await app.waitFor('✓ a valid transaction hash');
    app.write('\r');
    await app.waitFor((s) => s.replace(/[│\s]+/g, ' ').includes('its answer was lost'), CALL_TIMEOUT_MS + 15_000);
    expect(app.screenText()).toContain('USDC on Base · $30.00 · verifying');
    expect(app.screenText()).not.toContain('Refused');
    expect((await history(rig.env))[0]).toMatchObject({ method: 'usdc', state: 'verifying', txHash: tx });
    expect(rig.proxy.seen.filter((r) => r.path === VERIFY.path).map((r) => r.fault)).toEqual(['delay']);

    // keydeck is stopped while it waits; started again, it reopens the top-up, still verifying.
    app.kill('SIGKILL');
    await app.exited;
    const again = startApp({ args: ['--interval', String(POLL_SECONDS)], env: rig.env, columns: 100, rows: 30 });
    try {
      await waitForData(again, '$55.00 left');
      again.write('3');
      await again.waitFor('⚠ top-up of $30.00 sent, not credited yet · enter verifies it', 10_000);
      again.write('\r');
      await again.waitFor('USDC on Base · $30.00 · verifying', 10_000);
      again.write('h');
      await again.waitFor('✓ a valid transaction hash'); // the hash on record, filled in
      again.write('\r');
      await again.waitFor('Credited $30.00', 20_000);
      const screen = again.screenText().replace(/[│\s]+/g, ' ');
      expect(screen).toContain('keydeck’s earlier verification');
      again.write('\r');
      await again.waitFor(/\$30\.00\s+USDC on Base\s+credited/, 10_000);
      expect(again.screenText()).not.toMatch(/refused/);
      const list = await history(rig.env);
      expect(list[0]).toMatchObject({ method: 'usdc', state: 'credited', credited: 30, txHash: tx });
      // Two verifications reached the service: the lost one and the second; nothing was retried by itself.
      expect(rig.proxy.seen.filter((r) => r.path === VERIFY.path).map((r) => r.fault)).toEqual(['delay', 'pass']);
    } finally {
      again.kill('SIGKILL');
      await Promise.race([again.exited, new Promise((r) => setTimeout(r, 2000))]);
    }
  });

  it('keydeck billing verify: the answer lost (exit 4, still verifying), then the same command credits it', { timeout: 90_000 }, async (t) => {
    const upstream = await startUpstream();
    t.onTestFinished(() => upstream.close());
    const started = await cli(upstream.env, ['billing', 'topup', '--amount', '20', '--method', 'usdc', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const address = toChecksumAddress((JSON.parse(started.stdout) as { address: string }).address);
    expect(await history(upstream.env)).toEqual([expect.objectContaining({ method: 'usdc', amount: 20, state: 'awaiting_payment', address })]);
    const tx = await transfer(upstream, address, '20');

    upstream.proxy.set({ kind: 'delay', ms: 60_000, count: 1, only: VERIFY });
    const lost = await cli(upstream.env, ['billing', 'verify', '--tx', tx, '--amount', '20']);
    expect(lost.code).toBe(4);
    expect(lost.stderr).toContain('whether it took effect is unknown');
    expect(lost.stderr).toContain('stays "verifying"');
    expect(await history(upstream.env)).toEqual([expect.objectContaining({ state: 'verifying', txHash: tx, address })]);

    const second = await cli(upstream.env, ['billing', 'verify', '--tx', tx, '--amount', '20']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^Credited \$20\.00: keydeck’s earlier verification of this transaction, whose answer was lost, credited it/);
    expect(await history(upstream.env)).toEqual([expect.objectContaining({ state: 'credited', credited: 20, txHash: tx, address })]);
    const human = await cli(upstream.env, ['billing', 'history']);
    expect(human.stdout).toMatch(/20\.00 USD\s+USDC on Base\s+credited\s+0x[0-9a-f]{64}/);
  });
});
