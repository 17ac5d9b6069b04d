/**
 * The input layer in the app: several keys in one write each count, in lists, across a mode
 * switch (`/` then the filter text) and in text fields; a bracketed paste is text for the
 * focused field, never key actions, and its line break does not submit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, type TestSandbox, testServices } from '../harness.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

async function openWithKeys(count: number) {
  const token = await sb.fundedUser(25);
  const api = sb.client(token);
  for (let i = 0; i < count; i++) await api.keys.createCredit({ name: `key-${String(i).padStart(2, '0')}` });
  const s = noKeychainStore();
  const ui = renderApp(testServices({ store: s.store, baseUrl: sb.url }), { session: readySession(sb.url, token) });
  await ui.waitFor(`▶ key-${String(count - 1).padStart(2, '0')}`);
  return { ui, api };
}

describe('keys in one write', () => {
  it('moves three rows for `jjj`, and `/-0` opens the filter and types into it', async () => {
    const { ui } = await openWithKeys(12);
    await ui.press('jjj');
    await ui.waitFor('▶ key-08');
    await ui.press('kk');
    await ui.waitFor('▶ key-10');
    await ui.press('/-0');
    await ui.waitFor('10 of 12');
    await ui.press(`${KEYS.enter}`);
    await ui.waitFor('filter "-0": 10 of 12');
    ui.unmount();
  });

  it('edits a field with several keys per write, readline keys and a paste that does not submit', async () => {
    const { ui, api } = await openWithKeys(1);
    await ui.press('e');
    await ui.waitFor('Rename "key-00"');
    await ui.press('\x7f\x7f\x7f'); // three backspaces in one write
    await ui.waitFor((f) => /name: key\s/.test(f));
    await ui.press('abc def\x17'); // ctrl-w deletes "def"
    await ui.waitFor((f) => /name: keyabc\s/.test(f));
    await ui.press('\x15'); // ctrl-u: the whole line
    await ui.waitFor('✕ name must not be empty');
    await ui.paste('pasted-name\r\n');
    await ui.waitFor('name: pasted-name');
    expect(ui.lastFrame()).toContain('Rename "key-00"'); // the line break did not submit
    await ui.press('\x01x\r'); // ctrl-a, x, enter: all in one write
    await ui.waitFor('renamed "key-00" to "xpasted-name"');
    expect((await api.keys.list())[0]!.name).toBe('xpasted-name');
    ui.unmount();
  });

  it('turns bracketed paste on while running and off on exit; a paste outside a field does nothing', async () => {
    const { ui, api } = await openWithKeys(3);
    expect(ui.stdout.modes).toContain('\x1b[?2004h');
    await ui.paste('jjd');
    await ui.press('j');
    await ui.waitFor('▶ key-01');
    expect(ui.lastFrame()).not.toContain('Delete');
    expect(await api.keys.list()).toHaveLength(3);
    ui.unmount();
    expect(ui.stdout.modes.at(-1)).toBe('\x1b[?2004l');
  });
});
