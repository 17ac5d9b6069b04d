/**
 * End to end, in a pseudo-terminal: the built app against an in-process sandbox (the resilience
 * rig: a management key in KEYDECK_TOKEN, a 2-second poll). Several keys in one write each count
 * (`jjj`, three backspaces, readline's ctrl-w and ctrl-u), and so does a key typed before the
 * first frame; a pasted 66-character hash with a trailing line break lands whole in the field
 * without submitting; the selection stays on its key after `r` and `s`; a key deleted elsewhere
 * disappears without `r`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startRig, waitForData, type Rig } from '../resilience/harness.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** The row of the Keys table whose name starts with `name`, or undefined. */
const rowOf = (screen: string, name: string) => screen.split('\n').find((l) => new RegExp(`│ [▶ ] ${name}`).test(l));

describe('keys and paste in a terminal', () => {
  it('counts every key of one write and keeps the selection on its key', { timeout: 90_000 }, async () => {
    rig = await startRig();
    const { app, sandbox } = rig;
    await waitForData(app);
    const ids: Record<string, string> = {};
    for (const name of ['k1', 'k2', 'k3', 'k4']) ids[name] = (await sandbox.creditKey(rig.account, name)).id;
    app.write('r');
    await app.waitFor('k4');
    expect(rowOf(app.screenText(), 'chaos-key')).toContain('▶'); // the reload kept the selection
    app.write('g');
    await app.waitFor('▶ k4');

    app.write('jjj'); // one write
    await app.waitFor('▶ k1');

    // The selection stays on k1 when a reload puts a new key above it, and when the sort changes.
    app.write('k'); // k2
    await app.waitFor('▶ k2');
    await sandbox.creditKey(rig.account, 'k5');
    app.write('r');
    await app.waitFor((s) => rowOf(s, 'k5') !== undefined);
    expect(rowOf(app.screenText(), 'k2')).toContain('▶');
    app.write('s');
    await app.waitFor('sorted by name');
    await app.waitFor('▶ k2');
    // A key whose action reads the state the one before left: four `s` in one write are four steps
    // (name → status → expiry → spend → created), then one more back to "by name".
    app.write('ssss');
    await app.waitFor('sorted newest first');
    app.write('s');
    await app.waitFor('sorted by name');

    // Editing: three backspaces in one write, then ctrl-w and ctrl-u.
    app.write('e');
    await app.waitFor('Rename "k2"');
    app.write('x-yz\x7f\x7f\x7f'); // "k2x-yz" then three backspaces: "k2x"
    await app.waitFor(/name: k2x\s/);
    app.write(' one two\x17'); // ctrl-w deletes "two"
    await app.waitFor(/name: k2x one\s/);
    app.write('\x15'); // ctrl-u: nothing left
    await app.waitFor('name must not be empty');
    app.write('renamed\r');
    await app.waitFor('renamed "k2" to "renamed"');
    await app.waitFor('▶ renamed');

    // Deleted elsewhere: gone from the list without r (the background reload), the nearest row selected.
    await sandbox.call('DELETE', `/api/keys/${ids.k2!}`, { token: rig.account });
    await app.waitFor((s: string) => !s.includes('renamed'), 30_000);
    // Sorted by name, "renamed" was the 6th of 7 rows: the row now at its place is selected.
    expect(app.screenText()).toContain('▶ Standard subscription');

    // Bracketed paste was on while keydeck ran, and is off again once it has left.
    app.write('q');
    expect((await app.exited).exitCode).toBe(0);
    const out = app.output();
    expect(out).toContain('\x1b[?2004h');
    expect(out.lastIndexOf('\x1b[?2004l')).toBeGreaterThan(out.lastIndexOf('\x1b[?2004h'));
  });

  it('counts keys typed while keydeck starts, and draws from the top left however far the shell echoed them', { timeout: 90_000 }, async () => {
    rig = await startRig();
    const { app } = rig;
    // Typed at once, before the first frame: the terminal is still in the shell's cooked mode,
    // which echoes the key on the main screen and moves the cursor one cell to the right.
    app.write('2');
    await app.waitFor('▶2 Management keys', 20_000);
    await app.waitFor('key prefix');
    await app.waitFor('$25.00 left');
    const screen = app.screenText().split('\n');
    // The fault proxy stands in front of a sandbox, which answers GET /sandbox through it.
    expect(screen[0]).toMatch(/^keydeck {2}SANDBOX {3}profile /);
    expect(screen[2]).toMatch(/^ 1 Keys {2}▶2 Management keys/);
  });

  it('takes a pasted 66-character hash with a trailing line break whole, without submitting it', { timeout: 90_000 }, async () => {
    rig = await startRig();
    const { app, sandbox } = rig;
    await waitForData(app);
    app.write('3');
    await app.waitFor('t starts one');
    app.write('t');
    await app.waitFor('amount USD:');
    app.write('10\r'); // one write: the amount, then enter
    await app.waitFor('2/3 method · $10.00');
    app.write('\r'); // USDC on Base is first
    await app.waitFor('awaiting payment');
    const address = /To address\s+(0x[0-9a-fA-F]{40})/.exec(app.screenText())![1]!;
    const transfer = await sandbox.call<{ txHash: string }>('POST', '/sandbox/chain/transfers', { body: { to: address, amount: '10' } });
    const hash = transfer.body.txHash;
    expect(hash).toHaveLength(66);

    app.write('h');
    await app.waitFor('tx hash:');
    app.write(`${PASTE_START}${hash}\r\n${PASTE_END}`);
    await app.waitFor('✓ a valid transaction hash');
    expect(app.screenText().replace(/\s+/g, '')).toContain(hash); // whole, never cut (it may wrap)
    expect(app.screenText()).not.toContain('Credited');
    app.write('\r');
    await app.waitFor('Credited $10.00');
  });
});
