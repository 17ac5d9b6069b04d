/**
 * The built TUI polls its account, and the other profiles of its Accounts pane, through Node's own
 * HTTP client (src/api/nodeHttp.ts), never got: got allocates several times more per request, and
 * at a poll every few seconds that garbage is promoted into V8's old space, which then fills
 * towards its next collection and stays resident (docs/performance.md, "The TUI's memory (round
 * 6)"). Seen from outside the process: a module hook given at start (`--import`, Node's
 * `module.registerHooks`) writes down every module the app loads, and whether it is got's (its
 * default user agent names its repository).
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCredentialStore } from '../../src/credentials/index.js';
import { startTestSandbox } from '../sandbox/helpers.js';
import { cleanEnv, e2eRig } from './session.js';

const rig = e2eRig();

/** Writes `<url>` per module loaded, `got <url>` for one holding got's code, to KEYDECK_TEST_MODULE_LOG. */
const HOOK = `
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    const source = loaded.source == null ? '' : typeof loaded.source === 'string' ? loaded.source : Buffer.from(loaded.source).toString('utf8');
    appendFileSync(process.env.KEYDECK_TEST_MODULE_LOG, (source.includes('sindresorhus/got') ? 'got ' : '') + url + '\\n');
    return loaded;
  },
});
`;

describe('the TUI on the network', () => {
  it('polls its account and the other profiles through Node’s own HTTP client: got is never loaded', { timeout: 60_000 }, async () => {
    const sb = await startTestSandbox();
    try {
      const dir = rig.tempDir('keydeck-e2e-transport-');
      const hook = path.join(dir, 'hook.mjs');
      const log = path.join(dir, 'modules.log');
      writeFileSync(hook, HOOK);
      writeFileSync(log, '');
      // Two profiles on the sandbox, each with its own account: alpha (the app's) and beta (the Accounts pane's, polled from the start).
      const env: NodeJS.ProcessEnv = { ...cleanEnv(dir), KEYDECK_TEST_MODULE_LOG: log, NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` };
      const configDir = env.KEYDECK_CONFIG_DIR!;
      mkdirSync(configDir, { recursive: true, mode: 0o700 });
      chmodSync(configDir, 0o700);
      const profiles = { alpha: { baseUrl: sb.url }, beta: { baseUrl: sb.url } };
      writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ version: 1, currentProfile: 'alpha', profiles }), { mode: 0o600 });
      const alpha = await sb.fundedUser(20);
      const beta = await sb.fundedUser(40);
      const store = createCredentialStore({ env, loadKeytar: () => Promise.reject(new Error('no keychain in this test')) });
      await store.set('alpha', alpha, { origin: new URL(sb.url).origin, insecureStorage: true });
      await store.set('beta', beta, { origin: new URL(sb.url).origin, insecureStorage: true });

      const app = rig.start({ args: ['--interval', '2'], env, columns: 100, rows: 30 });
      await app.waitFor('$20.00 left', 20_000);
      // The Accounts pane: beta's balance, read in the background since the start.
      app.write('0');
      await app.waitFor(/beta .*\$40\.00/, 15_000);
      const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      // The hook saw the app's modules (the bundle's chunks, Ink's among them) ...
      expect(loaded.filter((url) => url.includes('/chunks/')).length).toBeGreaterThan(5);
      // ... and none of them was got.
      expect(loaded.filter((url) => url.startsWith('got '))).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});
