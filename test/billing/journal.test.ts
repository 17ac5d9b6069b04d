/**
 * The top-up record on disk (src/billing/journal.ts): location (KEYDECK_DATA_DIR), mode 0600,
 * every row of the transition table (allowed moves happen, every other move is refused and
 * writes nothing), restart, the "already credited" lookup, the bound, the one-time import of the
 * issue-6 `topups.json`, a broken database moved aside, and no writer losing another's records:
 * two processes × 60 top-ups keep all 120.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleFixture } from './fixtures/bundle.js';
import {
  canMove,
  hostOf,
  JournalDamagedError,
  journalPath,
  sameService,
  TopUpJournal,
  TopUpStateSchema,
  TransitionError,
  TRANSITIONS,
  type JournalEntry,
  type NewJournalEntry,
  type TopUpState,
} from '../../src/billing/journal.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'keydeck-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const usdc = (amount: number, extra: Partial<NewJournalEntry> = {}): NewJournalEntry => ({
  amount,
  method: 'usdc',
  state: 'awaiting_payment',
  host: 'api.example.com',
  profile: 'default',
  address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  chain: 'base',
  ...extra,
});

/** A record in `state`, reached through allowed moves only. */
async function recordIn(journal: TopUpJournal, state: TopUpState): Promise<JournalEntry> {
  const e = await journal.add(usdc(25));
  const path: Record<TopUpState, TopUpState[]> = {
    awaiting_payment: [],
    verifying: ['verifying'],
    credited: ['verifying', 'credited'],
    refused: ['verifying', 'refused'],
    closed: ['closed'],
  };
  let last = e;
  for (const s of path[state]) last = (await journal.update(e.id, { state: s }))!;
  expect(last.state).toBe(state);
  return last;
}

describe('TopUpJournal', () => {
  it('lives in KEYDECK_DATA_DIR/topups.db, mode 0600, a WAL database', async () => {
    expect(journalPath({ KEYDECK_DATA_DIR: dir })).toBe(path.join(dir, 'topups.db'));
    const journal = new TopUpJournal({ env: { KEYDECK_DATA_DIR: path.join(dir, 'nested') } });
    await journal.add(usdc(25));
    const file = path.join(dir, 'nested', 'topups.db');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, 'nested'))).mode & 0o777).toBe(0o700);
    expect(await readdir(path.join(dir, 'nested'))).toContain('topups.db-wal');
    journal.close();
  });

  it('survives a restart: a new instance reopens the unfinished top-ups of the same service and profile', async () => {
    const file = path.join(dir, 'topups.db');
    const first = new TopUpJournal({ path: file });
    const a = await first.add(usdc(25));
    const b = await first.add(usdc(30));
    await first.update(b.id, { state: 'verifying', txHash: `0x${'a'.repeat(64)}` });
    await first.update(b.id, { state: 'credited', credited: 30, balance: 55 });
    const c = await first.add(usdc(35));
    await first.update(c.id, { state: 'verifying', txHash: `0x${'b'.repeat(64)}` });
    await first.add(usdc(40, { profile: 'other' }));
    await first.add(usdc(50, { host: 'elsewhere.example.com' }));
    first.close();

    const again = new TopUpJournal({ path: file });
    const open = await again.unfinished({ host: 'api.example.com', profile: 'default' });
    expect(open.map((e) => e.id)).toEqual([c.id, a.id]);
    expect(open[1]).toMatchObject({ amount: 25, state: 'awaiting_payment', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    again.close();
  });

  it('says when another process changed the record: the data version moves for its writes, not for this one’s', async () => {
    const file = path.join(dir, 'topups.db');
    const mine = new TopUpJournal({ path: file });
    const other = new TopUpJournal({ path: file });
    const e = await mine.add(usdc(25));
    const before = await mine.dataVersion();
    await mine.update(e.id, { state: 'verifying', txHash: `0x${'c'.repeat(64)}` });
    expect(await mine.dataVersion()).toBe(before);
    await other.update(e.id, { state: 'credited', credited: 25 });
    const after = await mine.dataVersion();
    expect(after).not.toBe(before);
    expect(await mine.dataVersion()).toBe(after);
    mine.close();
    other.close();
  });

  it('finds a hash it saw credited (any case), and only credited ones', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
    const hash = `0x${'Ab'.repeat(32)}`;
    const e = await journal.add(usdc(25, { txHash: hash.toLowerCase(), state: 'verifying' }));
    const scope = { host: 'api.example.com', profile: 'default' };
    expect(await journal.creditedWithHash(hash, scope)).toBeUndefined();
    expect((await journal.withHash(hash.toUpperCase().replace('0X', '0x'), scope)).map((x) => x.id)).toEqual([e.id]);
    await journal.update(e.id, { state: 'credited' });
    expect((await journal.creditedWithHash(hash, scope))?.id).toBe(e.id);
    expect(await journal.creditedWithHash(hash, { host: 'other.example.com' })).toBeUndefined();
  });

  it('clears a field when the patch sets it to undefined; a function patch sees the record inside the lock', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
    const e = await journal.add(usdc(25, { reason: 'not found yet', reasonCode: 'not_found', state: 'verifying', verifyBaselineTotalTopUp: 5 }));
    const kept = await journal.update(e.id, (current) => ({ verifyBaselineTotalTopUp: current.verifyBaselineTotalTopUp ?? 99 }));
    expect(kept!.verifyBaselineTotalTopUp).toBe(5);
    const done = await journal.update(e.id, { state: 'credited', reason: undefined, reasonCode: undefined });
    expect(done).not.toHaveProperty('reason');
    expect((await journal.get(e.id))!).not.toHaveProperty('reasonCode');
  });

  it('stays bounded, dropping the oldest finished records first and keeping unfinished ones', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.db'), maxEntries: 10 });
    const unfinished = await journal.add(usdc(11));
    for (let i = 0; i < 24; i++) {
      const e = await journal.add(usdc(12 + i));
      await journal.update(e.id, { state: 'closed' });
    }
    const all = await journal.list();
    expect(all).toHaveLength(10);
    expect(all.some((e) => e.id === unfinished.id)).toBe(true);
    expect(all[0]!.amount).toBe(35);
  });

  it('imports the issue-6 topups.json once, in today’s states, and renames it', async () => {
    const legacy = path.join(dir, 'topups.json');
    const old = (id: string, state: string, extra: object = {}) => ({
      id,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      amount: 20,
      method: 'usdc',
      state,
      host: 'api.example.com',
      ...extra,
    });
    await writeFile(legacy, JSON.stringify({ version: 1, entries: [old('a', 'submitted', { outcomeUnknown: true, txHash: `0x${'c'.repeat(64)}` }), old('b', 'abandoned'), old('c', 'credited')] }));
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
    const list = await journal.list();
    expect(list.map((e) => [e.id, e.state])).toEqual([
      ['c', 'credited'],
      ['b', 'closed'],
      ['a', 'verifying'],
    ]);
    expect(list[2]).not.toHaveProperty('outcomeUnknown');
    expect(journal.imported).toBe(3);
    expect(await readdir(dir)).toContain('topups.json.imported');
    journal.close();
    expect(await new TopUpJournal({ path: path.join(dir, 'topups.db') }).list()).toHaveLength(3);
  });

  it('refuses a database that is not one, leaves it in place and writes nothing (fail closed)', async () => {
    const file = path.join(dir, 'topups.db');
    const text = 'this is not a database, but it may be the only record of a payment'.repeat(40);
    await writeFile(file, text, 'utf8');
    const journal = new TopUpJournal({ path: file });
    await expect(journal.list()).rejects.toThrow(JournalDamagedError);
    await expect(journal.add(usdc(25))).rejects.toThrow(/cannot be trusted \(it is not an SQLite database: its header is damaged\), and is left in place/);
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('refuses a record that is a link or not a regular file, and writes nothing through it', async () => {
    const target = path.join(dir, 'elsewhere.db');
    await writeFile(target, '');
    await symlink(target, path.join(dir, 'topups.db'));
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
    await expect(journal.add(usdc(25))).rejects.toThrow(/is not a regular file \(a link or a directory\): move it away/);
    expect((await stat(target)).size).toBe(0);
    await mkdir(path.join(dir, 'sub', 'topups.db'), { recursive: true });
    await expect(new TopUpJournal({ path: path.join(dir, 'sub', 'topups.db') }).list()).rejects.toThrow(/not a regular file/);
  });

  it('holds no secret: only what the payment itself made public', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
    await journal.add(usdc(25));
    journal.close();
    const bytes = (await readFile(path.join(dir, 'topups.db'))).toString('latin1') + (await readFile(path.join(dir, 'topups.db-wal')).catch(() => Buffer.from(''))).toString('latin1');
    expect(bytes).toContain('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(bytes).not.toMatch(/\b(sk|mk)_/);
    expect(bytes).not.toMatch(/token/i);
  });
});

describe('the transition table', () => {
  const states = TopUpStateSchema.options;
  const allowed: Array<[TopUpState, TopUpState]> = [
    ['awaiting_payment', 'verifying'],
    ['refused', 'verifying'],
    ['verifying', 'verifying'],
    ['verifying', 'credited'],
    ['awaiting_payment', 'credited'],
    ['closed', 'credited'],
    ['verifying', 'refused'],
    ['verifying', 'awaiting_payment'],
    ['awaiting_payment', 'closed'],
    ['verifying', 'closed'],
    ['refused', 'closed'],
    ['closed', 'verifying'],
  ];

  it('lists exactly the moves of the module’s table (credited is final)', () => {
    const listed = states.flatMap((from) => TRANSITIONS[from].map((to) => [from, to] as [TopUpState, TopUpState]));
    expect(new Set(listed.map((m) => m.join('→')))).toEqual(new Set(allowed.filter(([a, b]) => a !== b).map((m) => m.join('→'))));
    expect(TRANSITIONS.credited).toEqual([]);
  });

  for (const [from, to] of allowed) {
    it(`allows ${from} → ${to}`, async () => {
      const journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
      const e = await recordIn(journal, from);
      expect((await journal.update(e.id, { state: to }))!.state).toBe(to);
      expect((await journal.get(e.id))!.state).toBe(to);
    });
  }

  it('refuses every other move and writes nothing', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
    let refused = 0;
    for (const from of states) {
      for (const to of states) {
        if (from === to || allowed.some(([a, b]) => a === from && b === to)) continue;
        expect(canMove(from, to)).toBe(false);
        const e = await recordIn(journal, from);
        await expect(journal.update(e.id, { state: to, reason: 'should not be written' })).rejects.toBeInstanceOf(TransitionError);
        const after = (await journal.get(e.id))!;
        expect(after.state).toBe(from);
        expect(after.reason).toBeUndefined();
        refused++;
      }
    }
    // 5 states: 20 ordered pairs, 11 allowed moves between different states.
    expect(refused).toBe(9);
  });

  it('creates records only awaiting payment or verifying', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.db') });
    for (const state of ['credited', 'refused', 'closed'] as const) await expect(journal.add(usdc(10, { state }))).rejects.toBeInstanceOf(TransitionError);
    expect(await journal.list()).toEqual([]);
  });
});

describe('two processes on one data dir', () => {
  it('lose nothing: 2 × 60 top-ups, each added then updated, keep all 120', { timeout: 60_000 }, async () => {
    const script = await bundleFixture(new URL('./fixtures/writer.ts', import.meta.url), dir);
    const file = path.join(dir, 'data', 'topups.db');
    const startAt = String(Date.now() + 1500);
    const run = promisify(execFile);
    const results = await Promise.all(['one', 'two'].map((label) => run(process.execPath, [script, file, label, '60', startAt], { timeout: 50_000 })));
    expect(results.map((r) => r.stdout.trim())).toEqual(['done', 'done']);
    const list = await new TopUpJournal({ path: file }).list();
    expect(list).toHaveLength(120);
    for (const label of ['one', 'two']) {
      const mine = list.filter((e) => e.profile === label);
      expect(mine).toHaveLength(60);
      // Every update landed on its own record.
      expect(new Set(mine.map((e) => e.reason))).toEqual(new Set(Array.from({ length: 60 }, (_, i) => `${label} ${i}`)));
    }
  });
});

describe('service matching', () => {
  it('treats every loopback port as the same sandbox, other hosts exactly', () => {
    expect(hostOf('http://127.0.0.1:43123')).toBe('127.0.0.1:43123');
    expect(sameService('127.0.0.1:43123', 'localhost:8787')).toBe(true);
    expect(sameService('api.example.com', 'api.example.com:8443')).toBe(false);
  });
});
