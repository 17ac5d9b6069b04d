/**
 * End to end, as a new user after `npm start`: the built app (`keydeck --sandbox`) in a
 * pseudo-terminal, through the guided setup, to the Billing pane; a USDC top-up of $30 walked
 * through every step (amount, method, the deposit instruction, a simulated transfer on the
 * sandbox's chain, the hash verified), and the balance rising live from $84.20 to $114.20 in the
 * pane and the header; then the journal lists it as credited, and a restart shows it again.
 */
import { describe, expect, it } from 'vitest';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();
let app: PtyApp | undefined;
let dir: string | undefined;

/**
 * Edits the amount field one key at a time, as a person does: each key is written only once the
 * screen shows the previous one (so each intermediate value is seen on screen). `\x7f` is
 * backspace.
 */
async function editAmount(target: PtyApp, keys: string, from = ''): Promise<string> {
  let value = from;
  for (const key of keys) {
    value = key === '\x7f' ? value.slice(0, -1) : value + key;
    target.write(key);
    const shown = value === '' ? 'e.g. 25' : value.replace(/\./g, '\\.');
    await target.waitFor(new RegExp(`amount USD: ${shown} *│`));
  }
  return value;
}

describe('a USDC top-up from npm start', () => {
  it('walks amount → USDC → simulated transfer → verify, and the balance goes from $84.20 to $114.20', { timeout: 60_000 }, async () => {
    dir = rig.tempDir('keydeck-e2e-usdc-');
    const env = cleanEnv(dir);
    app = rig.start({ args: ['--sandbox'], env, columns: 100, rows: 30 });
    await openDemoAccount(app);

    app.write('3');
    await app.waitFor('t starts one');
    app.write('t');
    await app.waitFor('amount USD:');
    // A refused amount says why, inline, and nothing is requested.
    const refused = await editAmount(app, '9.999');
    await app.waitFor(/at most two decimals|whole cents|at least 10/);
    await editAmount(app, '\x7f'.repeat(5) + '30', refused);
    app.write('\r');
    await app.waitFor('2/3 method · $30.00');
    app.write('\r'); // USDC on Base is first
    await app.waitFor('awaiting payment');
    const screen = app.screenText();
    expect(screen).toMatch(/Send exactly\s+30 USDC/);
    expect(screen).toMatch(/To address\s+0x[0-9a-fA-F]{40}/);
    expect(screen).toContain('Base (chain id 8453)');
    expect(screen).toContain('USDC on the Base network only');
    expect(app.screenText()).toContain('$84.20 left');

    app.write('s'); // the sandbox's chain "sends" the transfer and fills the hash in
    await app.waitFor(/tx hash: 0x[0-9a-f]{64}/);
    app.write('\r');
    await app.waitFor('Credited $30.00');
    await app.waitFor('$114.20 left');
    app.write('\r');
    await app.waitFor('remaining $114.20');
    expect(app.screenText()).toMatch(/\$30\.00\s+USDC on Base\s+credited/);

    app.write('q');
    expect((await app.exited).exitCode).toBe(0);

    // The journal (in the data dir) survives a restart: the credited top-up is listed again.
    app = rig.start({ args: ['--sandbox'], env, columns: 100, rows: 30 });
    await openDemoAccount(app, '$114.20');
    app.write('3');
    await app.waitFor(/\$30\.00\s+USDC on Base\s+credited/);
  });
});
