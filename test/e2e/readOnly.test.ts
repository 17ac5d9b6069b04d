/**
 * End to end, the built app in a pseudo-terminal on a read-only profile (docs/credentials.md
 * "Read-only and protected profiles"): `keydeck --sandbox --read-only` wears `RO` in its header at
 * 80×24, and `d` on the Keys pane opens no dialog but says why on the status line; with
 * `--auto-topup` it refuses before drawing anything (exit 3, the sentence on the terminal).
 */
import { describe, expect, it } from 'vitest';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();

describe('keydeck --read-only in a terminal', () => {
  it('RO in the header at 80×24; d says why nothing is deleted; q exits 0', { timeout: 60_000 }, async () => {
    const app = rig.start({ args: ['--sandbox', '--read-only'], env: cleanEnv(rig.tempDir('keydeck-ro-')), columns: 80, rows: 24 });
    await openDemoAccount(app);
    expect(app.screen()[0]).toMatch(/^keydeck {2}SANDBOX {3}RO {3}profile sandbox · /);
    app.write('d');
    await app.waitFor((s) => s.replace(/\s*\n\s*/g, ' ').includes('--read-only was given for profile "sandbox", so keydeck does not delete a key; nothing was sent.'));
    expect(app.screenText()).not.toContain('Type the name to confirm');
    app.write('q');
    expect((await app.exited).exitCode).toBe(0);
  });

  it('with --auto-topup: refused before anything is drawn, exit 3', { timeout: 30_000 }, async () => {
    const app = rig.start({ args: ['--sandbox', '--read-only', '--auto-topup'], env: cleanEnv(rig.tempDir('keydeck-ro-')), columns: 80, rows: 24 });
    expect((await app.exited).exitCode).toBe(3);
    expect(app.output()).toContain(
      'keydeck: read_only: --read-only was given for profile "sandbox", so keydeck does not act on auto top-up (--auto-topup); nothing was sent (run it without --read-only).',
    );
    expect(app.output()).not.toContain('\x1b[?1049h');
  });
});
