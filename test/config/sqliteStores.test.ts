/**
 * keydeck's SQLite files through their one opener (src/config/sqlite.ts `openStore`): a database
 * written by the keydeck before it (the fixtures, see below) opens in each store, migrated, with
 * what it held; each store refuses, through the one trust check (src/config/trust.ts), a file a
 * link, someone else's or writable by others, and writes nothing through it; a file of a newer
 * keydeck is refused unchanged; migrations run once each, recorded in `PRAGMA user_version`.
 *
 * The fixtures in ./fixtures/stores/ were written by keydeck 0.3.0 (commit ef5d3e7), each through
 * its store's own code of then: `history.db` (two balance readings of profile `default` at
 * https://api.example.com), `topups.db` with `topups-summary.json` (a USDC top-up awaiting payment,
 * one of 50 USD credited with the hash 0xabab…), `sandbox.db` (one user, one credit key `ci`).
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_SCHEMA_VERSION } from '../../src/billing/historyDb.js';
import { BalanceHistoryStore, HistoryStoreError } from '../../src/billing/historyStore.js';
import { JournalDamagedError, JournalError, TopUpJournal } from '../../src/billing/journal.js';
import { NewerSchemaError, openStore } from '../../src/config/sqlite.js';
import { createContext } from '../../src/sandbox/context.js';
import { SCHEMA_VERSION } from '../../src/sandbox/db.js';

const FIXTURES = path.join(import.meta.dirname, 'fixtures', 'stores');
const isRoot = process.getuid?.() === 0;

let dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'keydeck-stores-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** The fixture `name` (gunzipped when stored so) copied into `dir`, mode 0600; its path. */
function fixture(dir: string, name: string): string {
  const stored = path.join(FIXTURES, name);
  const file = path.join(dir, name);
  writeFileSync(file, name.endsWith('.db') ? gunzipSync(readFileSync(`${stored}.gz`)) : readFileSync(stored), { mode: 0o600 });
  return file;
}

function userVersion(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
}

describe('a database written by the keydeck before the one opener', () => {
  it('the balance history: opens with its readings, at the current version', () => {
    const file = fixture(tempDir(), 'history.db');
    const store = BalanceHistoryStore.open({ path: file });
    try {
      const readings = store.series('default', 'https://api.example.com').load(0);
      expect(readings.map((r) => [r.remaining, r.totalTopUp])).toEqual([
        [25, 25],
        [24.5, 25],
      ]);
    } finally {
      store.close();
    }
    expect(userVersion(file)).toBe(HISTORY_SCHEMA_VERSION);
  });

  it('the top-up record: unversioned before, migrated to version 1 with every top-up, its summary agreeing', async () => {
    const dir = tempDir();
    const file = fixture(dir, 'topups.db');
    fixture(dir, 'topups-summary.json');
    expect(userVersion(file)).toBe(0);
    const journal = new TopUpJournal({ path: file });
    try {
      const entries = await journal.list();
      expect(entries.map((e) => [e.amount, e.state])).toEqual([
        [50, 'credited'],
        [25, 'awaiting_payment'],
      ]);
      expect((await journal.creditedWithHash(`0x${'AB'.repeat(32)}`, { host: 'api.example.com', profile: 'default' }))?.amount).toBe(50);
      // Still a record new top-ups go on.
      await journal.add({ amount: 10, method: 'usdc', state: 'awaiting_payment', host: 'api.example.com', profile: 'default', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', chain: 'base' });
      expect(await journal.list()).toHaveLength(3);
    } finally {
      journal.close();
    }
    expect(userVersion(file)).toBe(1);
    // Opened again at version 1: nothing to migrate, nothing lost.
    const again = new TopUpJournal({ path: file });
    try {
      expect(await again.list()).toHaveLength(3);
    } finally {
      again.close();
    }
  });

  it('the sandbox database: opens with its user and key, at the current version', () => {
    const file = fixture(tempDir(), 'sandbox.db');
    const ctx = createContext(file);
    try {
      const { id } = ctx.db.prepare('SELECT id FROM users').get() as { id: string };
      expect(ctx.keys.listConsumption(id).map((k) => k.name)).toEqual(['ci']);
    } finally {
      ctx.db.close();
    }
    expect(userVersion(file)).toBe(SCHEMA_VERSION);
  });
});

/** Each store opened at `file`, as its users open it; what it throws. */
const STORES = {
  'balance history': (file: string) => () => BalanceHistoryStore.open({ path: file }).close(),
  'top-up record': (file: string) => async () => {
    const journal = new TopUpJournal({ path: file });
    try {
      await journal.list();
    } finally {
      journal.close();
    }
  },
  'sandbox database': (file: string) => () => createContext(file).db.close(),
} as const;

/** Runs `open` and returns what it threw (undefined when it did not). */
async function thrown(open: () => unknown): Promise<unknown> {
  try {
    await open();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe.each(Object.keys(STORES) as (keyof typeof STORES)[])('the %s refuses, through the one trust check, a file it may not trust', (kind) => {
  const open = STORES[kind];
  const expectRefused = (error: unknown, pattern: RegExp) => {
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(pattern);
    if (kind === 'balance history') expect((error as HistoryStoreError).code).toBe('history_unsafe_path');
    if (kind === 'top-up record') {
      expect(error).toBeInstanceOf(JournalError);
      expect(error).not.toBeInstanceOf(JournalDamagedError);
    }
  };

  it('a symbolic link in its place, and writes nothing through it', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'elsewhere.db');
    writeFileSync(target, '', { mode: 0o600 });
    const file = path.join(dir, 'store.db');
    symlinkSync(target, file);
    expectRefused(await thrown(open(file)), new RegExp(`the ${kind} ${file} is not a regular file \\(a link or a directory\\): move it away`));
    expect(statSync(target).size).toBe(0);
  });

  it('a -wal file that is a link', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'store.db');
    writeFileSync(path.join(dir, 'other'), '', { mode: 0o600 });
    symlinkSync(path.join(dir, 'other'), `${file}-wal`);
    expectRefused(await thrown(open(file)), new RegExp(`the ${kind} ${file}-wal is not a regular file`));
  });

  it('a file writable by group or others, naming the chmod that fixes it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'store.db');
    writeFileSync(file, '');
    chmodSync(file, 0o666);
    expectRefused(await thrown(open(file)), new RegExp(`the ${kind} ${file} is writable by group or others \\(mode 0666\\).*chmod 600 ${file}`));
    expect(lstatSync(file).size).toBe(0);
  });

  it.runIf(isRoot)("another user's file", async () => {
    const dir = tempDir();
    const file = path.join(dir, 'store.db');
    writeFileSync(file, '', { mode: 0o600 });
    chownSync(file, 65534, 65534);
    expectRefused(await thrown(open(file)), new RegExp(`the ${kind} ${file} belongs to another user \\(uid 65534\\)`));
  });

  it('a directory others may write in', async () => {
    const dir = path.join(tempDir(), 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    expectRefused(await thrown(open(path.join(dir, 'store.db'))), new RegExp(`the data dir ${dir} is writable by group or others`));
  });
});

describe('openStore', () => {
  const MIGRATIONS = ['CREATE TABLE a (x INTEGER);', 'ALTER TABLE a ADD COLUMN y TEXT;', "INSERT INTO a (x, y) VALUES (1, 'one');"];

  it('runs each migration once, records it in user_version, creates the file 0600', () => {
    const file = path.join(tempDir(), 'nested', 'store.db');
    const first = openStore({ file, kind: 'balance history', busyTimeoutMs: 1000, migrations: MIGRATIONS.slice(0, 2) });
    first.close();
    expect(userVersion(file)).toBe(2);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    // A later keydeck with one more migration: only the new one runs.
    const db = openStore({ file, kind: 'balance history', busyTimeoutMs: 1000, migrations: MIGRATIONS });
    try {
      expect(db.prepare('SELECT x, y FROM a').all()).toEqual([{ x: 1, y: 'one' }]);
      expect((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    } finally {
      db.close();
    }
    expect(userVersion(file)).toBe(3);
    openStore({ file, kind: 'balance history', busyTimeoutMs: 1000, migrations: MIGRATIONS }).close();
    const check = new DatabaseSync(file);
    expect(check.prepare('SELECT count(*) AS n FROM a').get()).toEqual({ n: 1 });
    check.close();
  });

  it("refuses a newer keydeck's file and leaves it as it was", () => {
    const file = path.join(tempDir(), 'store.db');
    openStore({ file, kind: 'balance history', busyTimeoutMs: 1000, migrations: MIGRATIONS }).close();
    const before = readFileSync(file);
    expect(() => openStore({ file, kind: 'balance history', busyTimeoutMs: 1000, migrations: MIGRATIONS.slice(0, 1) })).toThrow(NewerSchemaError);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("the sandbox names a newer keydeck's database", () => {
    const file = fixture(tempDir(), 'sandbox.db');
    const db = new DatabaseSync(file);
    db.exec('PRAGMA user_version = 99');
    db.close();
    expect(() => createContext(file)).toThrow(`the sandbox database has schema version 99, newer than this keydeck (${SCHEMA_VERSION})`);
    expect(userVersion(file)).toBe(99);
  });

  it('throws a damaged file by default (fails closed), moves it aside when asked', () => {
    const dir = tempDir();
    const file = path.join(dir, 'store.db');
    writeFileSync(file, 'not a database, certainly not one of SQLite'.repeat(100), { mode: 0o600 });
    expect(() => openStore({ file, kind: 'top-up record', busyTimeoutMs: 1000, migrations: MIGRATIONS })).toThrow(/not a database/);
    expect(readFileSync(file, 'utf8')).toMatch(/^not a database/);
    openStore({ file, kind: 'balance history', busyTimeoutMs: 1000, migrations: MIGRATIONS, damaged: 'move aside' }).close();
    expect(userVersion(file)).toBe(3);
  });
});
