/**
 * End to end: the built app (`node dist/cli.js --sandbox`) in a pseudo-terminal, read as a
 * terminal shows it. From start through the guided setup (the demo session token, "this
 * session only" since there is no keychain) to a created credit key, acknowledged, then `q`:
 * the terminal is restored (alternate screen left, cursor shown) and the exit code is 0.
 */
import { describe, expect, it } from 'vitest';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();
let app: PtyApp | undefined;
let dir: string | undefined;

const SK = /sk_[A-Za-z0-9_-]{16,}/;

describe('keydeck --sandbox in a terminal', () => {
  it('walks from start to a created credit key, then q restores the terminal and exits 0', { timeout: 60_000 }, async () => {
    dir = rig.tempDir('keydeck-e2e-');
    app = rig.start({ args: ['--sandbox'], env: cleanEnv(dir), columns: 100, rows: 30 });

    await openDemoAccount(app);
    expect(app.output()).toContain('\x1b[?1049h');

    // The demo account's pool pledge has no key yet: n asks which key; j, enter: a credit key.
    app.write('n');
    await app.waitFor('a new credit key (draws on the shared balance)');
    app.write('j\r');
    await app.waitFor('New credit key');
    app.write('\r');
    // Where it goes: shown once here (enter), as before.
    await app.waitFor('Where should the new key');
    app.write('\r');
    await app.waitFor(SK);
    const secret = SK.exec(app.screenText())![0];
    const shownAt = app.output().length;
    app.write('y');
    await app.waitFor('gone from the screen');
    await app.waitFor('credit-');
    expect(app.screenText()).not.toContain(secret);
    // Nothing written after the acknowledgement carries the key.
    expect(app.output().slice(shownAt)).not.toContain(secret);

    app.write('q');
    const { exitCode } = await app.exited;
    expect(exitCode).toBe(0);
    const out = app.output();
    const leave = out.lastIndexOf('\x1b[?1049l');
    expect(leave).toBeGreaterThan(out.lastIndexOf('\x1b[?1049h'));
    const tail = out.slice(leave);
    expect(tail).toContain('\x1b[?25h');
    expect(tail.lastIndexOf('\x1b[?25l')).toBe(-1);
    expect(out.endsWith('\x1b[?25h')).toBe(true);
  });
});
