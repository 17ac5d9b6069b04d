/**
 * End to end: subscription time shown as money, in a pseudo-terminal against
 * `keydeck --sandbox` with the sandbox's clock moved (`POST /sandbox/clock`). The demo account's
 * standard subscription, 11½ hours before its end by the service's clock (this machine's clock
 * still says 30 days: keydeck reckons by the service's HTTP Date): flagged in its row and once
 * beside the tabs, the detail says how a subscription is renewed, deactivating and deleting name
 * the paid time lost; once it has ended, on/off is no longer offered.
 */
import { describe, expect, it } from 'vitest';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();
let app: PtyApp | undefined;
let dir: string | undefined;

/** The embedded sandbox's address, read off the header (`127.0.0.1:PORT`). */
function sandboxUrl(screen: string): string {
  const m = /127\.0\.0\.1:(\d+)/.exec(screen);
  if (!m) throw new Error(`no sandbox address on screen:\n${screen}`);
  return `http://127.0.0.1:${m[1]}`;
}

async function advance(url: string, seconds: number): Promise<void> {
  const res = await fetch(`${url}/sandbox/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: seconds }) });
  expect(res.ok).toBe(true);
}

describe('subscription time as money', () => {
  it('flags 11 h left in the row and once beside the tabs, says how to renew, names the paid time lost, and hides on/off once ended', { timeout: 90_000 }, async () => {
    dir = rig.tempDir('keydeck-e2e-sub-');
    app = rig.start({ args: ['--sandbox'], env: cleanEnv(dir), columns: 80, rows: 24 });
    await openDemoAccount(app);
    const url = sandboxUrl(app.screenText());
    // Select the demo's standard subscription (the oldest key: the last row), then move the
    // service's clock to 11.5 h before it ends (it was bought 21 days ago, for 30 days).
    app.write('G');
    await app.waitFor('▶ Standard subs');
    await advance(url, 9 * 86_400 - 11.5 * 3600);
    app.write('r');
    await app.waitFor('⚠ 11 h left');
    const screen = app.screenText();
    expect(screen).toContain('⚠ subscription ends in 11 h');
    expect(screen.split('⚠ subscription ends').length - 1).toBe(1);
    expect(screen).toContain('11 h of paid time left');
    // With the service's plans (GET /api/plans) the renewal names the plan's price.
    expect(screen).toMatch(/renewal: not extended; a new (subscription payment|payment \(\$20\.00\/month\)) creates a new key/);

    // Deactivating names the paid time that keeps running out; Cancel keeps it.
    app.write(' ');
    await app.waitFor('Deactivate "Standard subscription');
    await app.waitFor(/Its 11 h of paid time keep\s+running out while it is off/);
    app.write('\x1b');
    await app.waitFor('⚠ 11 h left');
    // Deleting names the paid time lost.
    app.write('d');
    await app.waitFor(/11 h of paid time are lost/);
    app.write('\x1b');
    await app.waitFor('⚠ 11 h left');

    // Ended: no on/off offered (the service refuses to switch an ended subscription back on).
    await advance(url, 12 * 3600);
    app.write('r');
    await app.waitFor(/expired/);
    await app.waitFor((s) => !s.includes('subscription ends in'), 15_000);
    expect(app.screenText()).not.toContain('subscription ends in');
    expect(app.screenText()).not.toContain('on/off');
    app.write(' ');
    await new Promise((r) => setTimeout(r, 400));
    expect(app.screenText()).not.toContain('Deactivate');
  });
});
