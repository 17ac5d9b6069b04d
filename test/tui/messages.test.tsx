/**
 * No sentence is cut: a status message longer than the line wraps (the table shrinks); an
 * expired subscription key is not sent to be reactivated (the service would refuse), and its
 * expiry reads "expired" next to "✕ expired", both from one clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from './render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';
import { expiredKeyMessage } from '../../src/tui/panes/keys/KeysPane.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

/** The screen's text with line breaks, borders and runs of spaces flattened (wrapped sentences read whole). */
const flat = (frame: string) => frame.replace(/[│\s]+/g, ' ');

describe('messages', () => {
  it('says an expired subscription key cannot be reactivated, whole, without sending the request', async () => {
    const token = await sb.newUser();
    const sub = await sb.subscription(token, 'standard');
    await sb.advance(31 * 86_400);
    const s = noKeychainStore();
    const ui = renderApp(testServices({ store: s.store, baseUrl: sb.url }), { session: readySession(sb.url, token), columns: 80, rows: 24 });
    const frame = await ui.waitFor('✕ expired');
    const row = frame.split('\n').find((l) => l.includes('✕ expired'))!;
    expect(row).not.toMatch(/in \d+ d/);
    expect(row).toMatch(/expired\s+│\s+expired/);

    const before = ui
      .lastFrame()
      .split('\n')
      .filter((l) => l.startsWith('│')).length;
    await ui.press(KEYS.space);
    const message = expiredKeyMessage({ name: sub.name as string, keyType: 'subscription', keyPlan: 'standard' });
    await ui.waitFor((f) => flat(f).includes(message));
    // It took several lines, and the pane gave them up: the screen is still 24 lines.
    expect(ui.lastFrame().split('\n').length).toBeLessThanOrEqual(24);
    expect(
      ui
        .lastFrame()
        .split('\n')
        .filter((l) => l.startsWith('│')).length,
    ).toBeLessThanOrEqual(before);
    expect(ui.lastFrame()).not.toContain('Deactivate');
    const [listed] = await sb.client(token).keys.list();
    expect(listed).toMatchObject({ id: sub.id, isActive: false });
    ui.unmount();
  });
});
