/**
 * The TUI on a read-only and on a protected profile (docs/credentials.md "Read-only and protected
 * profiles"), and the renewal cancel of the Billing pane (`c`), against a real sandbox whose every
 * request is counted (its request log):
 * - read-only: `RO` in the header at 80×24 and 100×30; `d`, `space`, `n`, `e`, `R`, the
 *   management keys' `n` and `d`, the Billing pane's `t` and the status view's `c` open no dialog,
 *   say why on the status line, and nothing that changes the account is sent;
 * - protected: deactivating a key (`space`) needs its name typed, as deleting it (`d`) does;
 * - `c` in the status view (and in the pools view for the selected pool) cancels a renewal as
 *   `keydeck billing cancel` does: asked first, then "stays active until …".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, type TuiHandle } from './render.js';
import { noKeychainStore, readySession, renderApp, testServices } from './harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import type { AppServices } from '../../src/tui/services.js';

let sb: TestSandbox;
/** Every request the sandbox answered: `METHOD /path status ms`. */
const requests: string[] = [];
/** The requests that would change the account (anything but a read). */
const changes = () => requests.filter((line) => !line.startsWith('GET ') && / \/api\//.test(line));

beforeAll(async () => {
  // docs-v2: the billing status lists subscriptions and pool pledges as the newer pages show them.
  sb = await startTestSandbox({ dialect: 'docs-v2', log: (line) => requests.push(line) });
});
afterAll(async () => {
  await sb.close();
});

/** A frame's text as one line: box-drawing and line breaks as spaces, runs of spaces as one. */
const flat = (frame: string) => frame.replace(/[│╭╮╰╯─]/g, ' ').replace(/\s+/g, ' ');

const REASON = 'the profile "prod" is read-only (readOnly in /home/me/.config/keydeck/config.json)';

/** The app on `token`'s account, with the profile's marks. */
function open(token: string, marks: { readOnly?: string; protected?: boolean }, size: { columns: number; rows: number } = { columns: 80, rows: 24 }): TuiHandle {
  const base = testServices({ store: noKeychainStore().store, baseUrl: sb.url, profile: 'prod' });
  const services: AppServices = { ...base, profile: { ...base.profile, ...marks } };
  return renderApp(services, { session: readySession(sb.url, token), ...size });
}

describe('a read-only profile in the TUI', () => {
  for (const size of [
    { columns: 80, rows: 24 },
    { columns: 100, rows: 30 },
  ]) {
    it(`at ${size.columns}×${size.rows}: RO in the header; every change is refused with a line, no dialog, nothing sent`, async () => {
      const token = await sb.fundedUser(30);
      await sb.creditKey(token, 'prod-web');
      await sb.call('POST', '/api/keys/management', { token, body: { name: 'ci-deploy' } });
      await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['europe'] } });
      const ui = open(token, { readOnly: REASON }, size);
      const first = await ui.waitFor('prod-web');
      expect(first.split('\n')[0]).toMatch(/ (LIVE|SANDBOX) .*RO .*prod/);
      const before = changes().length;

      const refused = (action: string) => `The profile "prod" is read-only (readOnly in /home/me/.config/keydeck/config.json), so keydeck does not ${action}; nothing was sent.`;
      const expectRefused = async (key: string, action: string) => {
        await ui.press(key);
        // The whole sentence, on the status line (wrapped at 80 columns).
        const frame = await ui.waitFor((f) => flat(f).includes(refused(action)));
        expect(frame).not.toMatch(/Type the name to confirm|Deactivate "|New credit key|Rename "|Cancel the renewal\?/);
      };
      await expectRefused('d', 'delete a key');
      await expectRefused(KEYS.space, 'deactivate a key');
      await expectRefused('n', 'create a key');
      await expectRefused('e', 'rename a key');
      await ui.press('2');
      await ui.waitFor('ci-deploy');
      await expectRefused('n', 'create a management key');
      await expectRefused('d', 'delete a management key');
      await ui.press('3');
      await ui.waitFor('▶3 Billing');
      await expectRefused('t', 'top up');
      await ui.press('s');
      await ui.waitFor('billing status (GET /api/billing/status)');
      await expectRefused('c', 'cancel a renewal');
      expect(changes().slice(before)).toEqual([]);
      ui.unmount();
    });
  }
});

describe('a protected profile in the TUI', () => {
  it('space on an active key asks for its name typed; a wrong name does nothing, the right one deactivates it', async () => {
    const token = await sb.fundedUser(30);
    await sb.creditKey(token, 'prod-api');
    const ui = open(token, { protected: true });
    await ui.waitFor('prod-api');
    await ui.press(KEYS.space);
    await ui.waitFor('Type the name to confirm: prod-api');
    expect(ui.lastFrame()).toContain('The profile is protected.');
    const before = changes().length;
    await ui.type('prod');
    await ui.press(KEYS.enter);
    await ui.waitFor('the name does not match yet');
    expect(changes().slice(before)).toEqual([]);
    await ui.type('-api');
    await ui.waitFor('enter deactivates it · esc cancels');
    await ui.press(KEYS.enter);
    await ui.waitFor('deactivated "prod-api"');
    expect(changes().slice(before), changes().slice(before).join('\n')).toEqual([expect.stringMatching(/^PUT \/api\/keys\/\S+ 200 /)]);
    // A delete asks for the name on every profile: here too.
    await ui.press('d');
    await ui.waitFor('Type the name to confirm: prod-api');
    await ui.press(KEYS.esc);
    ui.unmount();
  });
});

describe('cancelling a renewal in the TUI (c)', () => {
  it('from the status view: asked first (Cancel focused), then the status says it ends at its period end; from the pools view, only that pool’s pledges', async () => {
    const token = await sb.fundedUser(30);
    const pledge = (await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['europe'] } })).body as { id: string };
    const ui = open(token, {}, { columns: 100, rows: 30 });
    await ui.press('3');
    await ui.waitFor('▶3 Billing');
    await ui.press('s');
    await ui.waitFor('c cancels a renewal');
    const before = changes().length;
    await ui.press('c');
    await ui.waitFor('Cancel the renewal?');
    expect(flat(ui.lastFrame())).toMatch(/Cancel the renewal of the pool pledge kimi26 \(europe\), id /);
    expect(flat(ui.lastFrame())).toMatch(/It stays active until \d{4}-\d\d-\d\d \d\d:\d\d UTC and is not renewed; its key stops working then/);
    // Cancel is focused first: enter sends nothing.
    await ui.press(KEYS.enter);
    await ui.waitFor((f) => !f.includes('Cancel the renewal?'));
    expect(changes().slice(before)).toEqual([]);
    await ui.press('c');
    await ui.waitFor('Cancel the renewal?');
    await ui.press(KEYS.tab, KEYS.enter);
    await ui.waitFor((f) => /cancelled the renewal of the pool pledge kimi26 \(europe\), id \S+: it stays active until \d{4}-\d\d-\d\d/.test(flat(f)));
    expect(changes().slice(before)).toEqual([expect.stringMatching(/^POST \/api\/billing\/cancel 200 /)]);
    const status = (await sb.call('GET', '/api/billing/status', { token })).body;
    expect(((status.data ?? status).poolPledges as Array<{ id: string; cancelAtPeriodEnd: boolean }>).find((p) => p.id === pledge.id)).toMatchObject({ cancelAtPeriodEnd: true });
    // Nothing renews any more: said, nothing sent.
    await ui.press('c');
    await ui.waitFor((f) => flat(f).includes('no subscription or pool pledge renews: nothing to cancel, nothing was sent'));
    // The pools view: the selected pool's pledges only.
    await ui.press('s', 'p');
    await ui.waitFor(/kimi26\s+│ Kimi K2\.6/);
    await ui.press('c');
    await ui.waitFor((f) => flat(f).includes('no pledge of the pool kimi26 renews: nothing to cancel, nothing was sent'));
    expect(changes().slice(before)).toHaveLength(1);
    ui.unmount();
  });
});
