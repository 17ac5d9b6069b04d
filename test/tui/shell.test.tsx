/**
 * The shell against a real sandbox: panes and their keys, the `?` overlay, q and ctrl-c through
 * the exit site, the 401 banner with setup offered again, offline handling (the last data
 * stays), and the full, compact and too-small layouts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/tui/format.js';
import { KEY_ACTIONS } from '../../src/tui/keymap.js';
import { KEYS, type TuiHandle } from './render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';

let ui: TuiHandle | undefined;
function services(sb: TestSandbox, extra: { pollIntervalSeconds?: number } = {}) {
  const s = noKeychainStore();
  return testServices({ store: s.store, baseUrl: sb.url, ...extra });
}

const lines = (frame: string) => frame.split('\n');

describe('shell', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('switches panes with 1-3, 0 and tab, shows every binding with ?, and quits with q and ctrl-c', async () => {
    const svc = services(sb);
    ui = renderApp(svc, { session: readySession(sb.url, sb.demoToken) });
    await ui.waitFor('batch-jobs');
    expect(ui.lastFrame()).toContain('SANDBOX');
    await ui.waitFor('$84.20 left');
    // The hint bar keeps ? first and drops what does not fit whole (never a cut hint).
    const hints = lines(ui.lastFrame()).at(-1)!;
    expect(hints).toMatch(/^\? help {2}q quit {2}n new/);
    expect(hints).not.toContain('…');

    await ui.press('2');
    await ui.waitFor('key prefix');
    await ui.press(KEYS.tab);
    await ui.waitFor('total top-ups $125.00');
    expect(ui.lastFrame()).toContain('remaining $84.20');
    await ui.press(KEYS.tab);
    await ui.waitFor('▶0 Accounts');
    await ui.press(KEYS.tab);
    await ui.waitFor('batch-jobs');
    await ui.press(KEYS.shiftTab);
    await ui.waitFor('▶0 Accounts');
    await ui.press(KEYS.shiftTab);
    await ui.waitFor('total top-ups');
    await ui.press('1');
    await ui.waitFor('batch-jobs');

    // ? opens at the keys of the pane it is pressed on, and counts bindings, not lines.
    await ui.press('?');
    await ui.waitFor('Key bindings');
    const opened = ui.lastFrame();
    const top = lines(opened).findIndex((l) => /│ Key bindings \d+–\d+ of \d+ · PgDn next page/.test(l));
    expect(top).toBeGreaterThan(0);
    expect(lines(opened)[top + 1]).toMatch(/│ Keys pane \(1\) +│/);
    expect(opened).not.toContain('Everywhere');
    const [, first, last, total] = /Key bindings (\d+)–(\d+) of (\d+)/.exec(opened)!.map(Number);
    expect(first).toBeGreaterThan(1);
    // Bindings, not lines: as many as the key-action table has.
    expect(total).toBe(KEY_ACTIONS.length);
    // PgDn turns a whole page: the next starts with the binding after the last one shown, and
    // says which section it continues.
    await ui.press(KEYS.pgDn);
    await ui.waitFor(`Key bindings ${last! + 1}–`);
    expect(lines(ui.lastFrame())[top + 1]).toMatch(/│ (.+, continued|[A-Z].*) +│/);
    await ui.press(KEYS.pgUp);
    await ui.waitFor(`Key bindings ${first}–`);
    // No description is cut: long ones wrap under themselves.
    expect(ui.lastFrame()).not.toMatch(/…\s*│/);
    // q closes the overlay, it does not quit.
    await ui.press('q');
    await ui.waitFor('batch-jobs');
    expect(svc.exits).toEqual([]);
    await ui.press('q');
    expect(svc.exits).toEqual([{ code: 0 }]);
    // ctrl-c: 130, as shells expect.
    await ui.press(KEYS.ctrlC);
    expect(svc.exits).toEqual([{ code: 0 }, { code: 130 }]);
  });

  it('says the stored key was rejected (401) and offers the guided setup again with S', async () => {
    const session = await sb.newUser();
    const mk = await sb.client(session).managementKeys.create({ name: 'soon-revoked' });
    const svc = services(sb);
    ui = renderApp(svc, { session: { phase: 'ready', baseUrl: sb.url, credential: { token: mk.apiKey, origin: 'keychain' }, rejected: false } });
    await ui.waitFor('no keys yet');
    // Revoked from another session.
    await sb.client(session).managementKeys.delete(mk.id);
    await ui.press('r');
    await ui.waitFor('was rejected (revoked or deleted): press S');
    expect(ui.lastFrame()).toContain('key rejected');
    expect(lines(ui.lastFrame()).at(-1)).toContain('S set up again');
    await ui.press('S');
    await ui.waitFor('Your token');
  });

  it('lays out 80×24 in full, 60×15 compact, and below that says the terminal is too small', async () => {
    ui = renderApp(services(sb), { session: readySession(sb.url, sb.demoToken), columns: 80, rows: 24 });
    const full = await ui.waitFor('batch-jobs');
    expect(lines(full)).toHaveLength(24);
    expect(lines(full).every((l) => displayWidth(l) <= 80)).toBe(true);
    expect(full).toContain('plan');
    expect(full).toMatch(/╭─+╮/); // the details panel
    expect(full).toContain('bounded by the balance');

    ui.resize(60, 15);
    const compact = await ui.waitFor((f) => lines(f).length === 15 && f.includes('batch-jobs'));
    expect(lines(compact).every((l) => displayWidth(l) <= 60)).toBe(true);
    expect(compact).not.toMatch(/╭─+╮/); // details folded into one line
    expect(compact).toMatch(/limits: (60|200) req\/min/);
    expect(compact).not.toContain('│ plan');
    expect(compact).toContain('expires');

    // State survives the notice: a filter typed before is still there after.
    await ui.press('/');
    await ui.type('Standard');
    await ui.press(KEYS.enter);
    ui.resize(59, 15);
    const small = await ui.waitFor('terminal too small');
    expect(small).toContain('need 60×15, have 59×15');
    expect(small).not.toContain('Standard');
    ui.resize(80, 14);
    await ui.waitFor('have 80×14');
    ui.resize(80, 24);
    const back = await ui.waitFor('filter "Standard"');
    expect(lines(back)).toHaveLength(24);
  });
});

describe('offline', () => {
  it('keeps the last data on screen and says it is offline when the service goes away', async () => {
    const sb = await startTestSandbox();
    try {
      ui = renderApp(services(sb), { session: readySession(sb.url, sb.demoToken) });
      await ui.waitFor('batch-jobs');
      await ui.waitFor('online');
      await sb.close();
      await ui.press('r');
      const frame = await ui.waitFor('Offline:');
      expect(frame).toMatch(/offline since \d\d:\d\d:\d\d/);
      expect(frame).toContain('batch-jobs');
      expect(frame).toContain('$84.20 left');
      expect(frame).toMatch(/Offline: showing the data from \d\d:\d\d:\d\d/);
      expect(lines(frame)).toHaveLength(24);
    } finally {
      await sb.close();
    }
  });
});
