/**
 * The local top-up journal on disk: location (KEYDECK_DATA_DIR), atomic writes with mode 0600,
 * the bound, reopening unfinished top-ups, the "already credited" lookup, and a broken file
 * moved aside instead of overwritten.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostOf, journalPath, sameService, TopUpJournal, type NewJournalEntry } from '../../src/billing/journal.js';

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

describe('TopUpJournal', () => {
  it('lives in KEYDECK_DATA_DIR/topups.json, written with mode 0600, with no temp file left', async () => {
    expect(journalPath({ KEYDECK_DATA_DIR: dir })).toBe(path.join(dir, 'topups.json'));
    const journal = new TopUpJournal({ env: { KEYDECK_DATA_DIR: path.join(dir, 'nested') } });
    await journal.add(usdc(25));
    const file = path.join(dir, 'nested', 'topups.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(path.join(dir, 'nested'))).toEqual(['topups.json']);
    const body = JSON.parse(await readFile(file, 'utf8')) as { version: number; entries: unknown[] };
    expect(body.version).toBe(1);
    expect(body.entries).toHaveLength(1);
  });

  it('survives a restart: a new instance reopens the unfinished top-ups of the same service and profile', async () => {
    const file = path.join(dir, 'topups.json');
    const first = new TopUpJournal({ path: file });
    const a = await first.add(usdc(25));
    const b = await first.add(usdc(30));
    await first.update(b.id, { state: 'credited', txHash: `0x${'a'.repeat(64)}`, credited: 30, balance: 55 });
    await first.add(usdc(40, { profile: 'other' }));
    await first.add(usdc(50, { host: 'elsewhere.example.com' }));

    const again = new TopUpJournal({ path: file });
    const open = await again.unfinished({ host: 'api.example.com', profile: 'default' });
    expect(open.map((e) => e.id)).toEqual([a.id]);
    expect(open[0]).toMatchObject({ amount: 25, state: 'awaiting_payment', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
  });

  it('finds a hash it saw credited (any case), and only credited ones', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.json') });
    const hash = `0x${'Ab'.repeat(32)}`;
    const e = await journal.add(usdc(25, { txHash: hash.toLowerCase(), state: 'submitted' }));
    const scope = { host: 'api.example.com', profile: 'default' };
    expect(await journal.creditedWithHash(hash, scope)).toBeUndefined();
    await journal.update(e.id, { state: 'credited' });
    expect((await journal.creditedWithHash(hash, scope))?.id).toBe(e.id);
    expect(await journal.creditedWithHash(hash, { host: 'other.example.com' })).toBeUndefined();
  });

  it('clears a field when the patch sets it to undefined', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.json') });
    const e = await journal.add(usdc(25, { reason: 'not found yet', reasonCode: 'not_found', state: 'submitted' }));
    const done = await journal.update(e.id, { state: 'credited', reason: undefined, reasonCode: undefined });
    expect(done).not.toHaveProperty('reason');
    expect((await journal.get(e.id))!).not.toHaveProperty('reasonCode');
  });

  it('stays bounded, dropping the oldest finished entries first and keeping unfinished ones', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.json'), maxEntries: 10 });
    const unfinished = await journal.add(usdc(11));
    for (let i = 0; i < 24; i++) {
      const e = await journal.add(usdc(12 + i));
      await journal.update(e.id, { state: 'credited' });
    }
    const all = await journal.list();
    expect(all).toHaveLength(10);
    expect(all.some((e) => e.id === unfinished.id)).toBe(true);
    expect(all[0]!.amount).toBe(35);
  });

  it('applies concurrent changes of one process one after another (none lost)', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.json') });
    await Promise.all(Array.from({ length: 25 }, (_, i) => journal.add(usdc(10 + i))));
    expect(await journal.list()).toHaveLength(25);
  });

  it('moves a broken file aside instead of overwriting it', async () => {
    const file = path.join(dir, 'topups.json');
    await writeFile(file, '{ "version": 1, "entries": [ {"id": "x"', 'utf8');
    const journal = new TopUpJournal({ path: file });
    expect(await journal.list()).toEqual([]);
    expect(journal.movedAside).toMatch(/topups\.json\.broken-/);
    expect(await readFile(journal.movedAside!, 'utf8')).toContain('"id": "x"');
    await journal.add(usdc(25));
    expect(await journal.list()).toHaveLength(1);
  });

  it('holds no secret: only what the payment itself made public', async () => {
    const journal = new TopUpJournal({ path: path.join(dir, 'topups.json') });
    await journal.add(usdc(25));
    const text = await readFile(path.join(dir, 'topups.json'), 'utf8');
    expect(text).not.toMatch(/\b(sk|mk)_/);
    expect(text).not.toMatch(/token/i);
  });
});

describe('service matching', () => {
  it('treats every loopback port as the same sandbox, other hosts exactly', () => {
    expect(hostOf('http://127.0.0.1:43123')).toBe('127.0.0.1:43123');
    expect(sameService('127.0.0.1:43123', 'localhost:8787')).toBe(true);
    expect(sameService('api.example.com', 'api.example.com:8443')).toBe(false);
  });
});
