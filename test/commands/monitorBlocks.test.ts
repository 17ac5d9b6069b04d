/**
 * `keydeck monitor` announces a pool key's reserved block about to end: against the
 * sandbox with its clock moved to 10 minutes before the end of the block a minted pool key holds,
 * one `block_ending` event goes out (the live view itself is a stand-in here).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCK_NAMES, blockOfHour, blockStartHour } from '../../src/api/poolBlocks.js';
import { monitorCommand } from '../../src/commands/monitor.js';
import type { NotifyEvent } from '../../src/terminal/notify.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
let dir: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-monitor-blocks-'));
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('keydeck monitor and reserved hours', () => {
  it('announces once that a pool key’s block ends in 10 minutes', async () => {
    const token = await sb.newUser();
    const now = new Date((await sb.call('POST', '/sandbox/clock', { body: { advanceSeconds: 0 } })).body.now);
    // The next block (whatever the hour): the clock is moved to 10 minutes before its end.
    const current = blockOfHour(now.getUTCHours());
    const block = BLOCK_NAMES[(BLOCK_NAMES.indexOf(current) + 1) % 3]!;
    const pledge = await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: [block] } });
    await sb.call('POST', '/api/keys/subscription', { token, body: { name: 'edge', subscriptionId: pledge.body.id } });
    const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) + (block === 'asia' ? 86_400_000 : 0);
    const end = day + (blockStartHour(block) + 8) * 3_600_000;
    await sb.advance(Math.floor((end - now.getTime()) / 1000) - 600);
    const events: NotifyEvent[] = [];
    const code = await monitorCommand(
      { baseUrl: sb.url },
      {},
      {
        isTerminal: true,
        session: { env: { KEYDECK_TOKEN: token, KEYDECK_CONFIG_DIR: dir, KEYDECK_DATA_DIR: dir } },
        notify: (e) => events.push(e),
        render: async () => {
          for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
          return 0;
        },
      },
    );
    expect(code).toBe(0);
    expect(events).toEqual([expect.objectContaining({ kind: 'block_ending', keyName: 'edge', block })]);
    const left = (events[0] as Extract<NotifyEvent, { kind: 'block_ending' }>).minutesLeft;
    expect(left).toBeGreaterThan(8);
    expect(left).toBeLessThanOrEqual(10.1);
  });
});
