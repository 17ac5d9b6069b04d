/**
 * End to end ("Done when"): `keydeck --sandbox --dialect docs-v2` in a pseudo-terminal
 * and the built CLI beside it, on one sandbox database. The demo account holds two pool pledges
 * without a key: the Keys pane names them, `n` mints one's key in the TUI (shown once), the CLI
 * mints the other's (`keys create --subscription`) and `keydeck pools` lists the sandbox's pools;
 * the CLI-minted key works only in a block that is not the current one, so an inference request
 * with it gets 429 while its row says `○ outside` and its details when its next block starts.
 */
import { describe, expect, it } from 'vitest';
import { BLOCK_NAMES, blockOfHour } from '../../src/api/poolBlocks.js';
import { runCli } from '../credentials/harness.js';
import { startTestSandbox } from '../sandbox/helpers.js';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, openDemoAccount } from './session.js';

const rig = e2eRig();
let app: PtyApp | undefined;

const SK = /sk_[0-9A-Za-z]{40}/;

describe('pool subscriptions from a clean start', () => {
  it('mints a pledge’s key in the TUI and with the CLI, lists the pools, and says why a pool key gets 429 outside its block', { timeout: 90_000 }, async () => {
    const dir = rig.tempDir('keydeck-e2e-pools-');
    const env = cleanEnv(dir);
    // The database the app then opens: the docs-v2 demo pledge, and one more for a block that is not now.
    const pre = await startTestSandbox({ dbPath: env.KEYDECK_SANDBOX_DB!, dialect: 'docs-v2' });
    const token = pre.token;
    const hour = new Date((await pre.call('POST', '/sandbox/clock', { body: { advanceSeconds: 0 } })).body.now).getUTCHours();
    const other = BLOCK_NAMES.find((b) => b !== blockOfHour(hour))!;
    const night = (await pre.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: [other] } })).body.id as string;
    await pre.close();

    app = rig.start({ args: ['--sandbox', '--dialect', 'docs-v2'], env, columns: 100, rows: 30 });
    await openDemoAccount(app);
    await app.waitFor('⚠ 2 subscriptions have no key: kimi26, kimi26 · n mints one');
    const url = `http://${/127\.0\.0\.1:\d+/.exec(app.screenText())![0]}`;

    // The TUI mints the first pledge's key: chosen, named, shown once, acknowledged.
    app.write('n');
    await app.waitFor('mint the key of pool pledge kimi26 (asia, europe, americas)');
    app.write('\r');
    await app.waitFor('enter saves "kimi26"');
    app.write('\r');
    await app.waitFor('Where should the new key "kimi26" go?');
    app.write('\r');
    await app.waitFor(SK);
    app.write('y');
    await app.waitFor('the full key is gone from the screen');
    await app.waitFor('⚠ pool pledge kimi26 (' + other + ') has no key · n mints it');

    // The CLI mints the other one, and lists the pools.
    const cliEnv = { ...env, KEYDECK_BASE_URL: url, KEYDECK_TOKEN: token };
    const made = await runCli(['keys', 'create', '--subscription', night, 'night-shift', '--json'], { env: cliEnv });
    expect(made.code, made.stderr).toBe(0);
    const apiKey = JSON.parse(made.stdout).apiKey as string;
    expect(apiKey).toMatch(SK);
    const again = await runCli(['keys', 'create', '--subscription', night, 'again'], { env: cliEnv });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/subscription_has_key: .*"night-shift"/);
    const pools = await runCli(['pools'], { env: cliEnv });
    expect(pools.stdout).toMatch(/^kimi26\s+Kimi K2\.6\s+active/m);

    // Outside its block: 429 from the sandbox, and the row and details say why.
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(429);
    app.write('r');
    await app.waitFor((s) => /night-shift\s+│ sub\s+│ ○ outside/.test(s) && !s.includes('has no key'));
    app.write('/');
    app.write('night');
    app.write('\r');
    await app.waitFor(new RegExp(`reserved hours: outside its blocks: next ${other} in \\d+ (h|min) \\(429 until then\\)`));
    expect(app.screenText()).not.toMatch(SK);
  });
});
