/**
 * The Keys pane's words that move with the clock say the truth in an idle TUI: a subscription key
 * turns "expired" when its paid time ends, and a key's "last used just now" becomes "1 min ago" a
 * minute after its use, with no key pressed, no answer changing, and no usage figures (whose age's
 * minute used to be the only thing that drew the pane again). Each change is one commit (one frame
 * for Ink), the pane tabs' notice of the ending subscription included, and nothing is committed
 * while the words stay as drawn. The sandbox's clock is moved forward so that each boundary comes
 * seconds after the app starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type AppHandle, type TestSandbox } from './harness.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The app signed in with `token`, 100 columns wide, its balance polled every `pollIntervalSeconds` (60: no answer comes while a test watches). */
function appOf(token: string, pollIntervalSeconds = 60): AppHandle {
  return renderApp(testServices({ store: noKeychainStore().store, baseUrl: sb.url, pollIntervalSeconds }), { session: readySession(sb.url, token), columns: 100 });
}

/**
 * Watches `ui` every 20 ms until `seen(frame)` holds (at most `withinMs`); resolves with this
 * machine's time when it was first drawn.
 */
async function drawnAt(ui: AppHandle, seen: (frame: string) => boolean, withinMs: number): Promise<number> {
  for (const until = Date.now() + withinMs; Date.now() < until; await sleep(20)) {
    if (seen(ui.lastFrame() ?? '')) return Date.now();
  }
  throw new Error(`not drawn within ${withinMs} ms:\n${ui.lastFrame()}`);
}

describe("the Keys pane's words that move with the clock", () => {
  it('turns a subscription key expired at its end, in one commit with the tabs notice, with nothing else drawn', async () => {
    const token = await sb.fundedUser(10);
    const before = Date.now();
    const key = await sb.subscription(token, 'standard');
    const after = Date.now();
    // A credit key made after it, listed first and selected: the expiring key is a row of the table.
    // (Selected, its end also changes the pane's keys, space on/off gone: the hint bar draws that
    // in a commit of its own, as when the cursor moves onto an expired key.)
    await sb.creditKey(token, 'service-a');
    const paidMs = Date.parse(key.subscriptionExpiresAt as string) - Date.parse(key.createdAt as string);
    // The sandbox's clock moved to 8 s before the key's end: it ends at `end` (this machine's clock,
    // known to the few ms the subscription's request took).
    const leftMs = 8_000;
    await sb.advance((paidMs - leftMs) / 1000);
    const end = { earliest: before + leftMs, latest: after + leftMs };

    const ui = appOf(token);
    await ui.waitFor('▶ service-a');
    await ui.waitFor(/<1 h left/);
    await ui.waitFor('subscription ends in less than a minute');
    // Settled: the start's frames drawn, and the key not yet at its end.
    await sleep(1000);
    expect(Date.now()).toBeLessThan(end.earliest - 1000);
    expect(ui.lastFrame()).not.toContain('expired');
    const frames = ui.frames().length;

    const seen = await drawnAt(ui, (frame) => frame.includes('expired'), end.latest + 5_000 - Date.now());
    // Never before its end (the service's clock, read from its Date header, is never ahead of it),
    // and late by at most the second that header drops, the wake's 50 ms and this loop's.
    expect(seen).toBeGreaterThanOrEqual(end.earliest);
    expect(seen - end.latest).toBeLessThan(1500);
    const frame = ui.lastFrame()!;
    expect(frame).not.toContain('<1 h left');
    expect(frame).not.toContain('subscription ends in');
    // One commit for the status, the expiry, the details and the tabs' notice, then nothing.
    expect(ui.frames().length - frames).toBe(1);
    await sleep(1000);
    expect(ui.frames().length - frames).toBe(1);
  }, 30_000);

  it("says a key's last use a minute old when it is, in one commit, having drawn nothing before", async () => {
    const token = await sb.fundedUser(10);
    const used = await sb.creditKey(token, 'batch-jobs');
    const before = Date.now();
    expect((await sb.infer(used.apiKey)).status).toBe(200);
    const after = Date.now();
    // The use 52 s old by the sandbox's clock: "last used just now" until it is 60 s old.
    await sb.advance(52);
    const minute = { earliest: before + 8_000, latest: after + 8_000 };

    const ui = appOf(token);
    await ui.waitFor('last used just now');
    await sleep(1000);
    expect(Date.now()).toBeLessThan(minute.earliest - 1000);
    const frames = ui.frames().length;

    const seen = await drawnAt(ui, (frame) => frame.includes('last used 1 min ago'), minute.latest + 5_000 - Date.now());
    expect(seen).toBeGreaterThanOrEqual(minute.earliest);
    expect(seen - minute.latest).toBeLessThan(1500);
    expect(ui.frames().length - frames).toBe(1);
    await sleep(1000);
    expect(ui.frames().length - frames).toBe(1);
  }, 30_000);

  it("follows the service's clock when an answer corrects it: the next balance poll draws the words of the new time", async () => {
    const token = await sb.fundedUser(10);
    const key = await sb.subscription(token, 'standard');
    const paidMs = Date.parse(key.subscriptionExpiresAt as string) - Date.parse(key.createdAt as string);
    // 4 h 30 min of paid time left: "⚠ 4 h left", its next word due in half an hour.
    await sb.advance((paidMs - 4.5 * 3_600_000) / 1000);
    const ui = appOf(token, 2);
    await ui.waitFor('⚠ 4 h left');
    await ui.waitFor('subscription ends in 4 h');
    await sleep(500);
    const frames = ui.frames().length;
    // The service's clock jumps an hour ahead (the Date header of its next answer says so); the
    // key list and the balance stay as they were.
    const moved = Date.now();
    await sb.advance(3600);
    const seen = await drawnAt(ui, (frame) => frame.includes('⚠ 3 h left') && frame.includes('subscription ends in 3 h'), 6_000);
    // Within a poll (2 s) and the time its answer takes, in one commit for the row, the details and the tabs.
    expect(seen - moved).toBeLessThan(3_000);
    expect(ui.frames().length - frames).toBe(1);
  }, 30_000);
});
