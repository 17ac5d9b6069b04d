/**
 * The real browser opener: `o` on a card checkout opens the checkout page through the
 * bundled `open` package, which runs `xdg-open` on Linux. A fake `xdg-open` first on PATH records
 * the argument it was given; the app is the built one, in a pseudo-terminal, against its embedded
 * sandbox. (The `open` chunk of the bundle used to fail to load, and every other test stubs the
 * opener, so `o` had never worked.)
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();
let app: PtyApp | undefined;
let dir: string | undefined;

/** Waits until `file` exists and is not empty; returns its text. */
async function readWhenWritten(file: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      if (text.endsWith('\n')) return text;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${file} was not written within ${timeoutMs} ms`);
}

describe('o on a card checkout', () => {
  it('opens the checkout link with the system opener (xdg-open)', { timeout: 60_000 }, async () => {
    dir = rig.tempDir('keydeck-e2e-open-');
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    const record = path.join(dir, 'xdg-open.args');
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${record}.tmp" && mv "${record}.tmp" "${record}"\n`);
    chmodSync(path.join(bin, 'xdg-open'), 0o755);
    const env = cleanEnv(dir);
    env.PATH = `${bin}${path.delimiter}${env.PATH ?? ''}`;
    // Not a desktop: nothing else decides for open() (WSL, a container's host browser); a graphical
    // session is claimed (without one keydeck says there is no browser and shows the link alone).
    delete env.BROWSER;
    delete env.WSL_DISTRO_NAME;
    env.DISPLAY = ':0';

    app = rig.start({ args: ['--sandbox'], env, columns: 100, rows: 30 });
    await openDemoAccount(app);
    app.write('3');
    await app.waitFor('t starts one');
    app.write('t');
    await app.waitFor('amount USD:');
    app.write('15');
    await app.waitFor(/amount USD: 15 *│/);
    app.write('\r');
    await app.waitFor('2/3 method · $15.00');
    app.write('\x1b[B'); // down: card checkout
    await app.waitFor(/▶.*Card checkout/);
    app.write('\r');
    await app.waitFor(/sandbox\/checkout\//);
    app.write('o');
    await app.waitFor('opened the checkout page in the browser');

    const opened = (await readWhenWritten(record)).trim();
    expect(opened).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sandbox\/checkout\/[\w-]+$/);
    // The link the dialog shows is the one that was opened.
    expect(app.screenText().replace(/[│\s]/g, '')).toContain(opened);
  });
});
