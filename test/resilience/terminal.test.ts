/**
 * The terminal under stress: resize storms between 60×15 and 200×60 (then the final layout is
 * right, nothing crashed, keys still work), the "terminal too small" notice below 60×15 and
 * gone again above it, and SIGINT, SIGTERM and SIGHUP each leaving the terminal as it was:
 * alternate screen left, cursor visible, echo and canonical mode back on (read with `stty -a`
 * in the same terminal right after keydeck exits).
 */
import { describe, expect, it } from 'vitest';
import type { PtyApp } from '../e2e/pty.js';
import { CREDIT_KEY_NAME, SUBSCRIPTION_KEY_NAME, waitForData } from './harness.js';
import { useRig } from './scenario.js';

/** Resolves once `check(screen rows)` holds (polled every 50 ms); throws with the screen after `timeoutMs`. */
async function untilScreen(app: PtyApp, check: (rows: string[]) => boolean, what: string, timeoutMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await app.waitFor('', 1000); // lets xterm apply what has arrived
    const rows = app.screen();
    if (check(rows)) return rows;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${rows.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A small deterministic generator (so a failing storm can be replayed). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The full layout of a `columns` × `rows` terminal, drawn right: header, tabs, table, hint bar, each once. */
function fullLayoutIsRight(screen: string[], columns: number, rows: number): boolean {
  return (
    screen.length === rows &&
    screen[0]!.startsWith('keydeck ') &&
    screen[0]!.endsWith('$25.00 left') &&
    screen[0]!.length === columns &&
    /online · updated .+$/.test(screen[1]!) &&
    screen[1]!.length === columns &&
    screen[2]!.startsWith('▶1 Keys') &&
    screen[3]!.startsWith('┌') &&
    screen[3]!.endsWith('┐') &&
    screen[3]!.length === columns &&
    screen.some((l) => l.includes(SUBSCRIPTION_KEY_NAME)) &&
    screen.some((l) => l.includes(CREDIT_KEY_NAME)) &&
    screen[rows - 1]!.startsWith('? help') &&
    screen.filter((l) => l.includes('profile default')).length === 1 &&
    screen.filter((l) => l.startsWith('? help')).length === 1 &&
    !screen.some((l) => l.includes('terminal too small'))
  );
}

describe.concurrent('the terminal', () => {
  it('resize storms between 60×15 and 200×60: the final layout is right, no crash; below 60×15 a notice that goes away', { timeout: 90_000 }, async (t) => {
    const rig = await useRig(t, { columns: 100, rows: 30 });
    const { app } = rig;
    await waitForData(app);
    await app.waitFor('online · updated');

    const random = lcg(8);
    for (let i = 0; i < 60; i++) {
      app.resize(60 + Math.floor(random() * 141), 15 + Math.floor(random() * 46));
      await new Promise((r) => setTimeout(r, 5));
    }
    app.resize(120, 40);
    await untilScreen(app, (s) => fullLayoutIsRight(s, 120, 40), 'the 120×40 layout after the storm');
    for (let i = 0; i < 30; i++) {
      app.resize(i % 2 === 0 ? 200 : 60, i % 2 === 0 ? 60 : 15);
      await new Promise((r) => setTimeout(r, 5));
    }
    app.resize(200, 60);
    await untilScreen(app, (s) => fullLayoutIsRight(s, 200, 60), 'the 200×60 layout after the storm');

    // Below 60×15: the notice, in either direction; back above it: the app, as it was.
    app.resize(59, 15);
    await app.waitFor('terminal too small (need 60×15, have 59×15)');
    app.resize(60, 14);
    await app.waitFor('have 60×14');
    app.resize(60, 15);
    const compact = await untilScreen(
      app,
      (s) => !s.some((l) => l.includes('terminal too small')) && s.some((l) => l.includes(CREDIT_KEY_NAME)) && s[14]!.startsWith('? help'),
      'the compact layout at 60×15',
    );
    expect(compact[0]).toContain('$25.00 left');
    app.resize(80, 24);
    await untilScreen(app, (s) => fullLayoutIsRight(s, 80, 24), 'the 80×24 layout');

    // Still alive and listening: the keys switch panes.
    app.write('2');
    await app.waitFor('resilience', 5000);
    expect(await Promise.race([app.exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('running'), 50))])).toBe('running');
  });

  /**
   * Runs keydeck under `sh -c 'keydeck; echo exit=$?; stty -a'`, sends `signal` to keydeck;
   * returns all output, what followed the last "leave the alternate screen", and what the shell
   * printed after keydeck exited (its exit line and `stty -a`).
   */
  async function signalled(t: Parameters<typeof useRig>[0], signal: NodeJS.Signals): Promise<{ out: string; after: string; stty: string; exitLine: string | undefined }> {
    const rig = await useRig(t, { columns: 100, rows: 30, after: 'echo "exit=$?"; stty -a' });
    const { app } = rig;
    await waitForData(app);
    process.kill(rig.keydeckPid(), signal);
    await Promise.race([app.exited, new Promise((_, reject) => setTimeout(() => reject(new Error(`keydeck did not exit on ${signal}`)), 15_000))]);
    const out = app.output();
    const after = out.slice(Math.max(0, out.lastIndexOf('\x1b[?1049l')));
    const stty = out.slice(out.lastIndexOf('exit='));
    return { out, after, stty, exitLine: /^exit=\d+/.exec(stty)?.[0] };
  }

  /** `stty -a` says `setting` is on (as a word, not `-setting`). */
  const on = (stty: string, setting: string) => new RegExp(`(^|[\\s;])${setting}([\\s;]|$)`).test(stty);
  const off = (stty: string, setting: string) => new RegExp(`(^|[\\s;])-${setting}([\\s;]|$)`).test(stty);

  it.for([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s leaves the terminal restored: alternate screen left, cursor shown, echo on (exit %i)', { timeout: 90_000 }, async ([signal, code], t) => {
    const { out, after, stty, exitLine } = await signalled(t, signal);
    const leave = out.lastIndexOf('\x1b[?1049l');
    expect(leave).toBeGreaterThan(out.lastIndexOf('\x1b[?1049h'));
    expect(after).toContain('\x1b[?25h');
    expect(after).not.toContain('\x1b[?25l');
    expect(exitLine).toBe(`exit=${code}`);
    expect(on(stty, 'echo')).toBe(true);
    expect(off(stty, 'echo')).toBe(false);
    expect(on(stty, 'icanon')).toBe(true);
    expect(off(stty, 'icanon')).toBe(false);
    expect(after).not.toContain('unexpected error');
  });

  it('the check can fail: SIGKILL (which no program can handle) leaves echo off', { timeout: 90_000 }, async (t) => {
    const { stty } = await signalled(t, 'SIGKILL');
    expect(off(stty, 'echo')).toBe(true);
  });
});
