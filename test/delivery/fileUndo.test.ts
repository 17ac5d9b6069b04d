/**
 * A dotenv destination put back (src/delivery/fileUndo.ts): the previous content kept
 * beside the file (0600) before the first write, and given back byte for byte when nothing else
 * changed since keydeck wrote; only the variable set back (or removed) when someone changed other
 * lines since; a file keydeck created removed; a file that no longer holds the key left alone.
 * And the removal of an assignment (src/delivery/dotenv.ts `removeDotenvVariable`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKeyToFile } from '../../src/delivery/fileTarget.js';
import { parseFileDestination, type Destination } from '../../src/delivery/destinations.js';
import { DotenvEditError, removeDotenvVariable } from '../../src/delivery/dotenv.js';
import { fileHolds, planBackup, restoreFile, writeBackup } from '../../src/delivery/fileUndo.js';
import { keyFingerprint } from '../../src/delivery/fingerprint.js';

const KEY = 'sk_NewKeyValue0123456789abcdefghijABCDEFGH';
let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-fileundo-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A dotenv file with `text` (or none), written over with KEY the way an operation does. */
async function written(text: string | undefined) {
  const dir = mkdtempSync(path.join(root, 'app-'));
  const file = path.join(dir, '.env');
  if (text !== undefined) writeFileSync(file, text, { mode: 0o600 });
  const d = parseFileDestination(file) as Extract<Destination, { kind: 'file' }>;
  const before = await planBackup(d, '0123456789abcdef');
  await writeBackup(before, dir);
  await writeKeyToFile(d, KEY, dir);
  return { d, before, file, dir };
}

describe('putting a dotenv file back', () => {
  it('keeps the previous content beside it (0600) and gives it back byte for byte', async () => {
    const text = '# app\r\nPORT=8080\r\nKEYDECK_API_KEY=sk_old_key_value_12345\r\nB=2';
    const { d, before, file, dir } = await written(text);
    expect(before.backup).toBe(path.join(dir, '.env.keydeck-before-01234567'));
    expect(statSync(before.backup!).mode & 0o777).toBe(0o600);
    expect(readFileSync(before.backup!, 'utf8')).toBe(text);
    expect(await fileHolds(d, keyFingerprint(KEY))).toBe(true);
    const r = await restoreFile(d, before, keyFingerprint(KEY), dir);
    expect(r).toEqual({ released: true, held: true, sentence: expect.stringMatching(/^put back .*\.env \(KEYDECK_API_KEY\) as it was before$/) });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('sets back only the variable when other lines changed since, and removes a file keydeck created', async () => {
    const { d, before, file, dir } = await written('PORT=8080\nKEYDECK_API_KEY=sk_old_key_value_12345\n');
    writeFileSync(file, `${readFileSync(file, 'utf8')}ADDED=1\n`);
    expect((await restoreFile(d, before, keyFingerprint(KEY), dir)).sentence).toMatch(/^set KEYDECK_API_KEY in .* back to its previous value \(the file's other changes since are kept\)$/);
    expect(readFileSync(file, 'utf8')).toBe('PORT=8080\nKEYDECK_API_KEY=sk_old_key_value_12345\nADDED=1\n');

    const fresh = await written(undefined);
    expect(fresh.before.backup).toBeUndefined();
    expect((await restoreFile(fresh.d, fresh.before, keyFingerprint(KEY), fresh.dir)).sentence).toMatch(/^removed .*: keydeck had created it$/);
    expect(existsSync(fresh.file)).toBe(false);
  });

  it('leaves a file that no longer holds the key alone', async () => {
    const { d, before, file, dir } = await written('A=1\n');
    writeFileSync(file, 'A=1\nKEYDECK_API_KEY=sk_someone_elses_key_123456\n');
    const r = await restoreFile(d, before, keyFingerprint(KEY), dir);
    expect(r.released).toBe(true);
    expect(r.sentence).toMatch(/does not hold the new key \(any more\): left as it is/);
    expect(readFileSync(file, 'utf8')).toBe('A=1\nKEYDECK_API_KEY=sk_someone_elses_key_123456\n');
  });
});

describe('removeDotenvVariable', () => {
  it('removes every assignment of the variable, a quoted one over several lines included, and nothing else', () => {
    expect(removeDotenvVariable('A=1\nK=x\n# c\nexport K = "y\nz"\nB=2', 'K')).toBe('A=1\n# c\nB=2');
    expect(() => removeDotenvVariable('A=1\n', '1K')).toThrow(DotenvEditError);
  });
});
