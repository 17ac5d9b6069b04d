/**
 * Left alone on the Keys pane, the app draws no frame for what its own polls change: keydeck's
 * management key is used by every balance poll, so its `lastUsedAt` moves at each one, and the
 * management keys list, read in the background behind a hidden pane, used to make a React commit
 * (a whole frame drawn again by Ink) every fourth poll. The list is still read when its pane is
 * shown, and in the background while it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noKeychainStore, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('idle frames', () => {
  it('draws no frame for its own key being used, and still reads the management keys on their pane', async () => {
    const session = await sb.fundedUser(25);
    const api = sb.client(session);
    await api.keys.createCredit({ name: 'service-a' });
    const inUse = await api.managementKeys.create({ name: 'keydeck-in-use' });
    const s = noKeychainStore();
    const ui = renderApp(testServices({ store: s.store, baseUrl: sb.url, pollIntervalSeconds: 2 }), {
      session: { phase: 'ready', baseUrl: sb.url, credential: { token: inUse.apiKey, origin: 'memory' }, rejected: false },
    });
    await ui.waitFor('▶ service-a');
    await ui.waitFor('$25.00');
    // Settled: the start's frames are drawn. Then five polls at a 2 s interval (the fourth read the
    // lists in the background), each using keydeck's own management key.
    await sleep(1000);
    const before = ui.frames().length;
    const usedBefore = (await api.managementKeys.list()).find((k) => k.id === inUse.id)?.lastUsedAt;
    await sleep(8_000);
    const usedAfter = (await api.managementKeys.list()).find((k) => k.id === inUse.id)?.lastUsedAt;
    expect(usedAfter).not.toBe(usedBefore);
    expect(ui.frames().length - before).toBe(0);

    // Shown, the pane reads the list (a key made elsewhere appears) ...
    await api.managementKeys.create({ name: 'made-elsewhere' });
    await ui.press('2');
    await ui.waitFor('made-elsewhere');
    // ... and keeps reading it in the background while it is shown, with no key pressed.
    await api.managementKeys.create({ name: 'made-later' });
    await ui.waitFor('made-later', 15_000);
    ui.unmount();
  }, 40_000);
});
