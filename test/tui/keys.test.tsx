/**
 * The Keys pane against a real sandbox: create (the one-time reveal gone after the
 * acknowledgement), rename, deactivate (confirmed, Cancel first) and reactivate, delete (name
 * typed), the zero-balance refusal, filtering, sorting and the visible window of a long list;
 * against the sandbox answering as the newer documentation pages (keys enveloped, `apiKey` on
 * every entry, `lastUsedAt`): the list read, no key value shown, last use in the details.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, type TuiHandle } from './render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';

let sb: TestSandbox;
let ui: TuiHandle | undefined;

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});
function open(token: string, size: { columns?: number; rows?: number } = {}) {
  const s = noKeychainStore();
  const services = testServices({ store: s.store, baseUrl: sb.url });
  ui = renderApp(services, { session: readySession(sb.url, token), ...size });
  return { services, ui };
}

async function clearField(u: TuiHandle, length: number) {
  for (let i = 0; i < length; i++) await u.press(KEYS.backspace);
}

const SK = /sk_[A-Za-z0-9_-]{16,}/;

describe('Keys pane', () => {
  it('messages belong to their screen: the new key’s default name is a placeholder, "press y" goes with the reveal, a pane switch clears the pane’s message; at $0 the empty pane says to top up first', async () => {
    const empty = open(await sb.fundedUser(0));
    await empty.ui.waitFor('no keys yet; balance $0: top up first (3, then t), then press n');
    empty.ui.unmount();

    const { ui } = open(await sb.fundedUser(25));
    await ui.waitFor('no keys yet: press n');
    await ui.press('n');
    await ui.waitFor(/enter saves "credit-\d{8}-\d{4}"/);
    // The first key typed starts the name: nothing is appended to the default.
    await ui.type('web');
    await ui.waitFor(/name: web/);
    await ui.press(KEYS.enter);
    // keydeck always has a data dir: where the new key goes is asked first; enter shows it once.
    await ui.waitFor('Where should the new key');
    await ui.press(KEYS.enter);
    await ui.waitFor(SK);
    await ui.press(KEYS.esc);
    await ui.waitFor('press y once you have saved the key');
    await ui.press('y');
    await ui.waitFor('gone from the screen');
    expect(ui.lastFrame()).not.toContain('press y once');
    await ui.press('s');
    await ui.waitFor('sorted by name');
    await ui.press('2');
    await ui.waitFor((f) => f.includes('▶2 Management keys') && !f.includes('sorted by name'));
  });

  it('creates a credit key and shows its value once: gone after "I have saved it"', async () => {
    const token = await sb.fundedUser(25);
    const { services, ui } = open(token);
    await ui.waitFor('no keys yet');
    await ui.press('n');
    await ui.waitFor('New credit key');
    await clearField(ui, 40);
    await ui.type('ci-runner');
    await ui.press(KEYS.enter);
    // keydeck always has a data dir: where the new key goes is asked first; enter shows it once.
    await ui.waitFor('Where should the new key');
    await ui.press(KEYS.enter);
    const reveal = await ui.waitFor(SK);
    const secret = SK.exec(reveal)![0];
    expect(reveal).toContain('only time the full key is shown');

    // esc does not drop it by accident; neither does ctrl-c while it was never copied: it asks.
    await ui.press(KEYS.esc);
    expect(ui.lastFrame()).toContain(secret);
    await ui.press(KEYS.ctrlC);
    await ui.waitFor('never copied, and it cannot be shown again');
    expect(services.exits).toEqual([]);
    await ui.press(KEYS.esc);
    await ui.waitFor(secret);
    // c copies it (here the copy fails: say so).
    await ui.press('c');
    await ui.waitFor('copy failed, select the text');
    expect(services.copies).toEqual([secret]);

    const before = ui.frames().length;
    await ui.press('y');
    await ui.waitFor('gone from the screen');
    await ui.waitFor('ci-runner');
    expect(services.redraws.count).toBe(1);
    for (const frame of ui.frames().slice(before)) expect(frame).not.toContain(secret);
    // And it stays gone: later frames (a refresh) never bring it back.
    await ui.press('r');
    await ui.waitFor('refreshed from the service');
    for (const frame of ui.frames().slice(before)) expect(frame).not.toContain(secret);

    const listed = await sb.client(token).keys.list();
    expect(listed.map((k) => k.name)).toEqual(['ci-runner']);
  });

  it('a copied key is cleared from the clipboard once acknowledged, and the status line says where it stays', async () => {
    /** A new credit key shown once, with services whose copy and clearing give these outcomes. */
    const reveal = async (copyOutcome: 'clipboard' | 'osc52', clearOutcome?: 'cleared' | 'changed' | 'osc52') => {
      const token = await sb.fundedUser(25);
      const services = testServices({ store: noKeychainStore().store, baseUrl: sb.url, copyOutcome, ...(clearOutcome && { clearOutcome }) });
      ui = renderApp(services, { session: readySession(sb.url, token) });
      await ui.waitFor('no keys yet');
      await ui.press('n');
      await ui.waitFor('New credit key');
      await ui.press(KEYS.enter);
      // keydeck always has a data dir: where the new key goes is asked first; enter shows it once.
      await ui.waitFor('Where should the new key');
      await ui.press(KEYS.enter);
      return { services, secret: SK.exec(await ui.waitFor(SK))![0] };
    };
    for (const [copyOutcome, clearOutcome, said] of [
      ['clipboard', 'cleared', 'the full key is gone from the screen and was cleared from the clipboard'],
      ['clipboard', 'changed', 'the clipboard holds something else now: left as it is'],
      ['osc52', 'osc52', 'the terminal was asked to clear its clipboard (OSC 52), which keydeck cannot confirm'],
    ] as const) {
      const { services, secret } = await reveal(copyOutcome, clearOutcome);
      await ui!.press('c');
      await ui!.waitFor(copyOutcome === 'clipboard' ? 'copied to the clipboard' : 'sent to the terminal’s clipboard');
      await ui!.press('y');
      // The status line wraps a long sentence: read it as one.
      await ui!.waitFor((f) => f.replace(/\s+/g, ' ').includes(said));
      expect(services.clears).toEqual([{ secret, via: copyOutcome }]);
      ui!.unmount();
    }
    // Never copied: nothing to clear.
    const { services } = await reveal('clipboard');
    await ui!.press('y');
    await ui!.waitFor('gone from the screen');
    expect(services.clears).toEqual([]);
  });

  it('a name another key has is said before anything is sent: Cancel goes back to the name, the action creates it anyway; rename too', async () => {
    const token = await sb.fundedUser(25);
    const web = await sb.creditKey(token, 'web');
    await sb.creditKey(token, 'other');
    const { ui } = open(token);
    await ui.waitFor('other');
    await ui.press('n');
    await ui.waitFor('New credit key');
    await ui.type('web');
    await ui.press(KEYS.enter);
    const asked = await ui.waitFor('A key is already named "web"');
    expect(asked.replace(/[│\s]+/g, ' ')).toContain(`It is the credit key made ${String(web.createdAt).slice(0, 10)} (id ${web.id}).`);
    expect(asked).toMatch(/▶ Cancel/);
    // Cancel (focused): back to the name, nothing sent.
    await ui.press(KEYS.enter);
    await ui.waitFor(/name: web/);
    expect((await sb.client(token).keys.list()).filter((k) => k.name === 'web')).toHaveLength(1);
    await ui.press(KEYS.enter);
    await ui.waitFor('A key is already named "web"');
    await ui.press(KEYS.tab);
    await ui.waitFor(/▶ Create another/);
    await ui.press(KEYS.enter);
    // keydeck always has a data dir: where the new key goes is asked first; enter shows it once.
    await ui.waitFor('Where should the new key');
    await ui.press(KEYS.enter);
    await ui.waitFor(SK);
    await ui.press('y');
    await ui.waitFor('gone from the screen');
    expect((await sb.client(token).keys.list()).filter((k) => k.name === 'web')).toHaveLength(2);

    // Renaming "other" to "web": asked the same way; Cancel keeps its name.
    await ui.press('/');
    await ui.type('other');
    await ui.press(KEYS.enter);
    await ui.waitFor('▶ other');
    await ui.press('e');
    await ui.waitFor('Rename "other"');
    await clearField(ui, 10);
    await ui.type('web');
    await ui.press(KEYS.enter);
    await ui.waitFor(/Rename anyway/);
    await ui.press(KEYS.enter);
    await ui.waitFor('Rename "other"');
    await ui.press(KEYS.esc);
    expect((await sb.client(token).keys.list()).map((k) => k.name).sort()).toEqual(['other', 'web', 'web']);
  });

  it('ctrl-c on a key never copied asks first; ctrl-c again quits with 130; once copied it quits at once', async () => {
    const token = await sb.fundedUser(25);
    const { services, ui } = open(token);
    await ui.waitFor('no keys yet');
    await ui.press('n');
    await ui.waitFor('New credit key');
    await ui.press(KEYS.enter);
    // keydeck always has a data dir: where the new key goes is asked first; enter shows it once.
    await ui.waitFor('Where should the new key');
    await ui.press(KEYS.enter);
    await ui.waitFor(SK);
    await ui.press(KEYS.ctrlC);
    await ui.waitFor('never copied');
    await ui.press(KEYS.ctrlC);
    expect(services.exits).toEqual([{ code: 130 }]);
    ui.unmount();

    const s2 = testServices({ store: noKeychainStore().store, baseUrl: sb.url, copyOutcome: 'clipboard' });
    const ui2 = renderApp(s2, { session: readySession(sb.url, token) });
    // The list is read before n (the default name skips the names it holds).
    await ui2.waitFor('▶ credit-');
    await ui2.press('n');
    await ui2.waitFor('New credit key');
    await ui2.press(KEYS.enter);
    // keydeck always has a data dir: where the new key goes is asked first; enter shows it once.
    await ui2.waitFor('Where should the new key');
    await ui2.press(KEYS.enter);
    await ui2.waitFor(SK);
    await ui2.press('c');
    await ui2.waitFor('copied to the clipboard');
    await ui2.press(KEYS.ctrlC);
    expect(s2.exits).toEqual([{ code: 130 }]);
  });

  it('renames, deactivates after confirmation (Cancel first), reactivates, and deletes after the name is typed', async () => {
    const token = await sb.fundedUser(25);
    const api = sb.client(token);
    const created = await api.keys.createCredit({ name: 'alpha' });
    const { ui } = open(token);
    await ui.waitFor('▶ alpha');

    // Rename.
    await ui.press('e');
    await ui.waitFor('Rename "alpha"');
    await clearField(ui, 5);
    await ui.type('beta');
    await ui.press(KEYS.enter);
    await ui.waitFor('renamed "alpha" to "beta"');
    await ui.waitFor('▶ beta');
    expect((await api.keys.list())[0]).toMatchObject({ id: created.id, name: 'beta' });

    // Deactivate: Cancel is focused, so enter cancels.
    await ui.press(KEYS.space);
    await ui.waitFor('Deactivate "beta"?');
    expect(ui.lastFrame()).toContain('revoked at once');
    await ui.press(KEYS.enter);
    await ui.waitFor('● active');
    expect((await api.keys.list())[0]!.isActive).toBe(true);
    // Tab to the action, then enter.
    await ui.press(KEYS.space);
    await ui.waitFor('Deactivate "beta"?');
    await ui.press(KEYS.tab, KEYS.enter);
    await ui.waitFor('deactivated "beta"');
    await ui.waitFor('○ inactive');
    expect((await api.keys.list())[0]!.isActive).toBe(false);

    // Reactivate: no confirmation needed.
    await ui.press(KEYS.space);
    await ui.waitFor('reactivated "beta"');
    await ui.waitFor('● active');
    expect((await api.keys.list())[0]!.isActive).toBe(true);

    // Delete: enter does nothing until the name matches.
    await ui.press('d');
    await ui.waitFor('Delete "beta"?');
    await ui.type('bet');
    await ui.press(KEYS.enter);
    expect(ui.lastFrame()).toContain('does not match');
    await ui.type('a');
    await ui.press(KEYS.enter);
    await ui.waitFor('deleted "beta" for good');
    await ui.waitFor('no keys yet');
    expect(await api.keys.list()).toEqual([]);
    expect(created.id).toBeTruthy();
  });

  it('n pressed while the stored key is still being read is said, and opens the new key once connected: never dropped', async () => {
    const token = await sb.fundedUser(25);
    const s = noKeychainStore();
    let answer: () => void = () => undefined;
    const read = new Promise<void>((resolve) => (answer = resolve));
    // The store answers late (a slow keychain): the Keys pane is up, its n offered, no client yet.
    const store = { ...s.store, get: async () => (await read, { token, source: 'env' as const }) };
    ui = renderApp(testServices({ store, baseUrl: sb.url }), { columns: 100, rows: 30 });
    await ui.waitFor('n new');
    await ui.press('n');
    await ui.waitFor('connecting: the new key opens once connected');
    answer();
    const dialog = await ui.waitFor('New credit key');
    expect(dialog).toMatch(/enter saves "credit-\d{8}-\d{4}"/);
    ui.unmount();
  });

  it('refuses to create a credit key at a zero balance, explaining the top-up, without sending the request', async () => {
    const token = await sb.newUser();
    const { ui } = open(token);
    await ui.waitFor('no keys yet');
    await ui.press('n');
    const frame = await ui.waitFor('A top-up is needed first');
    expect(frame).toContain('$0.00');
    expect(frame).toContain('press 3 for the Billing pane, then t');
    expect(frame).not.toContain('New credit key');
    await ui.press(KEYS.enter);
    await ui.waitFor('no keys yet');
    // From the notice, 3 goes straight to the Billing pane.
    await ui.press('n');
    await ui.waitFor('3 opens the Billing pane');
    await ui.press('3');
    await ui.waitFor('t starts one');
    expect(ui.lastFrame()).toContain('EMPTY: top up (t)');
    expect(await sb.client(token).keys.list()).toEqual([]);
  });

  it('filters by name as you type, cycles the sort, and renders only the visible window of a long list', async () => {
    const token = await sb.fundedUser(25);
    const api = sb.client(token);
    for (let i = 0; i < 40; i++) await api.keys.createCredit({ name: `key-${String(i).padStart(2, '0')}` });
    const { ui } = open(token);
    await ui.waitFor('key-39');
    const table = (f: string) => f.split('\n').filter((l) => /│ [▶ ] key-/.test(l));
    // Newest first; only the rows that fit (80×24: 6, beside the 7-line details) are drawn.
    expect(table(ui.lastFrame())).toHaveLength(6);
    expect(ui.lastFrame()).not.toContain('key-00');
    await ui.press('G');
    await ui.waitFor('▶ key-00');
    expect(table(ui.lastFrame())).toHaveLength(6);
    expect(ui.lastFrame()).not.toContain('key-39');
    await ui.press('g');
    await ui.waitFor('▶ key-39');
    await ui.press('j', 'j', KEYS.pgDn);
    // Two rows down, then a page of the 6 shown.
    await ui.waitFor(/▶ key-3[0-4]/);

    // Sort by name: key-00 first; the heading says which column sorts.
    await ui.press('s');
    await ui.waitFor('sorted by name');
    await ui.press('g');
    await ui.waitFor('▶ key-00');
    expect(ui.lastFrame()).toContain('name ↓');

    // Filter: typing narrows the list; esc clears it.
    await ui.press('/');
    await ui.type('-1');
    await ui.waitFor('10 of 40');
    expect(table(ui.lastFrame()).length).toBeGreaterThan(0);
    expect(table(ui.lastFrame()).every((l) => l.includes('key-1'))).toBe(true);
    await ui.press(KEYS.enter);
    await ui.waitFor('filter "-1": 10 of 40');
    await ui.press(KEYS.esc);
    await ui.waitFor((f) => !f.includes('filter "-1"') && table(f).length === 6 && !table(f).every((l) => l.includes('key-1')));
  });
});

describe('Keys pane against the newer documentation pages (docs-v2 dialect)', () => {
  it('lists the keys without their key values and shows lastUsedAt in the details', async () => {
    const v2 = await startTestSandbox({ dialect: 'docs-v2' });
    try {
      const token = await v2.fundedUser(25);
      // The newer pages envelope the key endpoints too: the created key is the envelope's data.
      const used = (await v2.creditKey(token, 'used-key')) as unknown as { data: { apiKey: string } };
      await v2.creditKey(token, 'idle-key');
      expect((await v2.infer(used.data.apiKey)).status).toBe(200);
      const s = noKeychainStore();
      const services = testServices({ store: s.store, baseUrl: v2.url });
      ui = renderApp(services, { session: readySession(v2.url, token), columns: 100, rows: 30 });
      let frame = await ui.waitFor('idle-key');
      expect(frame).not.toMatch(SK);
      // The selected key (the first row) and its details.
      await ui.press('g');
      frame = await ui.waitFor(/never used|last used/);
      const detail = frame.includes('used-key  ·  id') ? 'used-key' : 'idle-key';
      expect(frame).toMatch(detail === 'used-key' ? /last used just now/ : /never used/);
      await ui.press('j');
      frame = await ui.waitFor(detail === 'used-key' ? 'never used' : 'last used just now');
      expect(frame).not.toMatch(SK);
    } finally {
      ui?.unmount();
      await v2.close();
    }
  });
});
