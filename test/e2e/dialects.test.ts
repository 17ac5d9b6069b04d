/**
 * End to end in each dialect of the sandbox (seed, and the real service's older and newer
 * documentation pages: src/sandbox/dialect.ts): the built app in a pseudo-terminal.
 * - The commands against `keydeck sandbox`'s in-process twin: `keys list` (no key value, said
 *   once on stderr where the list carried them), `billing credits`, a USDC `billing topup` and
 *   its `billing verify` for the instruction's amount (the older page's instruction names
 *   another amount than the one requested: one sentence says so). In the seed dialect they run
 *   in a pty, the one place these four commands write to a terminal (colour, the spinner while
 *   verify waits); in the pages' dialects, where what differs is what the service sends and not
 *   the terminal, in the test's thread (test/credentials/harness.ts `runCli`), stdout and stderr
 *   read together as the terminal would show them.
 * - The TUI (`keydeck --sandbox --dialect D`): setup to the Keys pane with the demo's keys and
 *   balance, then a USDC top-up walked to "credited" with the balance rising in the header.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, startSandbox, type Dialect } from '../../src/sandbox/index.js';
import { runCli } from '../credentials/harness.js';
import { startApp, type PtyApp } from './pty.js';
import { cleanEnv, openDemoAccount } from './session.js';

let app: PtyApp | undefined;
const dirs: string[] = [];
afterEach(() => {
  app?.kill();
  app = undefined;
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SK = /sk_[A-Za-z0-9_-]{16,}/;

/**
 * Runs `keydeck …args` to its end in `dialect`: for the seed dialect in a pty, returning what it
 * wrote (colours and carriage returns taken out, so lines read as on the terminal); for the
 * others in the test's thread, returning stdout then stderr. And the exit code.
 */
async function run(dialect: Dialect, args: string[], env: NodeJS.ProcessEnv): Promise<{ text: string; exitCode: number }> {
  if (dialect !== 'seed') {
    const r = await runCli(args, { env });
    return { text: `${r.stdout}${r.stderr}`, exitCode: r.code ?? -1 };
  }
  app = startApp({ args, env, columns: 160, rows: 40 });
  const { exitCode } = await app.exited;
  // The last bytes may be read after the exit is reported: wait until the output stops growing.
  let length = -1;
  while (app.output().length !== length) {
    length = app.output().length;
    await new Promise((r) => setTimeout(r, 50));
  }
  const text = app
    .output()
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/\r/g, '');
  app = undefined;
  return { text, exitCode };
}

/** What the USDC instruction asks for when `requested` USD is asked in `dialect`. */
const instructed = (dialect: Dialect, requested: number) => (dialect === 'docs-v1' ? requested / 2 : requested);

for (const dialect of DIALECTS) {
  describe(`dialect ${dialect}`, () => {
    let sandbox: Awaited<ReturnType<typeof startSandbox>>;
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
      sandbox = await startSandbox({ port: 0, dialect });
      const dir = mkdtempSync(path.join(tmpdir(), `keydeck-e2e-${dialect}-`));
      dirs.push(dir);
      env = { ...cleanEnv(dir), KEYDECK_TOKEN: sandbox.token, KEYDECK_BASE_URL: sandbox.url };
    });
    afterAll(async () => {
      await sandbox?.close();
    });

    it('keys list, billing credits, a USDC top-up and its verify', { timeout: 60_000 }, async () => {
      const keys = await run(dialect, ['keys', 'list'], env);
      expect(keys.exitCode).toBe(0);
      expect(keys.text).toContain('Standard subscription');
      expect(keys.text).not.toMatch(SK);
      if (dialect === 'docs-v2') expect(keys.text).toMatch(/The service sent 5 key values in a list \(listKeys\); keydeck hid them\./);
      else expect(keys.text).not.toContain('keydeck hid');
      // lastUsedAt is a column where the service sends it (the seed dialect and the newer pages; not the older).
      if (dialect !== 'docs-v1') expect(keys.text).toMatch(/createdAt\s+lastUsedAt/);
      else expect(keys.text).not.toContain('lastUsedAt');
      const json = await run(dialect, ['keys', 'list', '--json'], env);
      expect(json.text).not.toContain('apiKey');
      expect(json.text).not.toMatch(SK);

      const credits = await run(dialect, ['billing', 'credits'], env);
      expect(credits.exitCode).toBe(0);
      expect(credits.text).toMatch(/remaining\s+84\.20 USD/);

      const topup = await run(dialect, ['billing', 'topup', '--amount', '30', '--method', 'usdc'], env);
      expect(topup.exitCode).toBe(0);
      const paid = instructed(dialect, 30);
      const sentence = /The service's instruction asks for (\S+) USDC, not the 30\.00 USD requested/;
      if (dialect === 'docs-v1') expect(topup.text.replace(/\s+/g, ' ')).toMatch(sentence);
      else expect(topup.text).not.toMatch(sentence);
      expect(topup.text).toContain(`Send exactly ${paid} USDC`);
      const address = /address\s+(0x[0-9a-fA-F]{40})/.exec(topup.text)?.[1];
      expect(address).toBeDefined();
      const transfer = await fetch(`${sandbox.url}/sandbox/chain/transfers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: address, amount: String(paid) }),
      });
      const { txHash } = (await transfer.json()) as { txHash: string };

      const verify = await run(dialect, ['billing', 'verify', '--tx', txHash, '--amount', String(paid)], env);
      expect(verify.exitCode).toBe(0);
      expect(verify.text).toContain(`Credited ${paid.toFixed(2)} USD; the balance is now ${(84.2 + paid).toFixed(2)} USD.`);
    });

    it('the TUI shows the keys and the balance, and walks a USDC top-up to credited', { timeout: 60_000 }, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), `keydeck-e2e-tui-${dialect}-`));
      dirs.push(dir);
      app = startApp({ args: ['--sandbox', '--dialect', dialect], env: cleanEnv(dir), columns: 100, rows: 36 });
      await openDemoAccount(app);
      if (dialect === 'docs-v2') await app.waitFor('keydeck hid them');
      expect(app.screenText()).not.toMatch(SK);

      app.write('3');
      await app.waitFor('t starts one');
      app.write('t');
      await app.waitFor('amount USD:');
      for (const key of '30') {
        app.write(key);
        await app.waitFor(new RegExp(`amount USD: ${key === '3' ? '3' : '30'} *│`));
      }
      app.write('\r');
      await app.waitFor('2/3 method · $30.00');
      app.write('\r'); // USDC on Base is first
      await app.waitFor('awaiting payment');
      const paid = instructed(dialect, 30);
      await app.waitFor(new RegExp(`Send exactly\\s+${paid} USDC`));
      // One sentence names both amounts (it may wrap: its two halves are looked for apart).
      if (dialect === 'docs-v1') {
        await app.waitFor(/instruction asks for 15 USDC/);
        expect(app.screenText()).toMatch(/not the 30\.00 USD requested/);
      } else expect(app.screenText()).not.toContain('instruction asks for');

      app.write('s'); // the sandbox's chain sends the instruction's amount and fills the hash in
      await app.waitFor(`Simulated transfer of ${paid} USDC sent`);
      app.write('\r');
      await app.waitFor(`Credited $${paid.toFixed(2)}`);
      await app.waitFor(`$${(84.2 + paid).toFixed(2)} left`);
      app.write('\r');
      app.write('q');
      expect((await app.exited).exitCode).toBe(0);
    });
  });
}
