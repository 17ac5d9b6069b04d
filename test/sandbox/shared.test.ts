/**
 * One sandbox per database for every keydeck process (src/sandbox/shared.ts): the first
 * serves on the port of its last start, the next joins it (same URL, same demo token), one left
 * open takes the port over when the serving one ends, and a port taken by another program is
 * given up for a free one. Real servers on loopback; the two "processes" are two callers here,
 * which SQLite's locks tell apart as they tell processes apart.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/api/sandboxProbe.js';
import { openSharedSandbox, readSandboxState } from '../../src/sandbox/shared.js';
import { call } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'keydeck-shared-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a sandbox shared by keydeck processes', () => {
  it('is served by the first and joined by the next: one account, one origin, one token', async () => {
    const dbPath = join(dir, 'join.db');
    const first = await openSharedSandbox({ dbPath });
    try {
      expect(first.role()).toBe('serving');
      const state = await readSandboxState(dbPath);
      expect(state).toMatchObject({ url: first.url, token: first.token });
      expect(statSync(`${dbPath}.json`).mode & 0o777).toBe(0o600);
      const second = await openSharedSandbox({ dbPath });
      try {
        expect(second.role()).toBe('joined');
        expect(second.url).toBe(first.url);
        expect(second.token).toBe(first.token);
        // A key created through the second is the first's (one database).
        const created = await call(second.url, 'POST', '/api/keys/credit', { token: second.token, body: { name: 'from-the-second' } });
        expect(created.status).toBe(200);
        const listed = await call(first.url, 'GET', '/api/keys', { token: first.token });
        expect(JSON.stringify(listed.body)).toContain('from-the-second');
      } finally {
        await second.close();
      }
      // Closing a process that joined leaves the serving one alone.
      expect(await probeSandbox(first.url)).toMatchObject({ sandbox: 'keydeck', instance: state!.instance });
    } finally {
      await first.close();
    }
  });

  it('comes back on the same port, and a process left open takes it over when the serving one ends', async () => {
    const dbPath = join(dir, 'keep.db');
    const first = await openSharedSandbox({ dbPath });
    const kept = await openSharedSandbox({ dbPath, keep: true });
    try {
      expect(kept.role()).toBe('joined');
      await first.close();
      await until(() => kept.role() === 'serving', 8_000);
      expect(kept.url).toBe(first.url);
      expect((await call(kept.url, 'GET', '/api/keys', { token: kept.token })).status).toBe(200);
    } finally {
      await kept.close();
    }
    const again = await openSharedSandbox({ dbPath });
    try {
      expect(again.role()).toBe('serving');
      expect(again.url).toBe(first.url);
    } finally {
      await again.close();
    }
  });

  it('starts on a free port when another program holds the last one, and remembers it', async () => {
    const dbPath = join(dir, 'taken.db');
    const foreign: Server = createServer((socket) => socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n'));
    await new Promise<void>((r) => foreign.listen(0, '127.0.0.1', r));
    const port = (foreign.address() as { port: number }).port;
    writeFileSync(`${dbPath}.port`, `${port}\n`);
    try {
      const sandbox = await openSharedSandbox({ dbPath });
      try {
        expect(sandbox.role()).toBe('serving');
        expect(new URL(sandbox.url).port).not.toBe(String(port));
        expect(readFileSync(`${dbPath}.port`, 'utf8').trim()).toBe(new URL(sandbox.url).port);
      } finally {
        await sandbox.close();
      }
    } finally {
      foreign.close();
    }
  });

  it('two starting at once: one serves, the other joins it', async () => {
    const dbPath = join(dir, 'race.db');
    const both = await Promise.all([openSharedSandbox({ dbPath }), openSharedSandbox({ dbPath })]);
    try {
      expect(both.map((s) => s.role()).sort()).toEqual(['joined', 'serving']);
      expect(both[0]!.url).toBe(both[1]!.url);
    } finally {
      for (const s of both.toReversed()) await s.close();
    }
  });

  it('ignores a state file others may read (it holds the demo token)', async () => {
    const dbPath = join(dir, 'loose.db');
    const sandbox = await openSharedSandbox({ dbPath });
    await sandbox.close();
    const { chmodSync } = await import('node:fs');
    chmodSync(`${dbPath}.json`, 0o644);
    expect(await readSandboxState(dbPath)).toBeUndefined();
  });
});
