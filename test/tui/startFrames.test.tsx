/**
 * The app's start commits what changes the screen (each React commit is a whole frame laid out
 * and drawn again by Ink; its debug mode here writes one frame per commit). On a start against
 * the sandbox, 5 of 9 frames were the frame before again:
 * - the management keys, read at start behind their hidden pane, committed their answer (they
 *   are now kept outside React's state, and their pane reads them while shown);
 * - the key bindings the Keys pane added with its list asked the hint bar to render again, though
 *   it had drawn them in the list's frame (it now renders again only when what it drew changed);
 * - the top-up record, read empty from the journal, set a new empty list;
 * - the billing status and the plans, read by the shown Keys pane, still commit their answers:
 *   here they change nothing on screen (no pool, no plan shown), elsewhere they may.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSignedInAccount, startTestSandbox, type TestSandbox } from './harness.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('start frames', () => {
  it('draws no frame of the start twice but for the billing status and the plans, and shows the management keys read behind their pane', async () => {
    // No poll in the test's time (15 s interval): the frames are the start's.
    const { ui } = await renderSignedInAccount(sb, 15);
    // Settled: every answer of the start is in (the lists, the plans, the billing status, the top-up record).
    await sleep(1500);
    const frames = [...ui.frames()];
    const repeated = frames.filter((frame, i) => i > 0 && frame === frames[i - 1]).length;
    // The boot of the shell, its hint bar, the keys, the balance; and the billing status and the plans (9 frames, 5 repeated, before).
    expect(repeated).toBeLessThanOrEqual(2);
    expect(frames.length).toBeLessThanOrEqual(6);

    // Shown, the pane draws the list read behind it in its first frame (no "loading" first).
    const before = ui.frames().length;
    await ui.press('2');
    await ui.waitFor('keydeck-in-use');
    expect(ui.frames()[before]).toContain('keydeck-in-use');
    expect(ui.frames()[before]).toContain('▶2 Management keys');
  }, 30_000);
});
