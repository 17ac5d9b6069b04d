/**
 * End to end: everything fits, in a pseudo-terminal. At 80×24 the TUI's
 * screens (Keys, Management keys, Billing, the top-up method step, help) never end a line in a
 * cut "…" and the hint bar keeps `?`; `keydeck monitor` at 40×6 and 60×8 reflows to one figure a
 * line (remaining, runs out, spend first) and never cuts a figure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();
let app: PtyApp | undefined;
let dir: string | undefined;

/**
 * The screen's lines that end in a cut: "…" right after a character at the end of the line (or of
 * the text before a border). A lone "…" (a figure still being collected) is not a cut.
 */
function cutLines(screen: readonly string[]): string[] {
  return screen.filter((l) => /\S…\s*[│╮╯]?\s*$/.test(l));
}

describe('80×24 with the key in the plaintext file', () => {
  it('the header says where the path is instead of cutting it', { timeout: 90_000 }, async () => {
    dir = rig.tempDir('keydeck-e2e-fit-plaintext-');
    app = rig.start({ args: ['--sandbox'], env: cleanEnv(dir), columns: 80, rows: 24 });
    // The demo account signs in by itself; its setup (S) stores a key in the plaintext file.
    await app.waitFor('demo session token (kept in the data dir)', 20_000);
    app.write('S');
    await app.waitFor('Press enter to use the sandbox’s demo session token');
    app.write('\r');
    await app.waitFor('Where to keep the key');
    app.write('1');
    await app.waitFor('Name the management key');
    app.write('\r');
    await app.waitFor('I have saved it');
    app.write('y');
    await app.waitFor('stored in plaintext');
    // The list is in (its first row: the setup's note, which names the file, holds the rest of the
    // screen for its 10 s, and a longer temp dir makes it take a line more).
    await app.waitFor('batch-jobs');
    await app.waitFor('online');
    const screen = app.screen();
    expect(cutLines(screen), screen.join('\n')).toEqual([]);
    expect(screen[1]).toMatch(/⚠ stored in plaintext( \(path: keydeck auth status\))?\s+● online/);
    // Wide enough, the path itself is shown.
    app.resize(200, 24);
    await app.waitFor(/stored in plaintext: \/\S+credentials\.json/);
  });
});

describe('80×24', () => {
  it('no screen ends a line in a cut "…", and the hint bar keeps ?', { timeout: 90_000 }, async () => {
    dir = rig.tempDir('keydeck-e2e-fit-');
    app = rig.start({ args: ['--sandbox'], env: cleanEnv(dir), columns: 80, rows: 24 });
    await openDemoAccount(app);
    const check = (where: string) => {
      const screen = app!.screen();
      expect(cutLines(screen), `${where}:\n${screen.join('\n')}`).toEqual([]);
      expect(screen.filter((l) => l.trim() !== '').at(-1), where).toMatch(/^\? help/);
    };
    check('Keys');
    app.write('2');
    await app.waitFor('key prefix');
    check('Management keys');
    app.write('3');
    await app.waitFor('t starts one');
    check('Billing');
    app.write('t');
    await app.waitFor('amount USD:');
    app.write('20');
    await app.waitFor(/amount USD: 20 *│/);
    app.write('\r');
    await app.waitFor('2/3 method');
    expect(cutLines(app.screen()), app.screenText()).toEqual([]);
    app.write('\x1b');
    await app.waitFor('amount USD:');
    app.write('\x1b');
    await app.waitFor('t starts one');
    app.write('?');
    // Opened at the Billing pane's keys.
    await app.waitFor(/Key bindings \d+–\d+ of \d+[\s\S]*Billing pane \(3\)/);
    expect(cutLines(app.screen()), app.screenText()).toEqual([]);
    // PgDn turns a page, and the page says which section it continues.
    const [first, last] = /Key bindings (\d+)–(\d+) of/.exec(app.screenText())!.slice(1).map(Number);
    expect(last! - first!).toBeGreaterThan(4);
    app.write('\x1b[6~');
    await app.waitFor(`Key bindings ${last! + 1}–`);
    expect(cutLines(app.screen()), app.screenText()).toEqual([]);
    // A page that starts inside a section says which one it continues (turning on until one does).
    for (let page = 0; page < 6 && !/, continued/.test(app.screenText()); page++) {
      const at = Number(/Key bindings (\d+)–(\d+) of/.exec(app.screenText())![2]);
      app.write('\x1b[6~');
      await app.waitFor(`Key bindings ${at + 1}–`);
      expect(cutLines(app.screen()), app.screenText()).toEqual([]);
    }
    expect(app.screenText()).toMatch(/, continued/);
  });
});

describe('keydeck monitor in a small pane', () => {
  let sb: TestSandbox;
  beforeAll(async () => {
    sb = await startTestSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  for (const [columns, rows] of [
    [40, 6],
    [60, 8],
  ] as const) {
    it(`reflows at ${columns}×${rows}: one figure a line, remaining, runs out and spend first, nothing cut`, { timeout: 60_000 }, async () => {
      dir = rig.tempDir('keydeck-e2e-monitor-');
      const user = await sb.fundedUser(80);
      const key = await sb.creditKey(user, 'spender');
      await sb.infer(key.apiKey, { sandbox_cost_usd: 5 });
      const env = { ...cleanEnv(dir), KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url };
      app = rig.start({ args: ['monitor', '--interval', '2'], env, columns, rows });
      await app.waitFor('remaining $75.00');
      await app.waitFor('runs out');
      const screen = app.screen();
      const at = (re: RegExp) => screen.findIndex((l) => re.test(l));
      expect(at(/^remaining \$75\.00$/), screen.join('\n')).toBe(0);
      expect(at(/^runs out /)).toBe(1);
      expect(at(/^spent \$5\.00$/)).toBe(2);
      expect(screen.some((l) => l.includes('…') && !l.includes('(collecting)') && !/^runs out … /.test(l))).toBe(false);
      expect(screen.join('\n')).not.toContain('total top-ups $80.0…');
      if (rows >= 8) expect(screen.join('\n')).toContain('total top-ups $80.00');
      app.write('q');
      expect((await app.exited).exitCode).toBe(0);
    });
  }
});
