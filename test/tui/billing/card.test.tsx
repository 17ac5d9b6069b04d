/**
 * Card top-ups and resilience, against the sandbox: the checkout walk-through finishing by
 * itself when the sandbox's checkout page is paid; a checkout left, paid, and found credited;
 * card direct; a walk-through surviving a pane switch and a resize; and an unfinished USDC
 * top-up (paid on-chain, not credited) reopened after a restart and finished.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { KEYS, openBilling, recordingDeps, sandboxPost, shownAddress, startUsdcTopUp, tempJournal } from './billingHarness.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.close();
});

/** Pays a sandbox checkout session (the form's POST). */
async function payCheckout(sessionUrl: string): Promise<void> {
  const res = await fetch(sessionUrl, { method: 'POST' });
  expect(res.ok).toBe(true);
}

/**
 * Starts a card top-up of `amount` by the method's letter (c checkout, d direct) and enter; a
 * card direct charge is then confirmed (tab to Charge, enter).
 */
async function startCard(tui: Awaited<ReturnType<typeof openBilling>>['tui'], amount: string, key: 'c' | 'd'): Promise<void> {
  await tui.press('t');
  await tui.waitFor('1/3 amount');
  await tui.type(amount);
  await tui.press(KEYS.enter);
  await tui.waitFor('2/3 method');
  await tui.press(key, KEYS.enter);
  if (key === 'd') {
    await tui.waitFor('to the card on file?');
    await tui.press(KEYS.tab, KEYS.enter);
  }
}

describe('card top-ups', () => {
  it('checkout: shows the page, o opens it, c copies it, and it finishes by itself once the page is paid', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await startCard(tui, '30', 'c');
      const frame = await tui.waitFor('waiting for the payment');
      const url = (await journal.list())[0]!.sessionUrl!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sandbox\/checkout\/cs_sandbox_\w+$/);
      expect(frame.replace(/[│\s]/g, '')).toContain(url);
      await tui.press('o');
      await tui.waitFor('opened the checkout page');
      await tui.press('c');
      await tui.waitFor('could not copy the checkout link');
      expect(screen.deps.opened).toEqual([url]);
      expect(screen.services.copies).toEqual([url]);
      await payCheckout(url);
      // Watched every 3 s while on screen: no key needed.
      const done = await tui.waitFor('Credited $30.00', 10_000);
      expect(done).toContain('New balance $30.00');
      expect((await journal.list())[0]).toMatchObject({ method: 'card_checkout', state: 'credited', credited: 30, evidence: expect.stringContaining('lists checkout session cs_sandbox_') });
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('checkout against the sandbox: s pays the session (no browser, no card) and it is credited as a paid page is', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await startCard(tui, '20', 'c');
      const frame = await tui.waitFor('waiting for the payment');
      expect(frame.replace(/[│\s]+/g, ' ')).toContain('This is the sandbox: s pays it as its checkout page would, with no browser and no card.');
      expect(frame).toContain('s pay (sandbox)');
      await tui.press('s');
      const done = await tui.waitFor('Credited $20.00', 10_000);
      expect(done).toContain('New balance $20.00');
      expect(screen.deps.opened).toEqual([]);
      expect((await journal.list())[0]).toMatchObject({ method: 'card_checkout', state: 'credited', credited: 20, evidence: expect.stringContaining('lists checkout session cs_sandbox_') });
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('checkout left with esc keeps waiting; paid later, it is found credited and resumes to the result', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await startCard(tui, '12.34', 'c');
      await tui.waitFor('waiting for the payment');
      const url = (await journal.list())[0]!.sessionUrl!;
      await tui.press(KEYS.esc);
      await tui.waitFor('top-up in progress: $12.34');
      // Another pane, a resize, and back: still there.
      await tui.press('1');
      await tui.waitFor((f) => !f.includes('top-up in progress'));
      tui.resize(100, 30);
      await tui.press('3');
      await tui.waitFor('top-up in progress: $12.34');
      await payCheckout(url);
      await tui.press('r');
      await tui.waitFor('top-up of $12.34 (card checkout) credited: the service’s billing status names it paid');
      await tui.press(KEYS.enter);
      await tui.waitFor('Credited $12.34');
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('card direct: shows what the service answered and finishes because that answer says it was credited', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await startCard(tui, '15', 'd');
      const frame = await tui.waitFor('Credited $15.00', 10_000);
      expect(frame).toContain('New balance $15.00');
      // The sandbox's answer (its shape is not in the spec), shown as it came.
      expect(frame).toMatch(/paymentId: pi_sandbox_\w+/);
      expect(frame).toContain('status: succeeded');
      expect((await journal.list())[0]).toMatchObject({ method: 'card_direct', state: 'credited' });
    } finally {
      screen.close();
      cleanup();
    }
  });
  it('card direct is never one key: digits do not choose, enter asks "Charge $10.00 to the card on file?" with Cancel focused', async () => {
    const { journal, cleanup } = tempJournal();
    const token = await sandbox.newUser();
    const screen = openBilling(sandbox, token, { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await tui.press('t');
      await tui.waitFor('1/3 amount');
      await tui.type('10');
      await tui.press(KEYS.enter);
      await tui.waitFor('2/3 method');
      // The old habit "3" (the Billing pane's key) does nothing here.
      await tui.press('3', '2', '1');
      expect(tui.lastFrame()).toContain('2/3 method');
      await tui.press('d');
      await tui.waitFor(/▶ d Card direct/);
      await tui.press(KEYS.enter);
      let frame = await tui.waitFor('Charge $10.00 to the card on file?');
      expect(frame).toMatch(/▶ Cancel/);
      // enter on the focused Cancel: back to the method step, nothing charged.
      await tui.press(KEYS.enter);
      await tui.waitFor('2/3 method');
      expect(await journal.list()).toEqual([]);
      expect((await sandbox.client(token).billing.credits()).totalTopUp).toBe(0);
      await tui.press(KEYS.enter);
      await tui.waitFor('Charge $10.00 to the card on file?');
      await tui.press(KEYS.esc);
      frame = await tui.waitFor('2/3 method');
      expect(await journal.list()).toEqual([]);
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('an amount above the profile’s ceiling ($500 by default) must be typed again before the method', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await tui.press('t');
      await tui.waitFor('1/3 amount');
      await tui.type('5000');
      await tui.press(KEYS.enter);
      await tui.waitFor('above this profile’s ceiling of $500.00');
      await tui.type('500');
      await tui.press(KEYS.enter);
      await tui.waitFor('not the same amount as $5,000.00');
      await tui.press(KEYS.esc);
      // Back at the amount, as typed.
      await tui.waitFor(/amount USD: 5000/);
      await tui.press(KEYS.enter);
      await tui.waitFor('Top up · confirm $5,000.00');
      await tui.type('5000');
      await tui.press(KEYS.enter);
      await tui.waitFor('2/3 method · $5,000.00');
      expect(await journal.list()).toEqual([]);
    } finally {
      screen.close();
      cleanup();
    }
  });

  it('x asks before closing a checkout (Cancel first), then records it as closed', async () => {
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(sandbox, await sandbox.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      await startCard(tui, '10', 'c');
      await tui.waitFor('waiting for the payment');
      await tui.press('x');
      await tui.waitFor('Close the card checkout top-up of $10.00?');
      await tui.press(KEYS.enter);
      await tui.waitFor('waiting for the payment');
      await tui.press('x');
      await tui.waitFor('Close the card checkout top-up');
      await tui.press(KEYS.tab, KEYS.enter);
      await tui.waitFor('the top-up was closed');
      expect((await journal.list())[0]).toMatchObject({ state: 'closed', reasonCode: 'closed' });
    } finally {
      screen.close();
      cleanup();
    }
  });
});

describe('restart', () => {
  it('shows a USDC top-up paid on-chain but not credited as a line of the pane, enter takes it up, and finishes it', async () => {
    const { journal, cleanup } = tempJournal();
    const token = await sandbox.newUser();
    const first = openBilling(sandbox, token, { deps: recordingDeps(journal) });
    let address: string;
    try {
      await first.tui.waitFor('remaining $0.00');
      address = shownAddress(await startUsdcTopUp(first.tui, '10'))!;
    } finally {
      first.close();
    }
    // Paid from a wallet while keydeck was closed.
    const { txHash } = await sandboxPost<{ txHash: string }>(sandbox, '/sandbox/chain/transfers', { to: address, amount: '10' });

    const second = openBilling(sandbox, token, { deps: recordingDeps(journal) });
    try {
      // The pane stays the pane: the unfinished top-up is a line, selected, one key away.
      const pane = await second.tui.waitFor('⚠ unfinished top-up of $10.00 · enter takes it up');
      expect(pane.replace(/\s+/g, ' ')).toContain('an unfinished top-up of $10.00 (USDC on Base): enter on the Billing pane (3) takes it up');
      await second.tui.waitFor('remaining $0.00');
      expect(pane).not.toContain('Top up · USDC');
      await second.tui.press(KEYS.enter);
      const frame = await second.tui.waitFor('Top up · 3/3 pay · USDC on Base · $10.00 · awaiting payment');
      expect(frame).toContain(address);
      await second.tui.press('h');
      await second.tui.press(txHash);
      await second.tui.waitFor('✓ a valid transaction hash');
      await second.tui.press(KEYS.enter);
      await second.tui.waitFor('Credited $10.00');
    } finally {
      second.close();
      cleanup();
    }
  });
});

describe('a failed poll', () => {
  it('keeps the walk-through and its figures: the service going away shows offline, nothing is lost', async () => {
    const own = await startTestSandbox();
    const { journal, cleanup } = tempJournal();
    const screen = openBilling(own, await own.newUser(), { deps: recordingDeps(journal) });
    const { tui } = screen;
    try {
      await tui.waitFor('remaining $0.00');
      const address = shownAddress(await startUsdcTopUp(tui, '10'))!;
      await own.close();
      await tui.press(KEYS.esc);
      await tui.press('r');
      const frame = await tui.waitFor('offline since');
      expect(frame).toContain('remaining $0.00');
      await tui.press(KEYS.enter);
      expect(await tui.waitFor('To address')).toContain(address);
    } finally {
      screen.close();
      cleanup();
    }
  });
});
