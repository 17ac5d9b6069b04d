/**
 * A damaged top-up record with a charge in flight ends every run with exit 3 and no charge
 * (src/billing/journal.ts, "Fail closed"; docs/crash-safety.md). `autotopup run --once` is killed
 * as its charge is about to be sent (`request:topUp#1`: the record holds a card charge
 * "verifying", whose answer a real service may have lost after charging), then `topups.db` is
 * damaged the four ways a tester did (one row's JSON edited, the header overwritten, the file cut
 * in half, cut to 0 bytes). Every money run after it — `billing topup`, `billing verify`,
 * `autotopup run --once` — goes through a recording proxy in front of the sandbox, and must end
 * with exit 3, a sentence naming the file and the charge it held, and no top-up or verify
 * request sent. Before this, auto top-up charged again and exited 0 without a word (the record
 * moved aside or taken for a new one), and `billing topup` charged before it read the record.
 */
import { mkdirSync, openSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { startFaultProxy, type FaultProxy } from '../resilience/fault-proxy.js';
import { makeTempHome, runCli } from '../credentials/harness.js';
import { runUntilKilled } from './harness.js';

let sb: TestSandbox;
let proxy: FaultProxy;
beforeAll(async () => {
  sb = await startTestSandbox();
  proxy = await startFaultProxy(sb.url);
});
afterAll(async () => {
  await proxy?.close();
  await sb?.close();
});

/** The policy below $20, $30 a charge, $60 a day, in `configDir`. */
function writePolicy(configDir: string): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const autoTopUp = { belowUsd: 20, amountUsd: 30, maxPerDayUsd: 60, maxPerMonthUsd: 300, since: new Date(Date.now() - 60_000).toISOString() };
  writeFileSync(path.join(configDir, 'config.json'), `${JSON.stringify({ version: 1, profiles: { default: { autoTopUp } } }, null, 2)}\n`, { mode: 0o600 });
}

const DAMAGE: Record<string, (file: string) => void> = {
  "one row's JSON edited": (file) => {
    const db = new DatabaseSync(file);
    db.exec("UPDATE topups SET entry = substr(entry, 1, length(entry) - 3) WHERE state = 'verifying'");
    db.close();
  },
  'the header overwritten': (file) => {
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('not a database, not any more '.repeat(4)), 0, 100, 0);
    closeSync(fd);
  },
  'the file cut in half': (file) => truncateSync(file, Math.floor(statSync(file).size / 2)),
  'the file cut to 0 bytes': (file) => truncateSync(file, 0),
};

const MONEY_REQUESTS = (p: FaultProxy) => p.seen.filter((r) => r.method === 'POST' && (r.path.startsWith('/api/billing/topup') || r.path.startsWith('/api/billing/verify-topup')));

describe('a damaged top-up record with a charge in flight', () => {
  it.each(Object.keys(DAMAGE))(
    '%s: billing topup, billing verify and autotopup run --once each exit 3 and charge nothing',
    async (damage) => {
      const home = makeTempHome();
      try {
        const token = await sb.fundedUser(25);
        const key = await sb.creditKey(token, 'spender');
        expect((await sb.infer(key.apiKey, { sandbox_cost_usd: 10 })).status).toBe(200);
        writePolicy(home.configDir);
        const dataDir = path.join(home.home, 'data');
        const direct = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token, KEYDECK_DATA_DIR: dataDir, KEYDECK_AUTOTOPUP_SETTLE_SECONDS: '0' });
        await runUntilKilled('request:topUp#1', ['autotopup', 'run', '--once'], { env: direct });
        // A later read of the record (the history) checkpoints it into topups.db, as any use does.
        const history = await runCli(['billing', 'history'], { env: direct });
        expect(history.stdout).toMatch(/card direct\s+verifying/);
        DAMAGE[damage]!(path.join(dataDir, 'topups.db'));

        const env = home.env({ KEYDECK_BASE_URL: proxy.url, KEYDECK_TOKEN: token, KEYDECK_DATA_DIR: dataDir });
        const before = MONEY_REQUESTS(proxy).length;
        for (const args of [
          ['autotopup', 'run', '--once'],
          ['billing', 'topup', '--amount', '10', '--method', 'card_direct', '--yes'],
          ['billing', 'verify', '--tx', `0x${'ab'.repeat(32)}`, '--amount', '25'],
        ]) {
          const r = await runCli(args, { env });
          expect({ args: args.join(' '), code: r.code }).toEqual({ args: args.join(' '), code: 3 });
          expect(r.stderr).toContain(`the top-up record ${path.join(dataDir, 'topups.db')} cannot be trusted`);
          expect(r.stderr).toContain('is left in place');
          expect(r.stderr).toMatch(/a card charge of \$30\.00 \(auto top-up\) recorded .* verifying: its outcome is unknown/);
          expect(r.stderr).toContain('Nothing is charged or verified');
          expect(r.stderr).toContain('then keydeck billing history --accept-loss moves it aside and starts a new record');
        }
        expect(MONEY_REQUESTS(proxy).length - before).toBe(0);
        expect((await sb.credits(token)).totalTopUp).toBe(25);
      } finally {
        home.remove();
      }
    },
    60_000,
  );
});

describe('accepting the loss', () => {
  it('billing history --accept-loss asks (--yes in scripts), moves the record aside, and the next top-up starts a new record', async () => {
    const home = makeTempHome();
    try {
      const token = await sb.fundedUser(25);
      const dataDir = path.join(home.home, 'data');
      const env = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token, KEYDECK_DATA_DIR: dataDir });
      expect((await runCli(['billing', 'topup', '--amount', '10', '--method', 'card_direct', '--yes'], { env })).code).toBe(0);
      DAMAGE['the file cut to 0 bytes']!(path.join(dataDir, 'topups.db'));
      const unasked = await runCli(['billing', 'history', '--accept-loss'], { env });
      expect(unasked.code).toBe(2);
      expect(unasked.stderr).toMatch(/confirmation_required: .*keydeck billing history --accept-loss --yes/);
      const accepted = await runCli(['billing', 'history', '--accept-loss', '--yes'], { env });
      expect(accepted.code, accepted.stderr).toBe(0);
      expect(accepted.stdout).toMatch(/^Moved aside: \S+topups\.db\.damaged-\S+, \S+topups-summary\.json\.damaged-\S+\. The next top-up starts a new record/m);
      const again = await runCli(['billing', 'history', '--accept-loss', '--yes'], { env });
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/can be read: nothing to accept, nothing was changed/);
      const topup = await runCli(['billing', 'topup', '--amount', '10', '--method', 'card_direct', '--yes'], { env });
      expect(topup.code, topup.stderr).toBe(0);
      expect((await sb.credits(token)).totalTopUp).toBe(45);
    } finally {
      home.remove();
    }
  }, 60_000);
});

describe('a damaged record of key operations', () => {
  it('operations.json cut to 0 bytes, rotations.json not JSON: keys create and keys rotate exit 3, left in place, nothing created', async () => {
    const home = makeTempHome();
    try {
      const token = await sb.fundedUser(25);
      const dataDir = path.join(home.home, 'data');
      const env = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token, KEYDECK_DATA_DIR: dataDir });
      const first = await runCli(['keys', 'create', '--name', 'api'], { env });
      expect(first.code, first.stderr).toBe(0);
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      writeFileSync(path.join(dataDir, 'operations.json'), '', { mode: 0o600 });
      writeFileSync(path.join(dataDir, 'rotations.json'), '{"version":1,"rotations":[{"id":', { mode: 0o600 });

      const create = await runCli(['keys', 'create', '--name', 'web'], { env });
      expect(create.code).toBe(3);
      expect(create.stderr).toContain(
        `operation_record: the operation record ${path.join(dataDir, 'operations.json')} cannot be read (it is empty), and is left in place; it may hold key creations under way`,
      );
      const rotate = await runCli(['keys', 'rotate', 'api', '--old', 'keep'], { env });
      expect(rotate.code).toBe(3);
      expect(rotate.stderr).toContain(`rotation_record: the rotation record ${path.join(dataDir, 'rotations.json')} cannot be read (it is not JSON), and is left in place`);
      const names = (await sb.call('GET', '/api/keys', { token })).body as { data?: Array<{ name: string }> } | Array<{ name: string }>;
      expect((Array.isArray(names) ? names : (names.data ?? [])).map((k) => k.name).sort()).toEqual(['api']);
      expect(statSync(path.join(dataDir, 'operations.json')).size).toBe(0);
    } finally {
      home.remove();
    }
  }, 60_000);
});
