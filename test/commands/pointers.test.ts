/**
 * Errors that point the right way: a profile the config file does not have is "no such profile"
 * (with `--sandbox` too, which used to ignore it), and a mistyped subcommand followed by its
 * options suggests the command instead of blaming the option.
 */
import { describe, expect, it } from 'vitest';
import { makeTempHome, runCli } from '../credentials/harness.js';
import path from 'node:path';

describe('--profile naming no profile', () => {
  it('says "no such profile", with how to list and create one (exit 2), also with --sandbox', async () => {
    const home = makeTempHome();
    try {
      const env = home.env({ KEYDECK_DATA_DIR: path.join(home.home, 'data') });
      const sentence = 'keydeck: no such profile "nosuch": `keydeck profile list` lists the profiles; `keydeck auth login --profile nosuch --base-url URL` creates it.\n';
      const plain = await runCli(['--profile', 'nosuch', 'keys', 'list'], { env });
      expect(plain.code).toBe(2);
      expect(plain.stderr).toBe(sentence);
      const sandbox = await runCli(['--sandbox', '--profile', 'nosuch', 'keys', 'list'], { env });
      expect(sandbox.code).toBe(2);
      expect(sandbox.stderr).toBe(sentence);
      expect(sandbox.stdout).toBe('');
      // The default profile exists before anything is saved: it only lacks a base URL.
      const fresh = await runCli(['keys', 'list'], { env });
      expect(fresh.code).toBe(2);
      expect(fresh.stderr).toMatch(/^keydeck: profile "default" has no base URL: pass --base-url URL/);
      // --sandbox with its own profile, or none, works as before.
      const own = await runCli(['--sandbox', '--profile', 'sandbox', 'billing', 'credits', '--json'], { env });
      expect(own.code, own.stderr).toBe(0);
    } finally {
      home.remove();
    }
  });
});

describe('a mistyped subcommand with options', () => {
  it('`keys creat --name x` suggests `keys create`; an unknown option of a group is said as such', async () => {
    const env = { ...process.env };
    const typo = await runCli(['keys', 'creat', '--name', 'x'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("keydeck: unknown command 'keys creat'.\nDid you mean 'keys create'? See 'keydeck keys --help'.\n");
    const option = await runCli(['billing', '--bogus'], { env });
    expect(option.code).toBe(2);
    expect(option.stderr).toBe("keydeck: unknown option '--bogus'.\nSee 'keydeck billing --help'.\n");
    // A known subcommand still reports its own unknown option, with the suggestion commander makes.
    const sub = await runCli(['keys', 'list', '--jsno'], { env });
    expect(sub.stderr).toBe("keydeck: unknown option '--jsno'.\nDid you mean '--json'? See 'keydeck keys list --help'.\n");
  });
});
