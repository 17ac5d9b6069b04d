/**
 * src/config/atomic.ts: the write every file keydeck keeps for a user goes through follows no
 * link, refuses what is not a regular file at the target's name, checks the directory and those
 * above it (src/config/strictModes.ts), sets mode and owner on the descriptor, and leaves nothing
 * behind when refused. The race against another user planting links is
 * test/operations/tokenFileRace.test.ts.
 */
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsafePathError, writeFileAtomically } from '../../src/config/atomic.js';
import { checkDirectoryChain } from '../../src/config/strictModes.js';

const AS_ROOT = process.getuid?.() === 0;
let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-atomic-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const fresh = (name: string, mode = 0o700) => {
  const d = path.join(root, name);
  mkdirSync(d, { recursive: true });
  chmodSync(d, mode);
  return d;
};

describe('writeFileAtomically', () => {
  it('writes the file with exactly the mode asked, whatever the umask, and leaves no temporary file', async () => {
    const d = fresh('plain');
    const file = path.join(d, 'config.json');
    const umask = process.umask(0o077);
    try {
      await writeFileAtomically(file, 'one\n', 0o644);
    } finally {
      process.umask(umask);
    }
    expect(readFileSync(file, 'utf8')).toBe('one\n');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    await writeFileAtomically(file, 'two\n', 0o600);
    expect([readFileSync(file, 'utf8'), statSync(file).mode & 0o777]).toEqual(['two\n', 0o600]);
    expect(readdirSync(d)).toEqual(['config.json']);
  });

  it('refuses a link, a directory or a socket at the target’s name, follows none, and leaves nothing behind', async () => {
    const d = fresh('links');
    const elsewhere = path.join(fresh('elsewhere'), 'victim');
    writeFileSync(elsewhere, 'untouched\n', { mode: 0o600 });
    symlinkSync(elsewhere, path.join(d, 'record.json'));
    await expect(writeFileAtomically(path.join(d, 'record.json'), 'x', 0o600)).rejects.toThrow(/record\.json is a symbolic link: keydeck writes no file through a link/);
    // A dangling link too (write-file-atomic would have created its target).
    symlinkSync(path.join(root, 'would-be-created'), path.join(d, 'dangling'));
    await expect(writeFileAtomically(path.join(d, 'dangling'), 'x', 0o600)).rejects.toBeInstanceOf(UnsafePathError);
    mkdirSync(path.join(d, 'dir'));
    await expect(writeFileAtomically(path.join(d, 'dir'), 'x', 0o600)).rejects.toThrow(/dir is a directory/);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(d, 'sock'), resolve));
    try {
      await expect(writeFileAtomically(path.join(d, 'sock'), 'x', 0o600)).rejects.toThrow(/sock is not a regular file/);
    } finally {
      server.close();
    }
    expect(readFileSync(elsewhere, 'utf8')).toBe('untouched\n');
    expect(readdirSync(root)).not.toContain('would-be-created');
    expect(readdirSync(d).sort()).toEqual(['dangling', 'dir', 'record.json']);
  });

  it('refuses a directory others may write, or one above it, naming the chmod; a sticky one above only holds entries of yours', async () => {
    const open = fresh('open', 0o777);
    await expect(writeFileAtomically(path.join(open, 'f'), 'x', 0o600)).rejects.toThrow(/the directory .*open can be written by group or others \(mode 0777\).*chmod go-w/);
    const sticky = fresh('sticky', 0o1777);
    await expect(writeFileAtomically(path.join(sticky, 'f'), 'x', 0o600)).rejects.toThrow(/can be written by group or others \(mode 01777\)/);
    const mine = fresh('sticky/mine');
    await writeFileAtomically(path.join(mine, 'f'), 'x', 0o600);
    fresh('loose', 0o775);
    const below = fresh('loose/inner');
    await expect(writeFileAtomically(path.join(below, 'f'), 'x', 0o600)).rejects.toThrow(/the directory .*loose can be written by group or others \(mode 0775\), who could move .*inner away/);
    expect(readdirSync(below)).toEqual([]);
  });

  it('checks the path as given and its real path: a link to a good directory from an open one is refused', async () => {
    const good = fresh('good');
    const open = fresh('open2', 0o777);
    symlinkSync(good, path.join(open, 'to-good'));
    await expect(writeFileAtomically(path.join(open, 'to-good', 'f'), 'x', 0o600)).rejects.toThrow(/open2 can be written by group or others/);
    const link = path.join(fresh('closed'), 'to-good');
    symlinkSync(good, link);
    await writeFileAtomically(path.join(link, 'f'), 'x', 0o600);
    expect(readFileSync(path.join(good, 'f'), 'utf8')).toBe('x');
  });

  describe.runIf(AS_ROOT)('as root', () => {
    it('keeps the owner of the file it replaces, or takes `chown`, set on the descriptor', async () => {
      const d = fresh('root-own');
      const file = path.join(d, 'token');
      writeFileSync(file, 'old\n', { mode: 0o400 });
      chownSync(file, 65534, 65534);
      await writeFileAtomically(file, 'new\n', 0o400);
      const st = statSync(file);
      expect([st.uid, st.gid, st.mode & 0o777, readFileSync(file, 'utf8')]).toEqual([65534, 65534, 0o400, 'new\n']);
      await writeFileAtomically(path.join(d, 'other'), 'x', 0o600, { chown: { uid: 65533, gid: 65533 } });
      expect(statSync(path.join(d, 'other')).uid).toBe(65533);
    });

    it('writes in another user’s directory only with asDirectoryOwner, and then as that user; only under directories of root', async () => {
      const theirs = fresh('theirs');
      chownSync(theirs, 65534, 65534);
      await expect(writeFileAtomically(path.join(theirs, 'f'), 'x', 0o600)).rejects.toThrow(/theirs belongs to another user \(uid 65534\)/);
      await writeFileAtomically(path.join(theirs, 'f'), 'x', 0o600, { asDirectoryOwner: true });
      expect([statSync(path.join(theirs, 'f')).uid, statSync(path.join(theirs, 'f')).gid]).toEqual([65534, 65534]);
      await expect(writeFileAtomically(path.join(theirs, 'g'), 'x', 0o600, { asDirectoryOwner: true, chown: { uid: 0, gid: 0 } })).rejects.toThrow(/would belong to uid 0 in a directory of uid 65534/);
      // Their directory under another of theirs: they could move it away; refused, naming sudo -u.
      const home = fresh('their-home', 0o755);
      const inner = fresh('their-home/inner');
      chownSync(home, 65534, 65534);
      chownSync(inner, 65534, 65534);
      await expect(writeFileAtomically(path.join(inner, 'f'), 'x', 0o600, { asDirectoryOwner: true })).rejects.toThrow(/their-home belongs to uid 65534.*sudo -u '#65534' keydeck/);
      expect(readdirSync(inner)).toEqual([]);
      expect(lstatSync(inner).uid).toBe(65534);
    });
  });
});

describe('checkDirectoryChain', () => {
  it('gives the real path of a directory whose path holds a link', () => {
    const good = fresh('chain-good');
    const link = path.join(fresh('chain-closed'), 'link');
    symlinkSync(good, link);
    expect(checkDirectoryChain(link).dir).toBe(good);
  });
});
