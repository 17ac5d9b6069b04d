/**
 * The crash-point harness itself (test/crash/harness.ts): a trace lists the boundaries of a real
 * operation in order, and a run armed at one of them dies there by SIGKILL, with the world left as
 * it was at that instant. The operations' own walks (their invariants, recoveries and the tables
 * in docs/) are in the other files of this folder.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { runUntilKilled, tracePoints, withoutStepTwins } from './harness.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-crash-harness-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the crash-point harness', () => {
  it('traces the boundaries of keys create --to-file in order, and kills a run at one of them', async () => {
    const home = makeTempHome();
    try {
      const app = path.join(root, 'app');
      mkdirSync(app, { mode: 0o700 });
      const token = await sb.fundedUser(25);
      const env = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token });
      const { result, points } = await tracePoints(['keys', 'create', '--name', 'web', '--to-file', path.join(app, 'a.env')], { env });
      expect(result.code, result.stderr).toBe(0);
      const order = ['request:createCreditKey#1', 'answered:createCreditKey#1', 'file.renamed:a.env#1'].map((p) => points.indexOf(p));
      expect(
        order.every((i) => i >= 0),
        points.join(', '),
      ).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));

      // Killed once the service answered: the key exists there, the file was never written.
      const killed = await runUntilKilled('answered:createCreditKey#1', ['keys', 'create', '--name', 'api', '--to-file', path.join(app, 'b.env')], { env });
      expect(killed.signal).toBe('SIGKILL');
      const keys = (await sb.call('GET', '/api/keys', { token })).body as Array<{ name: string }>;
      expect(keys.map((k) => k.name).sort()).toEqual(['api', 'web']);
      expect(existsSync(path.join(app, 'b.env'))).toBe(false);
    } finally {
      home.remove();
    }
  });

  it('keeps, beside the walk of the kit’s steps, the first point and those no step follows at once', () => {
    // A run's whole trace: the boundaries, and the kit's steps among them (as `keys create --to-command` passes them).
    const all = [
      'request:listKeys#1',
      'answered:listKeys#1',
      'file.renamed:operations.json#1',
      'create.begin:recorded#1',
      'request:createCreditKey#1',
      'answered:createCreditKey#1',
      'create.mint#1',
      'file.renamed:operations.json#2',
      'create.mint:recorded#1',
      'command.spawned:take.sh#1',
      'command.exited:take.sh#1',
      'create.run:1#1',
      'file.renamed:config.json#1',
      'request:listKeys#2',
    ];
    const boundaries = all.filter((p) => !p.startsWith('create.'));
    const chosen = [
      'file.renamed:operations.json#1',
      'answered:createCreditKey#1',
      'file.renamed:operations.json#2',
      'command.spawned:take.sh#1',
      'command.exited:take.sh#1',
      'file.renamed:config.json#1',
    ];
    expect(withoutStepTwins(chosen, all)).toEqual(['file.renamed:operations.json#1', 'command.spawned:take.sh#1', 'file.renamed:config.json#1']);
    expect(withoutStepTwins(boundaries, all)).toEqual([
      'request:listKeys#1',
      'answered:listKeys#1',
      'request:createCreditKey#1',
      'command.spawned:take.sh#1',
      'file.renamed:config.json#1',
      'request:listKeys#2',
    ]);
    // A trace without the kit's steps (an operation not on the kit) keeps every point.
    expect(withoutStepTwins(boundaries, boundaries)).toEqual(boundaries);
  });

  it('says so when the armed point is never reached', async () => {
    const home = makeTempHome();
    try {
      await expect(runUntilKilled('answered:noSuchOperation#1', ['--version'], { env: home.env() })).rejects.toThrow(/was to be killed at answered:noSuchOperation#1 but ended with code 0/);
    } finally {
      home.remove();
    }
  });
});
