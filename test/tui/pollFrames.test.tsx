/**
 * What a poll costs the TUI on screen: Ink draws the whole frame again at every React commit
 * (about 3 MB of garbage at 100×30), so a balance poll that finds the same account must commit
 * nothing, and one that changes the balance must show it (docs/performance.md, "The TUI's
 * memory"). The renderer runs in Ink's debug mode here, which writes one frame per commit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TuiHandle } from './render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until no frame has been drawn for `quietMs`. */
async function settle(ui: TuiHandle, quietMs = 1500, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let count = ui.frames().length;
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > end) throw new Error('the app never went quiet');
    await sleep(100);
    if (ui.frames().length !== count) {
      count = ui.frames().length;
      since = Date.now();
    }
  }
}

describe('a balance poll on screen', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('draws no frame when it finds the same account, and draws the new balance when it changes', async () => {
    const s = noKeychainStore();
    const svc = testServices({ store: s.store, baseUrl: sb.url, pollIntervalSeconds: 2 });
    // The balance reads the app sends (the watcher's polls), counted where the client sends them.
    let polls = 0;
    const create = svc.createClient;
    (svc as { createClient: typeof create }).createClient = (...args) => {
      const client = create(...args);
      const credits = client.billing.credits.bind(client.billing);
      client.billing.credits = (options) => {
        polls += 1;
        return credits(options);
      };
      return client;
    };
    const token = await sb.newUser();
    await sb.topUp(token, 20);
    const ui = renderApp(svc, { session: readySession(sb.url, token), columns: 100, rows: 30 });
    await ui.waitFor('$20.00 left', 15_000);
    await settle(ui);

    const frames = ui.frames().length;
    const from = polls;
    const end = Date.now() + 20_000;
    while (polls - from < 4 && Date.now() < end) await sleep(100);
    await sleep(300);
    expect(polls - from).toBeGreaterThanOrEqual(4);
    // Four polls of the same account: nothing on screen changed, so nothing was drawn.
    expect(ui.frames().length - frames).toBe(0);

    // The account changes elsewhere: the next poll draws it.
    await sb.topUp(token, 10);
    await ui.waitFor('$30.00 left', 10_000);
  }, 60_000);
});
