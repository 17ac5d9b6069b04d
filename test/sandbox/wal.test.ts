/**
 * The sandbox's WAL stays bounded: it grew to 127 MB after 5,000 key
 * creations and was never cut back, because a write through `INSERT … RETURNING` read with
 * `get()` commits without SQLite's automatic checkpoint. 5,000 key creations and 500 pledges now
 * leave it at SQLite's own bound (about 1,000 pages), cut to 4 MiB after each checkpoint.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/sandbox/context.js';
import { WAL_SIZE_LIMIT_BYTES } from '../../src/sandbox/db.js';
import { SANDBOX_POOLS } from '../../src/sandbox/pools.js';

const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-sandbox-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the sandbox database', () => {
  it('keeps its WAL bounded through 5,000 key creations and 500 pledges', () => {
    const file = path.join(dir, 'sandbox.db');
    const ctx = createContext(file);
    try {
      const { userId } = ctx.users.create(Date.now());
      let largest = 0;
      for (let i = 0; i < 5000; i++) {
        ctx.keys.createCredit(userId, `key ${i}`, Date.now());
        if (i % 250 === 0) largest = Math.max(largest, statSync(`${file}-wal`).size);
      }
      // One seat a month (each pledge has ended when the next is made), its renewal cancelled.
      for (let i = 0; i < 500; i++) {
        const pledge = ctx.pools.pledge(userId, SANDBOX_POOLS[0]!, ['asia'], Date.now() + i * 31 * 86_400_000);
        ctx.pools.cancel(userId, pledge.id);
      }
      largest = Math.max(largest, statSync(`${file}-wal`).size);
      expect(ctx.keys.listConsumption(userId)).toHaveLength(5000);
      // SQLite checkpoints at 1,000 pages (4 MiB of 4 KiB pages) and then reuses the log.
      expect(largest).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES + 1024 * 1024);
    } finally {
      ctx.db.close();
    }
  });
});
