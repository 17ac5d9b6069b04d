/**
 * Left alone on the Keys pane, the app draws no frame for what its own polls change (each React
 * commit is a whole frame drawn again by Ink; its debug mode here writes one frame per commit):
 * - keydeck's management key is used by every balance poll, so its `lastUsedAt` moves at each
 *   one, and the management keys list, read in the background behind a hidden pane, made a
 *   commit every fourth poll. The list is still read when its pane is shown, and in the
 *   background while it is.
 * - the header's "updated just now" woke at its 15-second step though polls every 2 s keep it
 *   "just now", and made a commit for the same text.
 */
import { Text } from 'ink';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useAge } from '../../src/tui/hooks/useAge.js';
import { renderSignedInAccount, startTestSandbox, type TestSandbox } from './harness.js';
import { renderTui } from './render.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('idle frames', () => {
  it('draws no frame for what its own polls change, and still reads the management keys on their pane', async () => {
    const { api, inUse, ui } = await renderSignedInAccount(sb, 2);
    // Settled: the start's frames are drawn. Then seven polls at a 2 s interval (the fourth read the
    // lists in the background), each using keydeck's own management key, and the header's first
    // 15-second step of its age.
    await sleep(1000);
    const before = ui.frames().length;
    const usedBefore = (await api.managementKeys.list()).find((k) => k.id === inUse.id)?.lastUsedAt;
    await sleep(15_000);
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
  }, 60_000);

  it('an age read from a time that moves without a render commits only when its text changes', async () => {
    let at = Date.now();
    function Age() {
      return <Text>updated {useAge(() => at, Date.now, 1)}</Text>;
    }
    const ui = renderTui(<Age />);
    await ui.waitFor('updated just now');
    const before = ui.frames().length;
    // Moved every 300 ms (a poll kept in a ref): still "just now" at each 1-second step, no commit.
    const moving = setInterval(() => (at = Date.now()), 300);
    await sleep(2500);
    clearInterval(moving);
    expect(ui.frames().length - before).toBe(0);
    // Left alone, the age goes on: the next step draws it.
    await ui.waitFor('updated 1 s ago', 3000);
    ui.unmount();
  });
});
