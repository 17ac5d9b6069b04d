/**
 * The selection is a key, not a row: it stays on the same key across `r`, `s`, filters and
 * background reloads, moves to the nearest row when its key is deleted elsewhere, and a long
 * list says where the selection is (`12/46`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from './render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

const name = (i: number) => `key-${String(i).padStart(2, '0')}`;

async function open(count: number, pollIntervalSeconds = 15) {
  const token = await sb.fundedUser(25);
  const api = sb.client(token);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push((await api.keys.createCredit({ name: name(i) })).id);
  }
  const s = noKeychainStore();
  const ui = renderApp(testServices({ store: s.store, baseUrl: sb.url, pollIntervalSeconds }), { session: readySession(sb.url, token) });
  await ui.waitFor(`▶ ${name(count - 1)}`);
  return { ui, api, ids };
}

describe('selection', () => {
  it('stays on its key after r, s and a filter, and shows its place in a long list', async () => {
    const { ui, api } = await open(30);
    await ui.waitFor('1/30');
    await ui.press('jjjjj');
    await ui.waitFor('▶ key-24');
    expect(ui.lastFrame()).toContain('6/30');

    // A key created elsewhere lands above it on r: the selection stays on key-24, on its screen line.
    const lineOf = (f: string) => f.split('\n').findIndex((l) => l.includes('▶ key-24'));
    const line = lineOf(ui.lastFrame());
    await api.keys.createCredit({ name: 'new-one' });
    await ui.press('r');
    await ui.waitFor('7/31');
    expect(lineOf(ui.lastFrame())).toBe(line);

    // Sorting moves the row, not the selection.
    await ui.press('s');
    await ui.waitFor('sorted by name');
    await ui.waitFor('▶ key-24');
    expect(ui.lastFrame()).toContain('25/31');

    // A filter that hides it shows the row at its place; clearing the filter selects it again.
    await ui.press('/', '-0');
    await ui.waitFor('10 of 31');
    await ui.press(KEYS.esc);
    await ui.waitFor('▶ key-24');
    ui.unmount();
  });

  it('drops a key deleted elsewhere without r (pane shown again, background reload) and selects the nearest row', async () => {
    const { ui, api, ids } = await open(5, 2);
    await ui.press('jj');
    await ui.waitFor('▶ key-02');

    await api.keys.delete(ids[2]!);
    await ui.press('2');
    await ui.press('1');
    await ui.waitFor((f) => !f.includes('key-02'));
    expect(ui.lastFrame()).toContain('▶ key-01');

    // The background reload (every 4th balance poll: 8 s at a 2 s interval) with no key pressed.
    await api.keys.delete(ids[1]!);
    await ui.waitFor((f) => !f.includes('key-01'), 20_000);
    expect(ui.lastFrame()).toContain('▶ key-00');
    ui.unmount();
  }, 30_000);
});
