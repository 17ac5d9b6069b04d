/**
 * Delivery to real files and real programs (src/delivery/): a dotenv file created 0600 or edited in
 * place under trust checks (someone else's file or directory, a readable file, a writable directory
 * refused with the fix), and commands run without a shell with the key on stdin only (a shell
 * script stands in for `gh` and stores its stdin, argv and environment), bounded, their output
 * withheld when it shows the key.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDestinations, deliverKey } from '../../src/delivery/deliver.js';
import { DeliveryError, parseCommandDestination, parseFileDestination } from '../../src/delivery/destinations.js';

const KEY = 'sk_TestKeyValue0123456789abcdefghijABCDEFGHIJ';
let root: string;
let lockDir: string;
let bin: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-deliver-'));
  lockDir = path.join(root, 'data');
  bin = path.join(root, 'bin');
  mkdirSync(bin);
  // The gh stand-in: stores its stdin, its argv and its environment, prints a line like gh's.
  writeFileSync(path.join(bin, 'gh'), `#!/bin/sh\ncat > "${root}/gh.stdin"\nprintf '%s\\n' "$@" > "${root}/gh.argv"\nenv > "${root}/gh.env"\necho "✓ Set Actions secret $3"\n`, { mode: 0o755 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = () => ({ ...process.env, PATH: `${bin}:${process.env.PATH}`, KEYDECK_TOKEN: 'mk_keydeckOwnCredential123' });
const dir = (name: string, mode = 0o700) => {
  const d = path.join(root, name);
  mkdirSync(d, { recursive: true, mode });
  chmodSync(d, mode);
  return d;
};

describe('--to-file', () => {
  it('creates a missing file with mode 0600, or replaces only the variable of an existing one', async () => {
    const d = dir('app');
    const fresh = path.join(d, 'new.env');
    const existing = path.join(d, '.env');
    writeFileSync(existing, 'A=1\r\nOPENAI_API_KEY=old\r\nB=2', { mode: 0o600 });
    const outcomes = await deliverKey(KEY, [parseFileDestination(fresh), parseFileDestination(`${existing}:OPENAI_API_KEY`)], { lockDir });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(readFileSync(fresh, 'utf8')).toBe(`KEYDECK_API_KEY=${KEY}\n`);
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(readFileSync(existing, 'utf8')).toBe(`A=1\r\nOPENAI_API_KEY=${KEY}\r\nB=2`);
    expect(outcomes[1]!.sentence).toMatch(/replaced OPENAI_API_KEY in .*, line 2; the other lines are unchanged/);
    for (const o of outcomes) expect(o.sentence).not.toContain(KEY);
  });

  it('refuses, before any key exists, a file others can read, a directory others can write, and a missing directory, naming the fix', async () => {
    const d = dir('loose');
    const readable = path.join(d, '.env');
    writeFileSync(readable, 'A=1\n', { mode: 0o644 });
    chmodSync(readable, 0o644);
    const open = dir('open', 0o777);
    const check = (spec: string) =>
      checkDestinations([parseFileDestination(spec)]).then(
        () => 'ok',
        (e: DeliveryError) => `${e.code}: ${e.message}`,
      );
    expect(await check(readable)).toMatch(/^destination_refused: .* can be read by group or others.*`chmod 600 .*\.env`/);
    expect(await check(path.join(open, '.env'))).toMatch(/^destination_refused: the directory .*open can be written by group or others \(mode 0777\).*`chmod go-w /);
    expect(await check(path.join(root, 'nowhere', '.env'))).toMatch(/does not exist/);
    expect(readFileSync(readable, 'utf8')).toBe('A=1\n');
  });

  it('checks every directory above the file too (ssh’s StrictModes): one others may write is refused, a sticky one (/tmp) only when the entry in it is not yours', async () => {
    const check = (spec: string) =>
      checkDestinations([parseFileDestination(spec)]).then(
        () => 'ok',
        (e: DeliveryError) => `${e.code}: ${e.message}`,
      );
    // The directory itself is the user's and closed; the one above it is open to all.
    const above = dir('above', 0o777);
    const inside = path.join(above, 'app');
    mkdirSync(inside, { mode: 0o700 });
    expect(await check(path.join(inside, '.env'))).toMatch(
      /^destination_refused: the directory .*above can be written by group or others \(mode 0777\), who could move .*app away and put a link in its place: fix it with `chmod go-w .*above`/,
    );
    // Higher up, group-writable: refused the same way.
    const group = dir('group', 0o770);
    mkdirSync(path.join(group, 'a', 'b'), { recursive: true, mode: 0o700 });
    expect(await check(path.join(group, 'a', 'b', '.env'))).toMatch(/the directory .*group can be written by group or others \(mode 0770\)/);
    // Sticky and open to all, like /tmp: the user's own directory in it is fine.
    const sticky = dir('sticky', 0o1777);
    mkdirSync(path.join(sticky, 'mine'), { mode: 0o700 });
    expect(await check(path.join(sticky, 'mine', '.env'))).toBe('ok');
    // A link in a directory others may write is not followed.
    const linkDir = dir('linkdir', 0o777);
    const real = path.join(dir('realdir'), 'real.env');
    writeFileSync(real, 'A=1\n', { mode: 0o600 });
    symlinkSync(real, path.join(linkDir, '.env'));
    expect(await check(path.join(linkDir, '.env'))).toMatch(/the directory .*linkdir can be written by group or others/);
    const [o] = await deliverKey(KEY, [parseFileDestination(path.join(linkDir, '.env'))], { lockDir });
    expect(o!.ok).toBe(false);
    expect(readFileSync(real, 'utf8')).toBe('A=1\n');
  });

  it.runIf(process.getuid?.() === 0)('refuses a directory under one of another user’s, or theirs in a sticky directory', async () => {
    const check = (spec: string) =>
      checkDestinations([parseFileDestination(spec)]).then(
        () => 'ok',
        (e: DeliveryError) => `${e.code}: ${e.message}`,
      );
    const theirs = dir('their-home', 0o755);
    chownSync(theirs, 65534, 65534);
    mkdirSync(path.join(theirs, 'app'), { mode: 0o700 });
    expect(await check(path.join(theirs, 'app', '.env'))).toMatch(
      /the directory .*their-home belongs to uid 65534, who could move .*app away and put a link in its place: keydeck writes only where every directory above belongs to you or root/,
    );
    const sticky = dir('sticky-shared', 0o1777);
    mkdirSync(path.join(sticky, 'nobodys', 'app'), { recursive: true, mode: 0o755 });
    chownSync(path.join(sticky, 'nobodys'), 65534, 65534);
    expect(await check(path.join(sticky, 'nobodys', 'app', '.env'))).toMatch(/nobodys belongs to uid 65534/);
  });

  it.runIf(process.getuid?.() === 0)('refuses a file or a directory that belongs to another user', async () => {
    const d = dir('theirs');
    const f = path.join(d, '.env');
    writeFileSync(f, 'A=1\n', { mode: 0o600 });
    chownSync(f, 65534, 65534);
    const [o] = await deliverKey(KEY, [parseFileDestination(f)], { lockDir });
    expect(o!.ok).toBe(false);
    expect(o!.sentence).toMatch(/belongs to another user.*chown \$\(id -u\)/);
    const foreign = dir('foreign');
    chownSync(foreign, 65534, 65534);
    await expect(checkDestinations([parseFileDestination(path.join(foreign, '.env'))])).rejects.toThrow(/directory .* belongs to another user/);
    expect(readFileSync(f, 'utf8')).toBe('A=1\n');
  });

  it('follows a symbolic link and writes the real file, checked as one', async () => {
    const d = dir('linked');
    const real = path.join(d, 'real.env');
    writeFileSync(real, 'X=1\n', { mode: 0o600 });
    symlinkSync(real, path.join(d, '.env'));
    const [o] = await deliverKey(KEY, [parseFileDestination(path.join(d, '.env'))], { lockDir });
    expect(o!.ok, o!.sentence).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe(`X=1\nKEYDECK_API_KEY=${KEY}\n`);
  });
});

describe('--to-command', () => {
  it('gives the key on stdin only: not in argv, not in the environment, and keydeck’s own token is not passed on', async () => {
    const dest = parseCommandDestination('gh secret set OPENAI_API_KEY --repo "owner/my repo"', { env: env() });
    expect(dest.kind === 'command' && dest.argv).toEqual(['gh', 'secret', 'set', 'OPENAI_API_KEY', '--repo', 'owner/my repo']);
    await checkDestinations([dest], { env: env() });
    const [o] = await deliverKey(KEY, [dest], { lockDir, env: env() });
    expect(o!.ok, o!.sentence).toBe(true);
    expect(readFileSync(path.join(root, 'gh.stdin'), 'utf8')).toBe(KEY);
    expect(readFileSync(path.join(root, 'gh.argv'), 'utf8')).toBe('secret\nset\nOPENAI_API_KEY\n--repo\nowner/my repo\n');
    const childEnv = readFileSync(path.join(root, 'gh.env'), 'utf8');
    expect(childEnv).not.toContain(KEY);
    expect(childEnv).not.toContain('KEYDECK_TOKEN');
    expect(childEnv).not.toContain('mk_keydeckOwnCredential123');
    expect(o!.command!.output).toBe('✓ Set Actions secret OPENAI_API_KEY\n');
  });

  it('its exit status decides; an output that shows the key (as is, in part, or base64) is withheld', async () => {
    const run = (line: string) => deliverKey(KEY, [parseCommandDestination(line)], { lockDir }).then(([o]) => o!);
    const failed = await run('sh -c "echo refused >&2; exit 3"');
    expect(failed.ok).toBe(false);
    expect(failed.sentence).toMatch(/failed \(exit 3\)/);
    expect(failed.command!.output).toBe('refused\n');
    for (const echo of ['cat', 'sh -c "cut -c5-30"', 'base64 -w0']) {
      const o = await run(echo);
      expect(o.ok, echo).toBe(true);
      expect(o.command!.outputHidden, echo).toBe(true);
      expect(o.command!.output).toBe('');
    }
  });

  it('kills a command that hangs after its bound, also one whose child keeps the output open', async () => {
    const started = Date.now();
    const [o] = await deliverKey(KEY, [parseCommandDestination('sh -c "sleep 4 & sleep 4"')], { lockDir, commandTimeoutMs: 300 });
    expect(o!.ok).toBe(false);
    expect(o!.command!.timedOut).toBe(true);
    expect(o!.sentence).toMatch(/did not finish within 300 ms and was killed/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses what needs a shell, $KEYDECK_TOKEN, and a program not on PATH', async () => {
    for (const line of ['gh secret set X | tee log', 'gh > out', 'a && b', 'ls *.env']) {
      expect(() => parseCommandDestination(line), line).toThrow(/needs a shell/);
    }
    expect(() => parseCommandDestination('vault kv put x token=$KEYDECK_TOKEN', { env: env() })).toThrow(/one of keydeck's secrets/);
    await expect(checkDestinations([parseCommandDestination('no-such-program-here x')])).rejects.toThrow(/not found on PATH/);
  });
});
