/**
 * The top-up record fails closed (src/billing/journal.ts, "Fail closed"): a damaged `topups.db`
 * (its header overwritten, the file cut in half or to 0 bytes, removed, one row edited, rows gone)
 * is refused with one sentence naming the file, left in place, and what its summary says it held;
 * it never becomes a new record by itself, and `acceptJournalLoss` (`billing history
 * --accept-loss`) is the one way past it. The end-to-end repro with a charge in flight is
 * test/crash/damaged-record.test.ts.
 */
import { DatabaseSync } from 'node:sqlite';
import { mkdtemp, readdir, readFile, rm, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalDamagedError, TopUpJournal, type JournalEntry, type NewJournalEntry } from '../../src/billing/journal.js';
import { acceptJournalLoss } from '../../src/billing/journalLoss.js';
import { recordDamagedSentence } from '../../src/words/index.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'keydeck-damage-'));
  file = path.join(dir, 'topups.db');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const charge: NewJournalEntry = {
  amount: 30,
  method: 'card_direct',
  state: 'verifying',
  host: 'api.example.com',
  profile: 'default',
  autoTopUp: { decidedAt: '2026-11-28T03:56:00.000Z', remaining: 10, belowUsd: 20 },
};

/** A record holding a credited USDC top-up, then a card charge still verifying (padded so the file has pages to cut). */
async function recordWithChargeInFlight(): Promise<JournalEntry> {
  const journal = new TopUpJournal({ path: file });
  for (let i = 0; i < 12; i++) {
    const e = await journal.add({ amount: 25, method: 'usdc', state: 'verifying', host: 'api.example.com', txHash: `0x${String(i).padStart(64, 'a')}`, reason: 'x'.repeat(400) });
    await journal.update(e.id, { state: 'credited', credited: 25 });
  }
  const inFlight = await journal.add(charge);
  journal.close();
  return inFlight;
}

/** What every use of the damaged record must say. */
async function expectRefused(problem: RegExp): Promise<JournalDamagedError> {
  const journal = new TopUpJournal({ path: file });
  const error = await journal.list().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalDamagedError);
  const damaged = error as JournalDamagedError;
  expect(damaged.code).toBe('record_damaged');
  expect(damaged.message).toContain(`the top-up record ${file} cannot be trusted`);
  expect(damaged.message).toMatch(problem);
  expect(damaged.message).toContain('is left in place');
  expect(damaged.message).toMatch(/a card charge of \$30\.00 \(auto top-up\) recorded 2\d{3}-\d\d-\d\d \d\d:\d\d UTC, verifying: its outcome is unknown/);
  expect(recordDamagedSentence(damaged)).toContain('keydeck billing history --accept-loss');
  // Every other use is refused the same way, and nothing is written.
  await expect(journal.add(charge)).rejects.toThrow(JournalDamagedError);
  await expect(journal.check()).rejects.toThrow(JournalDamagedError);
  journal.close();
  return damaged;
}

describe('a damaged top-up record with a charge in flight', () => {
  it('its header overwritten: refused, the file left as it was', async () => {
    await recordWithChargeInFlight();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(100, 0x41), 0, 100, 0);
    closeSync(fd);
    const before = await readFile(file);
    await expectRefused(/it is not an SQLite database: its header is damaged/);
    expect((await readFile(file)).equals(before)).toBe(true);
    expect((await readdir(dir)).filter((f) => f.includes('broken') || f.includes('damaged'))).toEqual([]);
  });

  it('cut in half: refused', async () => {
    await recordWithChargeInFlight();
    await truncate(file, Math.floor((await stat(file)).size / 2));
    await expectRefused(/SQLite (cannot read it|finds it damaged)/);
  });

  it('cut to 0 bytes (which SQLite takes for a new database): refused, not started afresh', async () => {
    await recordWithChargeInFlight();
    await truncate(file, 0);
    await expectRefused(/the file is empty \(0 bytes\)/);
    expect((await stat(file)).size).toBe(0);
  });

  it('removed: refused, and not created again', async () => {
    await recordWithChargeInFlight();
    await unlink(file);
    await expectRefused(/the file is missing/);
    expect(await readdir(dir)).not.toContain('topups.db');
  });

  it("one row's JSON edited, or its state column: refused, naming the row", async () => {
    const inFlight = await recordWithChargeInFlight();
    const db = new DatabaseSync(file);
    db.prepare('UPDATE topups SET entry = replace(entry, \'"amount":30\', \'"amount":"30"\') WHERE id = ?').run(inFlight.id);
    db.close();
    await expectRefused(/its top-up #13 \(verifying\) is not as keydeck wrote it: it was changed outside keydeck/);
    const again = new DatabaseSync(file);
    again.prepare('UPDATE topups SET entry = replace(entry, \'"amount":"30"\', \'"amount":30\'), state = \'closed\' WHERE id = ?').run(inFlight.id);
    again.close();
    await expectRefused(/its top-up #13 \(closed\) is not as keydeck wrote it/);
  });

  it('an older copy put in its place, without the charge in flight: refused', async () => {
    const journal = new TopUpJournal({ path: file });
    await journal.add({ amount: 25, method: 'usdc', state: 'awaiting_payment', host: 'api.example.com', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' });
    journal.close();
    const older = await readFile(file);
    await recordWithChargeInFlight();
    await rm(`${file}-wal`, { force: true });
    await writeFile(file, older);
    await expectRefused(/1 unfinished top-up its summary names is not in it/);
  });
});

describe('the summary beside the record', () => {
  it('is written at each change (mode 0600) and names the unfinished top-ups only', async () => {
    await recordWithChargeInFlight();
    const summary = JSON.parse(await readFile(path.join(dir, 'topups-summary.json'), 'utf8'));
    expect(summary).toMatchObject({ version: 1, records: 13, generation: 25 });
    expect(summary.unfinished).toEqual([expect.objectContaining({ method: 'card_direct', state: 'verifying', amount: 30, autoTopUp: true })]);
    expect((await stat(path.join(dir, 'topups-summary.json'))).mode & 0o777).toBe(0o600);
  });

  it('a new data dir is a new record; a record kept before summaries existed gets one', async () => {
    expect(await new TopUpJournal({ path: file }).list()).toEqual([]);
    expect(await readdir(dir)).not.toContain('topups-summary.json');
    // A record from before (no summary): trusted as it reads, and summarised.
    const journal = new TopUpJournal({ path: file });
    await journal.add(charge);
    journal.close();
    await rm(path.join(dir, 'topups-summary.json'));
    expect(await new TopUpJournal({ path: file }).list()).toHaveLength(1);
    expect(JSON.parse(await readFile(path.join(dir, 'topups-summary.json'), 'utf8'))).toMatchObject({ records: 1 });
  });

  it('an unreadable summary beside an empty record: refused (a record existed, what it held is unknown)', async () => {
    await recordWithChargeInFlight();
    await truncate(file, 0);
    await writeFile(path.join(dir, 'topups-summary.json'), '{"version":1,', { mode: 0o600 });
    const journal = new TopUpJournal({ path: file });
    await expect(journal.list()).rejects.toThrow(/what it held is not known: its summary .* cannot be read either \(it is not JSON\)/);
    journal.close();
  });
});

describe('accepting the loss (billing history --accept-loss)', () => {
  it('moves the damaged record and its summary aside, then a new record starts', async () => {
    await recordWithChargeInFlight();
    await truncate(file, 0);
    const journal = new TopUpJournal({ path: file });
    const done = await acceptJournalLoss(journal, Date.parse('2026-11-28T04:00:00.000Z'));
    expect(done).toMatchObject({ kind: 'moved', damage: expect.stringMatching(/a card charge of \$30\.00/) });
    if (done.kind !== 'moved') throw new Error('not moved');
    expect(done.aside.map((f) => path.basename(f))).toEqual(['topups.db.damaged-2026-11-28T04-00-00-000Z', 'topups-summary.json.damaged-2026-11-28T04-00-00-000Z']);
    expect(await new TopUpJournal({ path: file }).list()).toEqual([]);
    expect(await acceptJournalLoss(new TopUpJournal({ path: file }))).toEqual({ kind: 'readable' });
  });
});
