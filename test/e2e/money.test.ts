/**
 * End to end, the built app in a pseudo-terminal at 80×24 against its
 * embedded sandbox: a card-on-file charge is never one key (digits do nothing on the method step;
 * enter asks "Charge $10.00 to the card on file?" with Cancel focused); the checkout link comes out
 * whole, on a line of its own with no border, as an OSC 8 hyperlink when asked for, and `o` on a
 * machine with no browser says so and shows the link alone.
 */
import { describe, expect, it } from 'vitest';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();
let app: PtyApp | undefined;
let dir: string | undefined;

/** Billing pane, `t`, the amount, enter: the method step. */
async function toMethodStep(target: PtyApp, amount: string): Promise<void> {
  target.write('3');
  await target.waitFor('t starts one');
  target.write('t');
  await target.waitFor('amount USD:');
  target.write(amount);
  await target.waitFor(new RegExp(`amount USD: ${amount} *│`));
  target.write('\r');
  await target.waitFor(`2/3 method · $${amount}.00`);
}

describe('money in a terminal at 80×24', () => {
  it('card direct: digits do nothing, enter asks with Cancel focused, only Charge charges', { timeout: 90_000 }, async () => {
    dir = rig.tempDir('keydeck-e2e-money-');
    app = rig.start({ args: ['--sandbox'], env: cleanEnv(dir), columns: 80, rows: 24 });
    await openDemoAccount(app);
    await toMethodStep(app, '10');
    app.write('3');
    await new Promise((r) => setTimeout(r, 300));
    expect(app.screenText()).toContain('2/3 method');
    app.write('d');
    await app.waitFor(/▶ d Card direct/);
    app.write('\r');
    await app.waitFor('Charge $10.00 to the card on file?');
    expect(app.screenText()).toMatch(/▶ Cancel/);
    app.write('\r');
    await app.waitFor('2/3 method');
    expect(app.screenText()).toContain('$84.20 left');
    app.write('\r');
    await app.waitFor('Charge $10.00 to the card on file?');
    app.write('\t');
    await app.waitFor(/▶ Charge \$10\.00/);
    app.write('\r');
    await app.waitFor('$94.20 left', 20_000);
  });

  it('the checkout link is a line of its own (no border), an OSC 8 link, and shown alone when no browser can be opened', { timeout: 90_000 }, async () => {
    dir = rig.tempDir('keydeck-e2e-link-');
    const env = cleanEnv(dir);
    for (const name of ['DISPLAY', 'WAYLAND_DISPLAY', 'BROWSER', 'WSL_DISTRO_NAME']) delete env[name];
    env.FORCE_HYPERLINK = '1';
    app = rig.start({ args: ['--sandbox'], env, columns: 80, rows: 24 });
    await openDemoAccount(app);
    await toMethodStep(app, '15');
    app.write('c\r');
    const LINK = /^http:\/\/127\.0\.0\.1:\d+\/sandbox\/checkout\/[\w-]+$/;
    await app.waitFor((s) => s.split('\n').some((l) => LINK.test(l)));
    const line = app.screen().find((l) => LINK.test(l))!;
    // Nothing else on the link's line: no border, no padding.
    expect(line).toMatch(LINK);
    expect(app.output()).toContain(`\x1b]8;;${line}\x07`);

    app.write('o');
    await app.waitFor('No browser could be opened here');
    await app.waitFor('the link is shown alone');
    const alone = app.screen();
    expect(alone.filter((l) => l.includes('checkout/'))).toEqual([line]);
    expect(alone.join('\n')).not.toContain('│');
    app.write('\x1b');
    await app.waitFor('waiting for the payment');
  });
});
