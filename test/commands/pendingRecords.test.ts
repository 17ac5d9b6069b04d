/**
 * The word on interrupted operations at the start of a key command (src/commands/output.ts
 * `openSession`), whose readers load only when a record is there: a record that is there but
 * cannot be read is still said (one warning naming it, the list still printed), a link to nothing
 * reads as no record (as the reader itself opens it), and a command with none says nothing.
 */
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSandbox } from '../sandbox/helpers.js';
import { type Scripted, useScriptedSandbox } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

/** A fresh data dir of the test's home, as the environment naming it. */
const dataEnv = () => ({ KEYDECK_DATA_DIR: mkdtempSync(path.join(cli.home.home, 'data-')) });

describe('interrupted operations, said by keys list', () => {
  it('no record: nothing on stderr', async () => {
    const user = await sb.fundedUser(0);
    const r = await cli.run(user, ['keys', 'list', '--json'], dataEnv());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it.each([
    ['operations.json', /the operation record/i],
    ['rotations.json', /the rotation record/i],
    ['mgmt-rotations.json', /the management-key rotation record/i],
  ])('%s there but not a file: a warning naming it, and the list', async (file, words) => {
    const user = await sb.fundedUser(0);
    const data = dataEnv();
    mkdirSync(path.join(data.KEYDECK_DATA_DIR, file), { mode: 0o700 });
    const r = await cli.run(user, ['keys', 'list', '--json'], data);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    expect(r.stderr).toMatch(/^warning: /m);
    expect(r.stderr).toMatch(words);
    expect(r.stderr).toContain(file);
  });

  it('a record that is a link to nothing reads as none: nothing on stderr', async () => {
    const user = await sb.fundedUser(0);
    const data = dataEnv();
    for (const file of ['operations.json', 'rotations.json', 'mgmt-rotations.json']) symlinkSync(path.join(data.KEYDECK_DATA_DIR, 'nowhere', file), path.join(data.KEYDECK_DATA_DIR, file));
    const r = await cli.run(user, ['keys', 'list', '--json'], data);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });
});
